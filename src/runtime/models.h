// Models as a sequence of blocks, the unit of structured partial backpropagation.
//
// BlockModel owns L blocks (torch::nn::Sequential each, registered as "block<i>"); forward(x) runs
// them in order. MakeModel builds:
//   mlp     4 blocks: 3 x (Linear + ReLU) with 256, 128, 64 units, then Linear to the classes
//   lenet   5 blocks: conv5x5(6)+ReLU+pool, conv5x5(16)+ReLU+pool, FC 120, FC 84, FC classes
//   resnet  5 blocks: conv3x3(16) stem, residual blocks of 16, 32 (stride 2) and 64 (stride 2)
//           channels, global-average-pool + Linear head. No batch norm: it keeps per-worker
//           running statistics even in frozen blocks, which would make replicas diverge.
// Input is a float tensor N x C x H x W. Throws UsageError for an unknown name or a too-small
// input.
#ifndef JIGSAW_RUNTIME_MODELS_H_
#define JIGSAW_RUNTIME_MODELS_H_

#include <torch/torch.h>

#include <string>
#include <vector>

namespace jigsaw {

class BlockModelImpl : public torch::nn::Module {
 public:
  BlockModelImpl(std::vector<torch::nn::Sequential> blocks, std::vector<std::string> names);

  int num_blocks() const { return static_cast<int>(blocks_.size()); }
  torch::nn::Sequential& block(int i) { return blocks_[i]; }
  const std::string& block_name(int i) const { return names_[i]; }
  torch::Tensor forward(torch::Tensor x);

 private:
  std::vector<torch::nn::Sequential> blocks_;
  std::vector<std::string> names_;
};
TORCH_MODULE(BlockModel);

// UsageError naming --model unless `name` is one of the models below.
BlockModel MakeModel(const std::string& name, int channels, int height, int width, int classes);
// The same check without building the model (the launcher checks before starting workers).
void RequireKnownModel(const std::string& name);

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_MODELS_H_
