// The options of the faas simulator: the engine's typed SimOptions (one platform, one run; see
// faas/simulator.h for the model) and SimRunOptions, what `jigsaw faas-sim` takes (src/cli binds
// each flag to one field; names below are the flags without "--").
//
// SimRunOptions::Validate() checks every field and throws UsageError naming the option (as its
// flag) and what was expected; it returns the typed run (SimRunSpec). Durations and sizes stay in
// SimRunOptions as spelled, since summary.json echoes them so. Checks that need the DAG catalog
// (a function larger than --worker-memory, a --kill of a worker that does not exist) are the
// engine's (faas::Simulate).
#ifndef JIGSAW_FAAS_SIM_OPTIONS_H_
#define JIGSAW_FAAS_SIM_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "faas/duration_table.h"
#include "faas/enum_table.h"
#include "faas/load_balancer.h"
#include "faas/proactive.h"
#include "faas/ready_queue.h"
#include "faas/workload.h"

namespace jigsaw::faas {

enum class Platform { kArchipelago, kOpenWhisk, kSparrow };
// archipelago, openwhisk, sparrow (the order of --platforms' default).
EnumTable<Platform> Platforms();
bool ParsePlatform(const std::string& text, Platform* platform);
const char* PlatformName(Platform platform);

struct WorkerKill {
  uint32_t worker = 0;
  Time at = 0;
};

// One simulated run of one platform (faas::Simulate).
struct SimOptions {
  Platform platform = Platform::kArchipelago;
  QueuePolicy queue_policy = QueuePolicy::kLeastSlack;
  bool proactive = true;    // archipelago: proactive allocation on (the ablation turns it off)
  bool demote_late = true;  // archipelago: ReadyQueue::DemoteLate before each dispatch
  // archipelago: the LB refuses requests above AdmissionWorkLimit (faas/admission.h), from the
  // DAGs' arrival rates and estimated work, recomputed every tick; refused ones fail at once.
  bool admission_control = false;
  // archipelago: the LB refuses a request that is hopeless at arrival on the SGS it routes it to:
  // its slack (deadline - now - the DAG's estimated critical path) is smaller than the estimated
  // work queued ahead of it there (ReadyQueue::WorkAhead of its entry task's key) per live core.
  // A lower bound on its wait (running tasks and later, more urgent arrivals are not counted), so
  // only requests that would miss anyway are refused; they fail at once.
  bool hopeless_admission = false;
  int cores = 1000;
  int cores_per_worker = 20;
  int workers_per_sgs = 5;
  uint64_t worker_memory = 64ULL << 30;
  uint64_t requests = 1'000'000;
  Time warmup = 10 * net::kSecond;  // requests arriving earlier are served, not measured
  Time tick = 100 * net::kMillisecond;
  int ticks_per_epoch = 10;  // load-balancer epoch
  Time keep_alive = 600 * net::kSecond;
  // openwhisk: OpenWhisk pauses a warm container idle for longer than its pause grace
  // (whisk.container-proxy.timeouts.pause-grace, 50 ms by default) and resumes it (runc resume /
  // docker unpause) before the next activation it takes. The worker knows only when its last idle
  // sandbox of a function was released, so a taken sandbox counts as paused when that release is
  // older than the grace (in the baseline's favour when it holds older ones too). Cost 0: off.
  Time ow_pause_grace = 50 * net::kMillisecond;
  Time ow_unpause_cost = 15 * net::kMillisecond;
  // openwhisk: prewarmed "stem cell" containers (OpenWhisk's runtimes.json stemCells: 2 of the
  // default nodejs kind with 256 MB per invoker). Each invoker starts with ow_stem_cells of them,
  // holding ow_stem_cell_memory each on its worker (not in its memory slots, as OpenWhisk's
  // prewarm pool is outside user-memory). Generated functions have no runtime kind, so the memory
  // decides: a cold start of a function whose memory equals ow_stem_cell_memory takes one and pays
  // only ow_stem_cell_init_share of its setup (the action's /init; the container already runs).
  // The invoker then starts a replacement in the background (memory, no core), ready
  // ow_stem_cell_create later; one that does not fit in free memory waits for a tick with room.
  // 0 stem cells: off.
  int ow_stem_cells = 2;
  uint64_t ow_stem_cell_memory = 256ULL << 20;
  double ow_stem_cell_init_share = 0.2;
  Time ow_stem_cell_create = 400 * net::kMillisecond;
  // openwhisk: each invoker's memory slots (OpenWhisk's whisk.container-pool.user-memory);
  // 0: the worker's sandbox memory (worker_memory).
  uint64_t invoker_memory = 0;
  Time burst_period = 10 * net::kSecond;
  double burst_sigma = 0.5;
  int sparrow_probes = 2;
  int max_retries = 2;
  uint64_t seed = 1;
  ProactiveOptions proactive_options;
  LoadBalancerOptions lb_options;
  std::vector<WorkerKill> kills;
  // Measured per-function duration distributions (faas/duration_table.h), indexed by FunctionId:
  // a function with an entry draws its run times from it, the others lognormal(duration,
  // duration_cv). Not owned; null: none.
  const std::vector<DurationQuantiles>* measured_durations = nullptr;
  // Constant per-task dispatch overhead (on the real platform: the SGS scheduler's hand-off to
  // the sandbox's thread): it holds the task's core before the run, and is not part of the
  // duration the estimator observes.
  Time dispatch_overhead = 0;
  // Called about once per simulated tick with (simulated seconds, requests arrived so far).
  std::function<void(double, uint64_t)> on_tick;
};

// The typed run SimRunOptions::Validate() returns.
struct SimRunSpec {
  // Every engine field the options set; platform, queue policy and the ablation switches are
  // set per run (SimVariants), the warm-up too when `auto_warmup`.
  SimOptions sim;
  WorkloadOptions workload;  // seed and cores copied from `sim`
  std::vector<Platform> platforms;
  std::vector<QueuePolicy> policies;
  bool auto_warmup = true;  // --warmup auto: AutoWarmup(requests, the catalog's request rate)
};

// `jigsaw faas-sim`'s options; defaults as documented in docs/faas.md.
struct SimRunOptions {
  std::string dags;          // "": a generated workload
  WorkloadOptions workload;  // load, apps (dags); the rest from the strings below
  bool load_given = false;   // --load was on the command line (with --dags: rescale rates)
  SimOptions sim;  // requests, cores, cores-per-worker, workers-per-sgs, seed, burst-sigma, ...
  std::string platforms = "archipelago,openwhisk,sparrow";
  std::string policies = "rlsf";
  std::string worker_memory = "64GiB";
  std::string warmup = "auto", keep_alive = "600s", setup_median = "500ms";
  std::string duration_median = "50ms", burst_period = "10s";
  std::vector<std::string> kills;  // WORKER@TIME
  std::string durations;           // measured duration quantiles (CSV); "": lognormal
  std::string dispatch_overhead = "0s";
  std::string ow_pause_grace = "50ms", ow_unpause_cost = "15ms";
  std::string invoker_memory;  // "": worker-memory
  std::string ow_stem_cell_memory = "256MiB";
  bool stem_cells_given = false;  // any --ow-stem-cell* option on the command line
  std::string duration_model = "azure";
  bool no_proactive_ablation = false;
  bool no_demote_ablation = false;
  bool admission_control = false;
  bool hopeless_admission = false;
  bool quiet = false;
  std::string out = "out/faas-sim";

  SimRunSpec Validate() const;
};

// The runs one faas-sim invocation makes, in output order: per platform, Archipelago once per
// policy and then each requested ablation with the first policy; a baseline once (FIFO).
std::vector<SimOptions> SimVariants(const SimRunSpec& spec, const SimRunOptions& options);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_SIM_OPTIONS_H_
