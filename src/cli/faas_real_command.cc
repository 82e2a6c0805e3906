// The real serverless platform (docs/faas.md): `jigsaw faas` (a load balancer and K SGS processes
// with sandbox worker pools on 127.0.0.1), `jigsaw faas-sandbox` (one sandbox process, started by
// an SGS) and `jigsaw faas-load` (Poisson or bursty requests over HTTP, summary.json). This file
// binds the flags to faas::PlatformRunOptions' and faas::LoadRunOptions' fields; the checks and
// the runs are faas's (faas/platform_run.h, faas/load_run.h).
#include <memory>
#include <string>

#include "cli/commands.h"
#include "core/data_files.h"
#include "faas/load_run.h"
#include "faas/platform_run.h"
#include "faas/sandbox_process.h"

namespace jigsaw {
namespace {

using faas::PlatformRunOptions;

// The platform, its SGSs' pools and policies.
void AddPlatformFlags(CLI::App* command, PlatformRunOptions* o) {
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
  command->add_option(
      "--policy", o->policy,
      "SGS queue: " + faas::EnumNames(faas::QueuePolicies(), ", ", " or ") + " (archipelago)");
  command->add_flag("--no-proactive", o->no_proactive, "no proactive sandbox allocation");
  command->add_option("--keep-alive", o->keep_alive, "idle sandbox keep-alive");
  command->add_option("--epoch", o->epoch, "LB scaling and SGS allocation epoch");
  command->add_option("--max-retries", o->max_retries,
                      "re-runs of a task whose sandbox died, before the request fails");
}

// Timeouts, restarts, HTTP bounds, sandbox limits, data and where to listen and write.
void AddServiceFlags(CLI::App* command, PlatformRunOptions* o) {
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
                          SharedDataPathHelp(faas::kCifarArchive) + ")");
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
}

void AddSandboxCommand(CLI::App& app, CommandAction* action) {
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
}

void AddLoadCommand(CLI::App& app, CommandAction* action) {
  auto o = std::make_shared<faas::LoadRunOptions>();
  CLI::App* command = app.add_subcommand(
      "faas-load",
      "Poisson or bursty requests over HTTP to `jigsaw faas`; summary.json (docs/faas.md)");
  command->add_option("--dags", o->dags, "the platform's DAG file")->required();
  command->add_option("--port", o->load.port, "load balancer port on 127.0.0.1")->required();
  command->add_option("--rate", o->rate, "requests per second (e.g. 20 or 20/s)");
  command->add_option("--requests", o->load.requests, "requests to send");
  command->add_option("--warmup", o->load.warmup, "first requests sent but not measured");
  command->add_option("--connections", o->load.connections, "concurrent connections");
  command->add_option("--seed", o->load.seed, "seed of arrivals and DAG choice");
  command->add_option("--burst-sigma", o->load.burst_sigma,
                      "bursty arrivals: log-sd of each DAG's per-period lognormal rate "
                      "factor (mean 1), as faas-sim's generator; 0: Poisson (default)");
  command->add_option("--burst-period", o->burst_period,
                      "bursty arrivals: length of one burst period (10s)");
  command->add_flag("--quiet", o->load.quiet, "no progress on stderr");
  command->add_option("--out", o->out, "output folder (summary.json, requests.csv)")
      ->capture_default_str();
  command->callback([o, action] { *action = [o] { return faas::RunLoadCommand(*o); }; });
}

}  // namespace

void AddFaasCommands(CLI::App& app, CommandAction* action) {
  auto o = std::make_shared<PlatformRunOptions>();
  CLI::App* command = app.add_subcommand(
      "faas",
      "the real serverless platform: a load balancer and SGS processes with sandbox worker "
      "pools on 127.0.0.1, until SIGTERM (docs/faas.md)");
  AddPlatformFlags(command, o.get());
  AddServiceFlags(command, o.get());
  command->callback([o, action] { *action = [o] { return faas::RunPlatformCommand(*o); }; });
  AddSandboxCommand(app, action);
  AddLoadCommand(app, action);
}

}  // namespace jigsaw
