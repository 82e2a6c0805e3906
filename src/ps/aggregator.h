// Synchronous-SGD aggregation, the arithmetic core of the parameter server. Torch-free.
//
// SyncSgdAggregator holds one job's flat parameter vector and collects, for the current step t,
// exactly one gradient from each of `workers` workers. When the last one arrives it averages them
// (sum / workers), applies SGD with optional momentum (v = momentum * v + g; p -= lr * v; with
// momentum 0 this is p -= lr * g) and advances version() from t to t + 1. Until
// SetParameters is called the version is "uninitialized" (initialized() false) and pushes are
// rejected. Misuse throws std::invalid_argument with the reason: wrong gradient length, a rank out
// of range, a second push by the same rank for a step, or a push for a step other than the
// current one (workers are synchronous, so nobody may run ahead). Not thread-safe: the server
// serializes calls.
#ifndef JIGSAW_PS_AGGREGATOR_H_
#define JIGSAW_PS_AGGREGATOR_H_

#include <cstdint>
#include <vector>

namespace jigsaw::ps {

class SyncSgdAggregator {
 public:
  SyncSgdAggregator(int workers, float lr, float momentum);

  void SetParameters(std::vector<float> parameters);
  bool initialized() const { return initialized_; }
  // Returns true when this push completed step `step` (the update has been applied).
  bool Push(int rank, uint64_t step, const std::vector<float>& gradient);

  uint64_t version() const { return version_; }
  int pending() const { return received_; }
  const std::vector<float>& parameters() const { return parameters_; }

 private:
  int workers_;
  float lr_;
  float momentum_;
  bool initialized_ = false;
  uint64_t version_ = 0;
  int received_ = 0;
  std::vector<bool> pushed_;
  std::vector<float> parameters_;
  std::vector<float> sum_;
  std::vector<float> velocity_;
};

}  // namespace jigsaw::ps

#endif  // JIGSAW_PS_AGGREGATOR_H_
