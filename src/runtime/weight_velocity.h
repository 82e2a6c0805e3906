// The convergence signal of `--spb adaptive` (spb/adaptive_plan.h): how far each block's weights
// moved over the last window, relative to their size.
//
// Snapshot() copies every block's weights; TakeVelocity() returns, per block,
// ||w_now - w_snapshot|| / ||w_snapshot|| (0 for a block whose weights are all zero) and takes a
// new snapshot. The weights are bitwise identical on every replica, so every rank would measure
// the same values; rank 0 measures and decides. Memory: one copy of the parameters.
//
// Coherence: AddPath adds each block's step length of one iteration; TakeVelocity also sets,
// per block, ||w_now - w_snapshot|| / (sum of the step lengths since the snapshot): 1 when every
// step of the window went the same way, about 1/sqrt(steps) when the steps were a random walk
// around a settled point (a converged block), 1 for a block that did not move.
#ifndef JIGSAW_RUNTIME_WEIGHT_VELOCITY_H_
#define JIGSAW_RUNTIME_WEIGHT_VELOCITY_H_

#include <torch/torch.h>

#include <vector>

#include "runtime/models.h"

namespace jigsaw {

class WeightVelocity {
 public:
  explicit WeightVelocity(BlockModel model) : model_(model) {}

  bool has_snapshot() const { return !snapshot_.empty(); }
  void Snapshot();
  std::vector<double> TakeVelocity();
  void AddPath(const std::vector<double>& step_lengths);
  // Per block, of the window the last TakeVelocity closed.
  const std::vector<double>& coherence() const { return coherence_; }

  void Save(torch::serialize::OutputArchive& archive) const;
  void Load(torch::serialize::InputArchive& archive);

 private:
  torch::Tensor BlockWeights(int block);

  BlockModel model_;
  std::vector<torch::Tensor> snapshot_;
  std::vector<double> path_;
  std::vector<double> coherence_;
};

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_WEIGHT_VELOCITY_H_
