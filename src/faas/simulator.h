// `jigsaw faas-sim`'s engine: one platform (Archipelago or a baseline) serving a Catalog's DAGs on
// a simulated cluster, on the shared event core (net::EventQueue, picosecond time).
//
// Cluster: cores / cores_per_worker workers, each with worker_memory for sandboxes. A function
// invocation needs a core and a sandbox of its function on the same worker; without an idle one it
// cold-starts: it creates a sandbox and holds its core for setup + execution. Platforms:
//  - archipelago: workers_per_sgs workers form a pool with one SGS; the LoadBalancer routes each
//    request to one of its DAG's SGSs and scales their number; the SGS keeps ready functions in a
//    ReadyQueue (lsf, edf or fifo) and places the head on a pool worker with a free core and an
//    idle sandbox, else the one with the most free memory (a cold start); every tick the
//    ProactiveAllocator sets per-function warm-sandbox targets from the SGS's per-DAG arrival rates
//    and when a request arrives the DAG's later functions get a sandbox if the pool has none. A
//    ready function whose pool has busy or warming sandboxes of it waits for one (parks) instead
//    of cold-starting when its estimated duration is below the setup, at most one waiter per such
//    sandbox. Before each dispatch, tasks that can no longer meet their deadline go behind the
//    feasible ones (ReadyQueue::DemoteLate; demote_late).
//  - openwhisk: OpenWhiskBalancer (ShardingContainerPoolBalancer) places each invocation: the
//    function's home invoker (hash), or the next along its step, whose memory slots (the
//    worker's memory) hold the function's memory until it finishes; none: a random live one.
//    Invokers take work beyond their cores while memory has room; per-invoker FIFO; reactive
//    cold starts; idle sandboxes live keep_alive after their last use. A warm sandbox idle longer
//    than ow_pause_grace is paused (OpenWhisk's ContainerProxy); an invocation that takes it
//    first resumes it, holding its core for ow_unpause_cost before the run. A cold start of a
//    function with the stem cells' memory takes a prewarmed one and pays only its init share.
//  - sparrow: each ready function probes `sparrow_probes` random live workers and leaves a
//    reservation at each; the first to have a free core runs it (late binding); reactive cold
//    starts and keep-alive as openwhisk.
// Faults: a killed worker's running functions are retried (up to max_retries per request) or
// their request fails explicitly; queued work moves to live workers. Every request generated ends
// completed or failed (SimResult::lost is always 0 and is checked).
#ifndef JIGSAW_FAAS_SIMULATOR_H_
#define JIGSAW_FAAS_SIMULATOR_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "faas/dag.h"
#include "faas/sim_options.h"

namespace jigsaw::faas {

// Per DAG, over its measured requests: how many missed their deadline and, for those, where
// their time went (summed over their functions: waiting ready for a core or a sandbox, parked
// included; cold-start setup; the rest is execution and waiting for predecessors).
struct DagOutcome {
  uint64_t measured = 0;
  uint64_t missed = 0;  // late or failed
  double missed_latency_s = 0, missed_wait_s = 0, missed_cold_s = 0;
  uint64_t missed_cold_starts = 0;
};

// Per DAG and burst period (by arrival time): how much work arrived, how its measured requests
// fared, and how many SGSs the load balancer gave the DAG (where and when misses and the latency
// tail come from).
struct DagPeriodOutcome {
  uint32_t dag = 0;
  uint32_t period = 0;
  uint64_t arrived = 0;  // warm-up included
  uint64_t measured = 0;
  uint64_t missed = 0;       // late or failed
  uint64_t above_p99 = 0;    // completed measured requests slower than the run's p99
  double missed_wait_s = 0;  // summed over the missed requests (as DagOutcome)
  uint32_t max_sgs = 0;      // archipelago: most SGSs the DAG had at an epoch end in the period
};

// Where a run's p99 comes from: the completed measured requests slower than the p99 (the tail), and
// what their latency is made of, summed over their functions: waiting ready (for a core or a
// sandbox), cold-start setup, resuming a paused sandbox (openwhisk), and the request's own
// execution floor (its DAG's longest path of the run times it drew: its latency with no waiting,
// setup or resume; the rest is waiting for predecessors beyond that path).
struct TailBreakdown {
  uint64_t requests = 0;
  double latency_ms = 0, wait_ms = 0, setup_ms = 0, unpause_ms = 0, floor_ms = 0;  // means
  uint64_t cold_starts = 0;  // summed over the tail's requests
  uint32_t dags = 0;         // distinct DAGs among them
  uint32_t top_dag = 0;      // the DAG with the most of them
  double top_dag_share = 0;  // its share of the tail
};

struct SimResult {
  std::string platform;
  std::string policy;
  uint64_t requests = 0;  // generated
  uint64_t completed = 0;
  uint64_t failed = 0;  // explicitly, after max_retries
  uint64_t lost = 0;    // generated - completed - failed at the end; always 0
  uint64_t measured = 0;
  uint64_t measured_met = 0;
  double deadline_met_pct = 0;
  double p50_ms = 0, p99_ms = 0, p999_ms = 0, mean_ms = 0, max_ms = 0;
  // (fraction, latency ms) of the measured completed requests: every percent, then every tenth of
  // a percent above 99 (nearest rank); empty when none completed. For the report's CDFs.
  std::vector<std::pair<double, double>> latency_quantiles_ms;
  uint64_t invocations = 0;  // measured requests' function runs
  uint64_t cold_starts = 0;
  double cold_start_pct = 0;
  uint64_t unpauses = 0;  // openwhisk: measured requests' runs that resumed a paused sandbox
  // openwhisk: measured requests' cold starts that took a stem cell (also in cold_starts).
  uint64_t prewarm_starts = 0;
  // p99 over the measured completed requests of their execution floor (TailBreakdown): what the
  // p99 would be with no waiting, setup or resume at all.
  double p99_floor_ms = 0;
  TailBreakdown tail;
  double sandbox_memory_avg_gb = 0, sandbox_memory_peak_gb = 0;
  uint64_t sandboxes_created = 0, sandboxes_evicted = 0;
  uint64_t retries = 0;
  uint64_t refused = 0;  // by admission control (also counted in failed)
  uint64_t scale_outs = 0, scale_ins = 0;
  uint64_t max_sgs_per_dag = 0;
  std::vector<DagOutcome> per_dag;  // indexed by DagId
  // Measured requests and deadline misses by arrival time, per burst period (when the misses
  // happen: in bursts beyond capacity, or spread out).
  std::vector<uint64_t> measured_by_period, missed_by_period;
  std::vector<DagPeriodOutcome> per_dag_period;  // entries with arrivals, by period then DAG
  uint64_t events = 0;
  double simulated_s = 0;
  double wall_s = 0;
};

// The default warm-up (`jigsaw faas-sim --warmup auto`): a tenth of the run's expected arrival
// span (requests / request rate), at most 10 s. A short run still measures about 90 % of its
// requests; a long one (1 million requests at 1,000 cores) keeps the 10 s of the published runs.
Time AutoWarmup(uint64_t requests, double request_rate_per_s);

SimResult Simulate(const Catalog& catalog, const SimOptions& options);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_SIMULATOR_H_
