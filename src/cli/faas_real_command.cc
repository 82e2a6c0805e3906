// The real serverless platform (docs/faas.md): `jigsaw faas` (a load balancer and K SGS processes
// with sandbox worker pools on 127.0.0.1), `jigsaw faas-sandbox` (one sandbox process, started by
// an SGS) and `jigsaw faas-load` (Poisson or bursty requests over HTTP, summary.json).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "cli/commands.h"
#include "core/data_files.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/output.h"
#include "core/units.h"
#include "faas/dag_reader.h"
#include "faas/function_code.h"
#include "faas/load_client.h"
#include "faas/platform.h"
#include "faas/sandbox_process.h"
#include "net/units.h"

namespace jigsaw {
namespace {

constexpr char kCifarArchive[] = "datasets/cifar10/cifar10-jpeg.tar.gz";

struct FaasOptions {
  std::string dags;
  faas::PlatformOptions platform;
  std::string policy = "rlsf";
  std::string memory = "1GiB";
  std::string invoker_memory;   // empty: --memory
  std::string ow_pause_grace;   // empty: 50ms (openwhisk only)
  std::string ow_unpause_cost;  // empty: 15ms (openwhisk only)
  std::string keep_alive = "600s";
  std::string epoch = "500ms";
  std::string request_timeout = "60s";
  std::string ready_timeout = "30s";
  std::string cifar;  // "": SharedDataPath(kCifarArchive)
  int max_retries = 1;
  std::string sparrow_probes;  // empty: 2 (sparrow only)
  bool no_proactive = false;
  std::string sandbox_memory = "512MiB";
};

net::Time PositiveDuration(const std::string& option, const std::string& text) {
  net::Time time = 0;
  if (!net::ParseDuration(text, &time) || time <= 0) {
    throw UsageError(option + " '" + text + "': expected a positive duration like 500ms");
  }
  return time;
}

net::Time NonNegativeDuration(const std::string& option, const std::string& text) {
  net::Time time = 0;
  if (!net::ParseDuration(text, &time) || time < 0) {
    throw UsageError(option + " '" + text + "': expected a duration like 50ms (0s: off)");
  }
  return time;
}

std::string SelfExe() {
  char buffer[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) throw std::runtime_error("faas: cannot read /proc/self/exe");
  return std::string(buffer, static_cast<size_t>(n));
}

int RunFaas(FaasOptions o) {
  const faas::Catalog catalog = faas::ReadDagFile(o.dags);
  faas::SgsOptions& sgs = o.platform.sgs;
  if (!faas::ParseQueuePolicy(o.policy, &sgs.policy)) {
    throw UsageError("--policy '" + o.policy + "': expected lsf, edf, fifo or rlsf");
  }
  if (!ParseBytes(o.memory, &sgs.memory) || sgs.memory == 0) {
    throw UsageError("--memory '" + o.memory + "': expected a size like 1GiB");
  }
  if (!o.invoker_memory.empty() && (!ParseBytes(o.invoker_memory, &o.platform.invoker_memory) ||
                                    o.platform.invoker_memory == 0)) {
    throw UsageError("--invoker-memory '" + o.invoker_memory + "': expected a size like 2GiB");
  }
  if (!o.invoker_memory.empty() && o.platform.platform != "openwhisk") {
    throw UsageError("--invoker-memory applies to --platform openwhisk only");
  }
  for (const auto& [option, text] : {std::pair{"--ow-pause-grace", o.ow_pause_grace},
                                     std::pair{"--ow-unpause-cost", o.ow_unpause_cost}}) {
    if (!text.empty() && o.platform.platform != "openwhisk") {
      throw UsageError(std::string(option) + " applies to --platform openwhisk only");
    }
  }
  if (!o.sparrow_probes.empty()) {
    if (o.platform.platform != "sparrow") {
      throw UsageError("--sparrow-probes applies to --platform sparrow only");
    }
    char* end = nullptr;
    const long probes = std::strtol(o.sparrow_probes.c_str(), &end, 10);
    if (*end != '\0' || probes < 1 || probes > 8) {
      throw UsageError("--sparrow-probes '" + o.sparrow_probes + "': expected 1..8");
    }
    o.platform.sparrow_probes = static_cast<int>(probes);
  }
  if (o.platform.platform == "openwhisk") {
    // OpenWhisk 1.0.0's pause-grace and the lower published resume cost (docs/faas.md).
    sgs.pause_grace = NonNegativeDuration("--ow-pause-grace",
                                          o.ow_pause_grace.empty() ? "50ms" : o.ow_pause_grace);
    sgs.resume_cost = NonNegativeDuration("--ow-unpause-cost",
                                          o.ow_unpause_cost.empty() ? "15ms" : o.ow_unpause_cost);
  }
  if (sgs.slots < 1 || sgs.slots > 64) throw UsageError("--slots must be in 1..64");
  if (o.max_retries < 0 || o.max_retries > 10) throw UsageError("--max-retries must be in 0..10");
  sgs.max_attempts = 1 + o.max_retries;
  sgs.keep_alive = PositiveDuration("--keep-alive", o.keep_alive);
  sgs.epoch = o.platform.epoch = PositiveDuration("--epoch", o.epoch);
  sgs.request_timeout = PositiveDuration("--request-timeout", o.request_timeout);
  sgs.sandbox_ready_timeout = PositiveDuration("--sandbox-ready-timeout", o.ready_timeout);
  if (o.platform.max_sgs_restarts < 0 || o.platform.max_sgs_restarts > 1000) {
    throw UsageError("--sgs-restarts must be in 0..1000");
  }
  if (o.platform.http_threads < 1 || o.platform.http_threads > 1024) {
    throw UsageError("--http-threads must be in 1..1024");
  }
  sgs.http_threads = o.platform.http_threads;
  RequireCountInRange("--max-connections", o.platform.http.max_connections, 1, 65536);
  RequireOptionInRange("--http-request-timeout-s", o.platform.http.request_timeout_s, 0.01, 86400);
  sgs.http = o.platform.http;
  sgs.proactive = !o.no_proactive;
  sgs.jigsaw_exe = SelfExe();
  if (!ParseBytes(o.sandbox_memory, &sgs.sandbox.memory_bytes)) {
    throw UsageError("--sandbox-memory '" + o.sandbox_memory + "': expected a size like 512MiB");
  }
  bool needs_cifar = false;
  for (const faas::Function& f : catalog.functions) {
    needs_cifar = needs_cifar || f.code.rfind("resize", 0) == 0;
    if (f.memory > sgs.memory) {
      throw UsageError("function '" + f.name + "' declares more memory than --memory " + o.memory);
    }
    if (o.platform.invoker_memory > 0 && f.memory > o.platform.invoker_memory) {
      throw UsageError("function '" + f.name + "' declares more memory than --invoker-memory " +
                       o.invoker_memory);
    }
  }
  if (needs_cifar) {
    if (o.cifar.empty()) o.cifar = SharedDataPath(kCifarArchive);
    if (::access(o.cifar.c_str(), R_OK) != 0) {
      throw UsageError("--cifar '" + o.cifar +
                       "': cannot read the CIFAR-10 JPEG archive the resize functions need");
    }
    sgs.cifar_archive = o.cifar;
  }
  return faas::RunPlatform(catalog, o.platform);
}

}  // namespace

void AddFaasCommands(CLI::App& app, CommandAction* action) {
  auto o = std::make_shared<FaasOptions>();
  CLI::App* command = app.add_subcommand(
      "faas",
      "the real serverless platform: a load balancer and SGS processes with sandbox worker "
      "pools on 127.0.0.1, until SIGTERM (docs/faas.md)");
  command->add_option("--dags", o->dags, "DAG file (jigsaw-faas-dags-v1)")->required();
  command->add_option("--platform", o->platform.platform,
                      "archipelago, openwhisk (home SGS, FIFO, reactive cold starts) or sparrow "
                      "(per-function probes of random SGSs, late binding, FIFO, reactive cold "
                      "starts)");
  command->add_option("--sgs", o->platform.sgs_count, "SGS processes");
  command->add_option("--slots", o->platform.sgs.slots, "concurrent invocations per SGS");
  command->add_option("--memory", o->memory,
                      "sandbox memory per SGS pool, in the DAG file's declared sizes");
  command->add_option("--invoker-memory", o->invoker_memory,
                      "openwhisk: memory slots per SGS for the balancer (OpenWhisk's invoker user "
                      "memory; default: --memory, as in OpenWhisk where one number is both)");
  command->add_option("--ow-pause-grace", o->ow_pause_grace,
                      "openwhisk: pause a sandbox idle this long (cgroup freezer, else SIGSTOP), "
                      "as OpenWhisk's pause-grace; 0s: never (default 50ms)");
  command->add_option("--ow-unpause-cost", o->ow_unpause_cost,
                      "openwhisk: modelled container-runtime cost added to each real resume "
                      "(default 15ms)");
  command->add_option("--sparrow-probes", o->sparrow_probes,
                      "sparrow: SGSs probed per function, 1..8 (default 2; as faas-sim)");
  command->add_option("--policy", o->policy, "SGS queue: lsf, edf, fifo or rlsf (archipelago)");
  command->add_flag("--no-proactive", o->no_proactive, "no proactive sandbox allocation");
  command->add_option("--keep-alive", o->keep_alive, "idle sandbox keep-alive");
  command->add_option("--epoch", o->epoch, "LB scaling and SGS allocation epoch");
  command->add_option("--max-retries", o->max_retries,
                      "re-runs of a task whose sandbox died, before the request fails");
  command->add_option("--request-timeout", o->request_timeout, "SGS answers 504 after this");
  command->add_option("--sandbox-ready-timeout", o->ready_timeout,
                      "a sandbox not initialised this long after its spawn is killed");
  command->add_option("--sgs-restarts", o->platform.max_sgs_restarts,
                      "restarts per SGS process after it died abnormally (0: none)");
  command->add_option("--http-threads", o->platform.http_threads,
                      "HTTP threads of the LB and of each SGS (each holds one request until its "
                      "answer; 64)");
  command->add_option("--max-connections", o->platform.http.max_connections,
                      "open HTTP connections of the LB and of each SGS; one more evicts an idle "
                      "one first (256)");
  command->add_option("--http-request-timeout-s", o->platform.http.request_timeout_s,
                      "a whole HTTP request must arrive within this, else 408 (10)");
  command->add_option("--cifar", o->cifar,
                      "CIFAR-10 JPEG archive for resize functions (default " +
                          SharedDataPathHelp(kCifarArchive) + ")");
  command->add_option("--sandbox-memory", o->sandbox_memory,
                      "each sandbox's cgroup memory.max (0: none; where the host offers cgroup "
                      "v2 controllers)");
  command->add_option("--sandbox-pids", o->platform.sgs.sandbox.pids,
                      "each sandbox's cgroup pids.max (0: none)");
  command->add_option("--sandbox-cpus", o->platform.sgs.sandbox.cpu_cores,
                      "each sandbox's cgroup CPU quota in cores (0: none)");
  command->add_option("--port", o->platform.port, "load balancer port on 127.0.0.1 (0: any)");
  command->add_option("--port-file", o->platform.port_file,
                      "write the load balancer's port here once it listens");
  command->add_option("--out", o->platform.out, "output folder (platform.json at shutdown)");
  command->callback([o, action] { *action = [o] { return RunFaas(*o); }; });

  auto sandbox_code = std::make_shared<std::string>();
  auto sandbox_data = std::make_shared<std::string>();
  CLI::App* sandbox = app.add_subcommand(
      "faas-sandbox", "one sandbox process of `jigsaw faas` (framed stdin/stdout; internal)");
  sandbox->add_option("--function", *sandbox_code, "function code, e.g. sha256:1MiB")->required();
  sandbox->add_option("--data", *sandbox_data, "CIFAR-10 JPEG archive (resize)");
  sandbox->callback([sandbox_code, sandbox_data, action] {
    *action = [sandbox_code, sandbox_data] {
      return faas::RunSandbox(*sandbox_code, *sandbox_data);
    };
  });

  auto load = std::make_shared<faas::LoadOptions>();
  auto load_dags = std::make_shared<std::string>();
  auto load_rate = std::make_shared<std::string>("10");
  auto load_out = std::make_shared<std::string>("out/faas-load");
  CLI::App* load_command = app.add_subcommand(
      "faas-load",
      "Poisson or bursty requests over HTTP to `jigsaw faas`; summary.json (docs/faas.md)");
  load_command->add_option("--dags", *load_dags, "the platform's DAG file")->required();
  load_command->add_option("--port", load->port, "load balancer port on 127.0.0.1")->required();
  load_command->add_option("--rate", *load_rate, "requests per second (e.g. 20 or 20/s)");
  load_command->add_option("--requests", load->requests, "requests to send");
  load_command->add_option("--warmup", load->warmup, "first requests sent but not measured");
  load_command->add_option("--connections", load->connections, "concurrent connections");
  load_command->add_option("--seed", load->seed, "seed of arrivals and DAG choice");
  auto load_burst_period = std::make_shared<std::string>("10s");
  load_command->add_option("--burst-sigma", load->burst_sigma,
                           "bursty arrivals: log-sd of each DAG's per-period lognormal rate "
                           "factor (mean 1), as faas-sim's generator; 0: Poisson (default)");
  load_command->add_option("--burst-period", *load_burst_period,
                           "bursty arrivals: length of one burst period (10s)");
  load_command->add_flag("--quiet", load->quiet, "no progress on stderr");
  load_command->add_option("--out", *load_out, "output folder (summary.json, requests.csv)")
      ->capture_default_str();
  load_command->callback([=] {
    *action = [=] {
      std::string rate = *load_rate;
      if (rate.size() > 2 && rate.substr(rate.size() - 2) == "/s") rate.resize(rate.size() - 2);
      char* end = nullptr;
      load->rate_per_s = std::strtod(rate.c_str(), &end);
      if (rate.empty() || *end != '\0' || !(load->rate_per_s > 0) || load->rate_per_s > 1e5) {
        throw UsageError("--rate '" + *load_rate + "': expected requests per second like 20/s");
      }
      if (!net::ParseDuration(*load_burst_period, &load->burst_period) || load->burst_period <= 0) {
        throw UsageError("--burst-period '" + *load_burst_period +
                         "': expected a positive duration like 10s");
      }
      if (!(load->burst_sigma >= 0 && load->burst_sigma <= 5)) {
        throw UsageError("--burst-sigma must be in [0, 5]");
      }
      const faas::Catalog catalog = faas::ReadDagFile(*load_dags);
      std::string csv;
      const Json summary = faas::RunLoad(catalog, *load, &csv);
      WriteJsonFile(*load_out + "/summary.json", summary);
      WriteFileAtomically(*load_out + "/requests.csv", csv);
      std::printf("%-12s %8s %8s %10s %10s %10s %10s %8s %10s\n", "target", "measured", "ok",
                  "met%", "p50_ms", "p99_ms", "p99.9_ms", "cold%", "rss_MiB");
      const Json& lat = summary["latency_ms"];
      std::printf("%-12s %8lld %8lld %10.2f %10.1f %10.1f %10.1f %8.2f %10.1f\n",
                  summary["target"].get<std::string>().c_str(),
                  static_cast<long long>(summary["measured"].get<int64_t>()),
                  static_cast<long long>(summary["ok"].get<int64_t>()),
                  summary["deadline_met_pct"].get<double>(), lat.value("p50", 0.0),
                  lat.value("p99", 0.0), lat.value("p999", 0.0),
                  summary["cold_start_pct"].get<double>(),
                  summary["sandbox_rss_mib"]["mean_sum_over_sgs"].get<double>());
      return 0;
    };
  });
}

}  // namespace jigsaw
