// Per-block training state of one replica, so that what a plan does not train costs no memory.
//
// Every block that anyone trains in the current phase ("active") has one flat float32 gradient
// buffer; its parameters' .grad are views into it, so backward accumulates into it in place and
// the gradient exchange reads and overwrites it without copies. A block no worker trains holds no
// gradient buffer and no momentum (SetActiveBlocks frees them; re-activation starts momentum from
// scratch, as PyTorch's SGD does on its first step).
//
// Step is SGD with momentum and weight decay exactly as torch::optim::SGD computes it
// (d = g + wd * w; m = g-first-step or mu * m + d; w -= lr * m), applied only to the blocks in
// `update`, each with its own learning-rate factor. With `step_lengths` it also returns, per
// block, the Euclidean length of the step it took (0 for blocks it did not update).
#ifndef JIGSAW_RUNTIME_BLOCK_STATE_H_
#define JIGSAW_RUNTIME_BLOCK_STATE_H_

#include <torch/torch.h>

#include <vector>

#include "runtime/models.h"

namespace jigsaw {

class BlockTrainingState {
 public:
  BlockTrainingState(BlockModel model, double momentum, double weight_decay);

  int blocks() const { return static_cast<int>(gradients_.size()); }
  void SetActiveBlocks(const std::vector<bool>& active);
  bool active(int block) const { return gradients_[block].defined(); }
  // The flat gradient of an active block (parameter order of the block's parameters()).
  torch::Tensor gradient(int block) const { return gradients_[block]; }
  int64_t elements(int block) const { return elements_[block]; }
  void ZeroGradients();

  void Step(double lr, const std::vector<bool>& update, const std::vector<double>& lr_factor,
            std::vector<double>* step_lengths = nullptr);

  // Gradient and momentum bytes held now.
  int64_t StateBytes() const;

  void Save(torch::serialize::OutputArchive& archive) const;
  void Load(torch::serialize::InputArchive& archive);

 private:
  BlockModel model_;
  double momentum_;
  double weight_decay_;
  std::vector<std::vector<torch::Tensor>> parameters_;
  std::vector<int64_t> elements_;
  std::vector<torch::Tensor> gradients_;
  std::vector<std::vector<torch::Tensor>> momenta_;
};

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_BLOCK_STATE_H_
