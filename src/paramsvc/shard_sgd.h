// Synchronous SGD over one shard (a contiguous slice of a job's parameters), deterministic.
//
// Like ps::SyncSgdAggregator (same update: g = sum / workers; v = momentum * v + g; p -= lr * v),
// but the gradients of a step are summed in rank order whatever order they arrive in, so the
// result does not depend on network timing: a shard that migrates or is replayed from a snapshot
// ends bit for bit where an undisturbed one does. Early arrivals are buffered (at most
// workers - 1 slices). The whole state (parameters, velocity, version) can be exported and
// restored between steps. Misuse throws std::invalid_argument with the reason, as the ps one.
// Not thread-safe.
#ifndef JIGSAW_PARAMSVC_SHARD_SGD_H_
#define JIGSAW_PARAMSVC_SHARD_SGD_H_

#include <cstdint>
#include <vector>

namespace jigsaw::paramsvc {

struct ShardState {
  bool initialized = false;
  uint64_t version = 0;
  std::vector<float> parameters;
  std::vector<float> velocity;
};

class ShardSgd {
 public:
  ShardSgd(int workers, float lr, float momentum);

  void SetParameters(std::vector<float> parameters);
  // Only between steps (pending() == 0); the velocity must match the parameters in size.
  void Restore(ShardState state);
  ShardState Export() const;

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

}  // namespace jigsaw::paramsvc

#endif  // JIGSAW_PARAMSVC_SHARD_SGD_H_
