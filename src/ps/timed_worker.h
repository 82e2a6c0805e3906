// A torch-free synchronous-SGD worker whose compute is a timed wait (`jigsaw ps-timed-worker`).
//
// It stands in for a real worker where only the parameter traffic and the aggregation matter
// (the Parameter Service benchmark, TensorLights at the paper's scale): per iteration t it waits
// `compute_s` (optionally drawn per iteration from the given samples, e.g. the per-iteration
// compute times of a `jigsaw profile` or a ps-worker CSV), then pushes a gradient of
// `parameters` floats and pulls version t + 1. The gradient is a deterministic function of the
// pulled parameters, the seed, the rank and t:
//   g_i = decay * p_i + noise_rank[(i + 7919 t) mod n]
// with noise_rank fixed per (seed, rank), so two runs that see the same parameters push the same
// bits, and any lost or doubled update changes the final parameters. Worker 0 initializes the
// model (p_i from the seed) with kInit. A ps::JobRolledBack from the client sends the loop back
// to the iteration it names (the replayed iterations are counted). `before_iteration` (tests)
// runs before each iteration's compute. Per-iteration rows as RunPsWorker writes them go to `out`.
#ifndef JIGSAW_PS_TIMED_WORKER_H_
#define JIGSAW_PS_TIMED_WORKER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ps/parameter_client.h"

namespace jigsaw::ps {

struct TimedWorkerOptions {
  std::string job = "job";
  int rank = 0;
  int workers = 1;
  uint64_t parameters = 100'000;
  int iterations = 100;
  double compute_s = 0.01;
  std::vector<double> compute_samples_s;  // when non-empty: drawn per iteration (seeded)
  uint64_t seed = 1;
  float decay = 0.01f;
  double start_at_wall_s = 0;
  std::string out;
  bool quiet = false;
  std::function<void(int iteration)> before_iteration;
};

struct TimedWorkerResult {
  std::vector<float> final_parameters;
  uint64_t replayed_iterations = 0;
  int rollbacks = 0;
  double start_wall_s = 0;
  double end_wall_s = 0;
};

// Throws UsageError on bad options and whatever the client throws otherwise.
TimedWorkerResult RunTimedWorker(const TimedWorkerOptions& options, ParameterClient& client);

// The initial parameters worker 0 sends, and worker `rank`'s noise vector (for tests).
std::vector<float> TimedWorkerInitialParameters(uint64_t parameters, uint64_t seed);
std::vector<float> TimedWorkerNoise(uint64_t parameters, uint64_t seed, int rank);

}  // namespace jigsaw::ps

#endif  // JIGSAW_PS_TIMED_WORKER_H_
