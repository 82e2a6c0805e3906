#include "runtime/weight_velocity.h"

#include <string>

namespace jigsaw {

torch::Tensor WeightVelocity::BlockWeights(int block) {
  std::vector<torch::Tensor> flat;
  for (const torch::Tensor& p : model_->block(block)->parameters()) {
    flat.push_back(p.detach().reshape({-1}));
  }
  return flat.empty() ? torch::zeros({0}) : torch::cat(flat);
}

void WeightVelocity::Snapshot() {
  torch::NoGradGuard no_grad;
  snapshot_.clear();
  for (int b = 0; b < model_->num_blocks(); ++b) snapshot_.push_back(BlockWeights(b).clone());
}

std::vector<double> WeightVelocity::TakeVelocity() {
  std::vector<double> velocity(model_->num_blocks(), 0.0);
  if (has_snapshot()) {
    torch::NoGradGuard no_grad;
    for (int b = 0; b < model_->num_blocks(); ++b) {
      const double size = snapshot_[b].norm().item<double>();
      if (size > 0) velocity[b] = (BlockWeights(b) - snapshot_[b]).norm().item<double>() / size;
    }
  }
  Snapshot();
  return velocity;
}

void WeightVelocity::Save(torch::serialize::OutputArchive& archive) const {
  for (size_t b = 0; b < snapshot_.size(); ++b) {
    archive.write("velocity.snapshot." + std::to_string(b), snapshot_[b]);
  }
}

void WeightVelocity::Load(torch::serialize::InputArchive& archive) {
  snapshot_.clear();
  for (int b = 0; b < model_->num_blocks(); ++b) {
    torch::Tensor t;
    if (!archive.try_read("velocity.snapshot." + std::to_string(b), t)) {
      snapshot_.clear();
      return;
    }
    snapshot_.push_back(t);
  }
}

}  // namespace jigsaw
