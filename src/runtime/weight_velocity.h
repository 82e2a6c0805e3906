// The convergence signal of `--spb adaptive` (spb/adaptive_plan.h): how far each block's weights
// moved over the last window, relative to their size.
//
// Snapshot() copies every block's weights; TakeVelocity() returns, per block,
// ||w_now - w_snapshot|| / ||w_snapshot|| (0 for a block whose weights are all zero) and takes a
// new snapshot. The weights are bitwise identical on every replica, so every rank would measure
// the same values; rank 0 measures and decides. Memory: one copy of the parameters.
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

  void Save(torch::serialize::OutputArchive& archive) const;
  void Load(torch::serialize::InputArchive& archive);

 private:
  torch::Tensor BlockWeights(int block);

  BlockModel model_;
  std::vector<torch::Tensor> snapshot_;
};

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_WEIGHT_VELOCITY_H_
