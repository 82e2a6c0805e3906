// A synchronous-SGD worker of a parameter-server job (`jigsaw ps-worker`), on LibTorch.
//
// RunPsWorker builds the model (runtime/models.h; the same seed on every worker, but only
// worker 0's initial parameters are used: it sends them with kInit and every worker starts from
// Pull(0)), then for each iteration t: takes its batch of the seeded synthetic set (worker k,
// iteration t: samples [(t*W + k)*B, (t*W + k + 1)*B) modulo the set size, so the job's global
// batch is W x B), computes the cross-entropy gradient, pushes it, pulls version t + 1 and loads
// it into the model. Per-iteration rows go to `out` (CSV, written atomically at the end):
//   job,rank,iteration,start_wall_s,compute_s,push_s,pull_s,end_wall_s,loss
// where end_wall_s is when the updated parameters of iteration t had fully arrived (wall-clock
// seconds since the epoch; comparable across network namespaces). Returns the mean loss of the
// first and last 10% of iterations and, for worker 0, the test accuracy of the final model.
#ifndef JIGSAW_PS_WORKER_H_
#define JIGSAW_PS_WORKER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "ps/parameter_client.h"

namespace jigsaw::ps {

struct PsWorkerOptions {
  std::string job = "job";
  std::string server = "127.0.0.1:5000";
  int rank = 0;
  int workers = 1;
  std::string model = "mlp";
  int synthetic_size = 28;
  int synthetic_train = 4096;
  int synthetic_test = 512;
  int iterations = 100;
  int batch = 32;
  uint64_t seed = 1;
  int threads = 1;
  double timeout_s = 120;
  std::string token;       // the job's secret, 32 hex digits; or
  std::string token_file;  // a file holding it (written by jigsaw ps --token-file)
  // Wall-clock second (since the epoch) to start training at, after the model is built and
  // before connecting; 0: at once. Lets an experiment start several jobs together.
  double start_at_wall_s = 0;
  std::string out;
  bool quiet = false;
  // Fault injection for tests and bench/hostile_peers.sh: at this iteration the worker pushes a
  // gradient whose first element is NaN (a diverged or malicious worker); -1: never.
  int poison_at_iter = -1;
};

struct PsWorkerResult {
  double first_loss = 0;      // mean over the first 10% of iterations (at least one)
  double last_loss = 0;       // mean over the last 10%
  double test_accuracy = -1;  // worker 0 only
  size_t parameters = 0;
};

// Connects to a dedicated server (options.server) with PsClient.
PsWorkerResult RunPsWorker(const PsWorkerOptions& options);
// Gets its client from `connect` instead (the Parameter Service's, for --service); a
// JobRolledBack from the client sends training back to the iteration it names.
using ParameterClientFactory = std::function<std::unique_ptr<ParameterClient>()>;
PsWorkerResult RunPsWorker(const PsWorkerOptions& options, const ParameterClientFactory& connect);

}  // namespace jigsaw::ps

#endif  // JIGSAW_PS_WORKER_H_
