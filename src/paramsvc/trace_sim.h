// Cluster-scale, trace-driven comparison of CPU cores reserved for aggregation: a dedicated
// parameter server per job versus the Parameter Service (`jigsaw paramsvc-sim`).
//
// Jobs come from a trace (Philly: type-less, typed like the JigSaw benchmark with
// AssignJobTypes over a throughput table) and run from their arrival for their traced duration;
// the GPU schedule is the trace's, only the CPUs of aggregation differ. A job with at least
// `min_workers` GPUs is a PS job with that many workers. Its aggregation demand, in cores, is
//   parameters(model) x workers x iterations/s (table, at its GPU count) x ns_per_float x 1e-9
// where ns_per_float is the aggregation CPU per float per worker per iteration as measured on
// the real service (bench/paramsvc.sh prints it). Dedicated: each PS job holds
// max(dedicated_cores, ceil(demand / (burst_fraction x (1 - headroom)))) cores from arrival to
// finish: a static PS is sized so that an iteration's aggregation, which arrives as one burst,
// takes at most burst_fraction of the iteration (1: sized for the average, no burst
// provisioning at all; the paper's sizing is not public). Service: the job's shards (cut as the
// coordinator cuts them) are placed first fit on aggregators of capacity 1 - headroom at their
// average demand (bursts of different jobs interleave); after each finish the least-loaded
// aggregator is drained into the others while its shards all fit (each move is a migration).
// The result is the cores reserved over time for both, their peaks and time averages.
#ifndef JIGSAW_PARAMSVC_TRACE_SIM_H_
#define JIGSAW_PARAMSVC_TRACE_SIM_H_

#include <cstdint>
#include <string>
#include <vector>

namespace jigsaw::paramsvc {

struct TraceSimOptions {
  std::string trace;
  std::string throughputs;
  std::string worker_type = "v100";
  uint64_t type_seed = 0;
  long long max_jobs = 0;  // 0: all
  int min_workers = 2;
  double ns_per_float = 1.0;
  double headroom = 0.2;
  double burst_fraction = 1;
  uint64_t max_shard_floats = uint64_t{1} << 20;
  double dedicated_cores = 1;
  double sample_s = 3600;
  bool quiet = false;
};

struct TraceSimSample {
  double t_s = 0;
  double dedicated_cores = 0;
  double service_cores = 0;
  double demand_cores = 0;
};

struct TraceSimResult {
  long long trace_jobs = 0;
  long long ps_jobs = 0;
  long long untyped_jobs = 0;  // no model, skipped
  long long shards = 0;
  long long migrations = 0;
  double span_s = 0;
  double peak_dedicated = 0, peak_service = 0, peak_demand = 0;
  double mean_dedicated = 0, mean_service = 0, mean_demand = 0;  // time averages
  std::vector<TraceSimSample> samples;
};

// Parameter count of a model of the throughput tables ("ResNet-50"); 0 when unknown.
double ModelParameters(const std::string& model);

TraceSimResult SimulateTrace(const TraceSimOptions& options);

}  // namespace jigsaw::paramsvc

#endif  // JIGSAW_PARAMSVC_TRACE_SIM_H_
