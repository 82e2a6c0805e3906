#include "faas/platform_run.h"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <utility>

#include "core/data_files.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/units.h"
#include "faas/dag_reader.h"
#include "faas/sim_options.h"
#include "net/units.h"

namespace jigsaw::faas {
namespace {

Time PositiveDuration(const std::string& option, const std::string& text) {
  Time time = 0;
  if (!net::ParseDuration(text, &time) || time <= 0) {
    throw UsageError(option + " '" + text + "': expected a positive duration like 500ms");
  }
  return time;
}

Time NonNegativeDuration(const std::string& option, const std::string& text) {
  Time time = 0;
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

// --policy, --memory, --invoker-memory and the options of one platform only.
void ValidatePlatformChoice(const PlatformRunOptions& o, PlatformOptions* p) {
  SgsOptions& sgs = p->sgs;
  Platform platform;
  if (!ParseEnum(Platforms(), p->platform, &platform)) {
    throw UsageError("--platform '" + p->platform + "': expected " +
                     EnumNames(Platforms(), ", ", " or "));
  }
  if (!ParseEnum(QueuePolicies(), o.policy, &sgs.policy)) {
    throw UsageError("--policy '" + o.policy + "': expected " +
                     EnumNames(QueuePolicies(), ", ", " or "));
  }
  if (!ParseBytes(o.memory, &sgs.memory) || sgs.memory == 0) {
    throw UsageError("--memory '" + o.memory + "': expected a size like 1GiB");
  }
  const bool openwhisk = platform == Platform::kOpenWhisk;
  if (!o.invoker_memory.empty() &&
      (!ParseBytes(o.invoker_memory, &p->invoker_memory) || p->invoker_memory == 0)) {
    throw UsageError("--invoker-memory '" + o.invoker_memory + "': expected a size like 2GiB");
  }
  if (!o.invoker_memory.empty() && !openwhisk) {
    throw UsageError("--invoker-memory applies to --platform openwhisk only");
  }
  for (const auto& [option, text] : {std::pair{"--ow-pause-grace", o.ow_pause_grace},
                                     std::pair{"--ow-unpause-cost", o.ow_unpause_cost}}) {
    if (!text.empty() && !openwhisk) {
      throw UsageError(std::string(option) + " applies to --platform openwhisk only");
    }
  }
  if (!o.sparrow_probes.empty()) {
    if (platform != Platform::kSparrow) {
      throw UsageError("--sparrow-probes applies to --platform sparrow only");
    }
    char* end = nullptr;
    const long probes = std::strtol(o.sparrow_probes.c_str(), &end, 10);
    if (*end != '\0' || probes < 1 || probes > 8) {
      throw UsageError("--sparrow-probes '" + o.sparrow_probes + "': expected 1..8");
    }
    p->sparrow_probes = static_cast<int>(probes);
  }
  if (openwhisk) {
    // OpenWhisk 1.0.0's pause-grace and the lower published resume cost (docs/faas.md).
    sgs.pause_grace = NonNegativeDuration("--ow-pause-grace",
                                          o.ow_pause_grace.empty() ? "50ms" : o.ow_pause_grace);
    sgs.resume_cost = NonNegativeDuration("--ow-unpause-cost",
                                          o.ow_unpause_cost.empty() ? "15ms" : o.ow_unpause_cost);
  }
}

// --slots, --max-retries, the timeouts, restarts, HTTP bounds and the sandbox limits.
void ValidateLimits(const PlatformRunOptions& o, PlatformOptions* p) {
  SgsOptions& sgs = p->sgs;
  if (sgs.slots < 1 || sgs.slots > 64) throw UsageError("--slots must be in 1..64");
  if (o.max_retries < 0 || o.max_retries > 10) throw UsageError("--max-retries must be in 0..10");
  sgs.max_attempts = 1 + o.max_retries;
  sgs.keep_alive = PositiveDuration("--keep-alive", o.keep_alive);
  sgs.epoch = p->epoch = PositiveDuration("--epoch", o.epoch);
  sgs.request_timeout = PositiveDuration("--request-timeout", o.request_timeout);
  sgs.sandbox_ready_timeout = PositiveDuration("--sandbox-ready-timeout", o.ready_timeout);
  if (p->max_sgs_restarts < 0 || p->max_sgs_restarts > 1000) {
    throw UsageError("--sgs-restarts must be in 0..1000");
  }
  if (p->http_threads < 1 || p->http_threads > 1024) {
    throw UsageError("--http-threads must be in 1..1024");
  }
  sgs.http_threads = p->http_threads;
  RequireCountInRange("--max-connections", p->http.max_connections, 1, 65536);
  RequireOptionInRange("--http-request-timeout-s", p->http.request_timeout_s, 0.01, 86400);
  sgs.http = p->http;
  sgs.proactive = !o.no_proactive;
  if (!ParseBytes(o.sandbox_memory, &sgs.sandbox.memory_bytes)) {
    throw UsageError("--sandbox-memory '" + o.sandbox_memory + "': expected a size like 512MiB");
  }
}

// Every function's memory fits; the resize functions' archive is readable.
void ValidateAgainstCatalog(const PlatformRunOptions& o, const Catalog& catalog,
                            PlatformOptions* p) {
  bool needs_cifar = false;
  for (const Function& f : catalog.functions) {
    needs_cifar = needs_cifar || f.code.rfind("resize", 0) == 0;
    if (f.memory > p->sgs.memory) {
      throw UsageError("function '" + f.name + "' declares more memory than --memory " + o.memory);
    }
    if (p->invoker_memory > 0 && f.memory > p->invoker_memory) {
      throw UsageError("function '" + f.name + "' declares more memory than --invoker-memory " +
                       o.invoker_memory);
    }
  }
  if (!needs_cifar) return;
  const std::string cifar = o.cifar.empty() ? SharedDataPath(kCifarArchive) : o.cifar;
  if (::access(cifar.c_str(), R_OK) != 0) {
    throw UsageError("--cifar '" + cifar +
                     "': cannot read the CIFAR-10 JPEG archive the resize functions need");
  }
  p->sgs.cifar_archive = cifar;
}

}  // namespace

PlatformOptions PlatformRunOptions::Validate(const Catalog& catalog) const {
  PlatformOptions p = platform;
  ValidatePlatformChoice(*this, &p);
  ValidateLimits(*this, &p);
  ValidateAgainstCatalog(*this, catalog, &p);
  return p;
}

int RunPlatformCommand(const PlatformRunOptions& options) {
  const Catalog catalog = ReadDagFile(options.dags);
  PlatformOptions platform = options.Validate(catalog);
  platform.sgs.jigsaw_exe = SelfExe();
  return RunPlatform(catalog, std::move(platform));
}

}  // namespace jigsaw::faas
