#include "faas/sim_options.h"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "core/error.h"
#include "core/text_input.h"
#include "net/units.h"

namespace jigsaw::faas {
namespace {

constexpr std::array<EnumName<Platform>, 3> kPlatforms{{
    {Platform::kArchipelago, "archipelago"},
    {Platform::kOpenWhisk, "openwhisk"},
    {Platform::kSparrow, "sparrow"},
}};

Time Duration(const std::string& option, const std::string& text, bool positive) {
  Time time = 0;
  if (!net::ParseDuration(text, &time) || time < 0 || (positive && time == 0)) {
    throw UsageError(option + " '" + text + "': expected a " + (positive ? "positive " : "") +
                     "duration like 10s or 500ms");
  }
  return time;
}

std::vector<std::string> List(const std::string& text) {
  std::vector<std::string> items;
  for (std::string_view field : SplitFields(text, ',')) {
    if (!Trim(field).empty()) items.emplace_back(Trim(field));
  }
  return items;
}

// --worker-memory, --keep-alive, --burst-period, --dispatch-overhead and the OpenWhisk-like
// options.
void ValidateCluster(const SimRunOptions& o, SimOptions* sim) {
  uint64_t memory = 0;
  if (!net::ParseBytes(o.worker_memory, &memory) || memory == 0) {
    throw UsageError("--worker-memory '" + o.worker_memory + "': expected a size like 16GiB");
  }
  sim->worker_memory = memory;
  sim->keep_alive = Duration("--keep-alive", o.keep_alive, true);
  sim->proactive_options.keep_window = sim->keep_alive;
  sim->burst_period = Duration("--burst-period", o.burst_period, true);
  sim->dispatch_overhead = Duration("--dispatch-overhead", o.dispatch_overhead, false);
  if (sim->dispatch_overhead > 10 * net::kSecond) {
    throw UsageError("--dispatch-overhead must be at most 10s");
  }
  sim->ow_pause_grace = Duration("--ow-pause-grace", o.ow_pause_grace, false);
  sim->ow_unpause_cost = Duration("--ow-unpause-cost", o.ow_unpause_cost, false);
  if (sim->ow_unpause_cost > 10 * net::kSecond) {
    throw UsageError("--ow-unpause-cost must be at most 10s");
  }
  if (!o.invoker_memory.empty() &&
      (!net::ParseBytes(o.invoker_memory, &sim->invoker_memory) || sim->invoker_memory == 0)) {
    throw UsageError("--invoker-memory '" + o.invoker_memory + "': expected a size like 1GiB");
  }
  if (sim->ow_stem_cells < 0 || sim->ow_stem_cells > 64) {
    throw UsageError("--ow-stem-cells must be 0..64");
  }
  if (!net::ParseBytes(o.ow_stem_cell_memory, &sim->ow_stem_cell_memory) ||
      sim->ow_stem_cell_memory == 0 ||
      sim->ow_stem_cell_memory * static_cast<uint64_t>(sim->ow_stem_cells) > sim->worker_memory) {
    throw UsageError("--ow-stem-cell-memory '" + o.ow_stem_cell_memory +
                     "': expected a size like 256MiB; all stem cells must fit in --worker-memory");
  }
  if (!(sim->ow_stem_cell_init_share >= 0 && sim->ow_stem_cell_init_share <= 1)) {
    throw UsageError("--ow-stem-cell-init-share must be in [0, 1]");
  }
}

// --duration-model, --setup-median, --duration-median, --load and --apps.
void ValidateWorkload(const SimRunOptions& o, WorkloadOptions* workload) {
  if (!ParseEnum(DurationModels(), o.duration_model, &workload->duration_model)) {
    throw UsageError("--duration-model '" + o.duration_model + "': expected " +
                     EnumNames(DurationModels(), ", ", " or "));
  }
  workload->setup_median = Duration("--setup-median", o.setup_median, true);
  workload->duration_median = Duration("--duration-median", o.duration_median, true);
  if (!(workload->load > 0 && workload->load <= 10)) {
    throw UsageError("--load must be in (0, 10]");
  }
}

// The counts: --cores, --cores-per-worker, --workers-per-sgs, --requests, --apps,
// --sparrow-probes, --burst-sigma and --max-retries.
void ValidateCounts(const SimOptions& sim, const WorkloadOptions& workload) {
  if (sim.cores < 1 || sim.cores > 1'000'000) throw UsageError("--cores must be 1..1000000");
  if (sim.cores_per_worker < 1 || sim.cores_per_worker > 1024) {
    throw UsageError("--cores-per-worker must be 1..1024");
  }
  if (sim.workers_per_sgs < 1) throw UsageError("--workers-per-sgs must be at least 1");
  if (sim.requests < 1 || sim.requests > 100'000'000) {
    throw UsageError("--requests must be 1..100000000");
  }
  if (workload.dags < 1 || workload.dags > 100'000) throw UsageError("--apps must be 1..100000");
  if (sim.sparrow_probes < 1 || sim.sparrow_probes > 8) {
    throw UsageError("--sparrow-probes must be 1..8");
  }
  if (!(sim.burst_sigma >= 0 && sim.burst_sigma <= 5)) {
    throw UsageError("--burst-sigma must be in [0, 5]");
  }
  if (sim.max_retries < 0 || sim.max_retries > 100) {
    throw UsageError("--max-retries must be 0..100");
  }
}

WorkerKill ParseKill(const std::string& kill) {
  const size_t at = kill.find('@');
  WorkerKill k;
  try {
    if (at == std::string::npos) throw std::invalid_argument("no @");
    size_t used = 0;
    k.worker = static_cast<uint32_t>(std::stoul(kill.substr(0, at), &used));
    if (used != at) throw std::invalid_argument("worker");
  } catch (const std::exception&) {
    throw UsageError("--kill '" + kill + "': expected WORKER@TIME like 3@20s");
  }
  k.at = Duration("--kill", kill.substr(at + 1), false);
  return k;
}

// --platforms and --policies, and the stem-cell options' platform.
void ValidateRuns(const SimRunOptions& o, SimRunSpec* spec) {
  for (const std::string& name : List(o.platforms)) {
    Platform p;
    if (!ParseEnum(Platforms(), name, &p)) {
      throw UsageError("--platforms: unknown '" + name + "' (" +
                       EnumNames(Platforms(), ", ", ", ") + ")");
    }
    spec->platforms.push_back(p);
  }
  for (const std::string& name : List(o.policies)) {
    QueuePolicy q;
    if (!ParseEnum(QueuePolicies(), name, &q)) {
      throw UsageError("--policies: unknown '" + name + "' (" +
                       EnumNames(QueuePolicies(), ", ", ", ") + ")");
    }
    spec->policies.push_back(q);
  }
  if (spec->platforms.empty() || spec->policies.empty()) {
    throw UsageError("--platforms and --policies need at least one entry");
  }
  if (o.stem_cells_given && std::find(spec->platforms.begin(), spec->platforms.end(),
                                      Platform::kOpenWhisk) == spec->platforms.end()) {
    throw UsageError(
        "--ow-stem-cells, --ow-stem-cell-memory and --ow-stem-cell-init-share apply "
        "to the openwhisk platform only");
  }
}

}  // namespace

EnumTable<Platform> Platforms() { return kPlatforms; }

bool ParsePlatform(const std::string& text, Platform* platform) {
  return ParseEnum(Platforms(), text, platform);
}

const char* PlatformName(Platform platform) { return EnumNameOf(Platforms(), platform); }

SimRunSpec SimRunOptions::Validate() const {
  SimRunSpec spec;
  spec.sim = sim;
  spec.workload = workload;
  ValidateCluster(*this, &spec.sim);
  ValidateWorkload(*this, &spec.workload);
  ValidateCounts(spec.sim, spec.workload);
  for (const std::string& kill : kills) spec.sim.kills.push_back(ParseKill(kill));
  ValidateRuns(*this, &spec);
  spec.auto_warmup = warmup == "auto";
  if (!spec.auto_warmup) spec.sim.warmup = Duration("--warmup", warmup, false);
  spec.workload.cores = spec.sim.cores;
  spec.workload.seed = spec.sim.seed;
  return spec;
}

std::vector<SimOptions> SimVariants(const SimRunSpec& spec, const SimRunOptions& options) {
  std::vector<SimOptions> runs;
  auto add = [&](Platform p, QueuePolicy q, bool proactive, bool demote_late = true,
                 bool admission_control = false, bool hopeless_admission = false) {
    SimOptions run = spec.sim;
    run.platform = p;
    run.queue_policy = q;
    run.proactive = proactive;
    run.demote_late = demote_late;
    run.admission_control = admission_control;
    run.hopeless_admission = hopeless_admission;
    runs.push_back(std::move(run));
  };
  for (Platform p : spec.platforms) {
    if (p != Platform::kArchipelago) {
      add(p, QueuePolicy::kFifo, false);
      continue;
    }
    const QueuePolicy first = spec.policies.front();
    for (QueuePolicy q : spec.policies) add(p, q, true);
    if (options.no_proactive_ablation) add(p, first, false);
    if (options.no_demote_ablation) add(p, first, true, false);
    if (options.admission_control) add(p, first, true, true, true);
    if (options.hopeless_admission) add(p, first, true, true, false, true);
  }
  return runs;
}

}  // namespace jigsaw::faas
