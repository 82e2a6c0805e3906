// Synchronous-SGD aggregation, the arithmetic core of the parameter server and of the Parameter
// Service's shards. Torch-free.
//
// SyncSgdAggregator holds one job's (or one shard's) flat parameter vector and collects, for the
// current step t, exactly one gradient from each of `workers` workers. When the last one arrives
// it averages them (sum / workers), applies SGD with optional momentum (v = momentum * v + g;
// p -= lr * v; with momentum 0 this is p -= lr * g) and advances version() from t to t + 1. The
// gradients of a step are summed in rank order whatever order they arrive in (early arrivals are
// buffered, at most workers - 1 of them), so the result does not depend on network timing: a
// shard that migrates or is replayed from a snapshot ends bit for bit where an undisturbed one
// does. The whole state (parameters, velocity, version) can be exported and restored between
// steps. Until SetParameters (or Restore) the aggregator is uninitialized and pushes are
// rejected. Misuse throws std::invalid_argument with the reason: wrong gradient length, a rank
// out of range, a second push by the same rank for a step, or a push for a step other than the
// current one (workers are synchronous). Not thread-safe: the server serializes calls.
#ifndef JIGSAW_PS_AGGREGATOR_H_
#define JIGSAW_PS_AGGREGATOR_H_

#include <cstdint>
#include <vector>

namespace jigsaw::ps {

struct AggregatorState {
  bool initialized = false;
  uint64_t version = 0;
  std::vector<float> parameters;
  std::vector<float> velocity;
};

class SyncSgdAggregator {
 public:
  SyncSgdAggregator(int workers, float lr, float momentum);

  void SetParameters(std::vector<float> parameters);
  // Only between steps (pending() == 0); the velocity must match the parameters in size.
  void Restore(AggregatorState state);
  AggregatorState Export() const;

  bool initialized() const { return initialized_; }
  // True when this push completed step `step` (the update has been applied).
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
  int next_rank_ = 0;  // ranks below it are in sum_
  std::vector<bool> pushed_;
  std::vector<std::vector<float>> early_;  // per rank, until its turn in the sum
  std::vector<float> parameters_;
  std::vector<float> sum_;
  std::vector<float> velocity_;
};

}  // namespace jigsaw::ps

#endif  // JIGSAW_PS_AGGREGATOR_H_
