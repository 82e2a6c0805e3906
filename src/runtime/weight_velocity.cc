#include "runtime/weight_velocity.h"

#include <algorithm>
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
  path_.assign(model_->num_blocks(), 0.0);
}

void WeightVelocity::AddPath(const std::vector<double>& step_lengths) {
  if (path_.size() != step_lengths.size()) path_.assign(step_lengths.size(), 0.0);
  for (size_t b = 0; b < step_lengths.size(); ++b) path_[b] += step_lengths[b];
}

std::vector<double> WeightVelocity::TakeVelocity() {
  std::vector<double> velocity(model_->num_blocks(), 0.0);
  coherence_.assign(model_->num_blocks(), 1.0);
  if (has_snapshot()) {
    torch::NoGradGuard no_grad;
    for (int b = 0; b < model_->num_blocks(); ++b) {
      const double size = snapshot_[b].norm().item<double>();
      const double moved = (BlockWeights(b) - snapshot_[b]).norm().item<double>();
      if (size > 0) velocity[b] = moved / size;
      const double path = b < static_cast<int>(path_.size()) ? path_[b] : 0.0;
      if (path > 0) coherence_[b] = std::min(1.0, moved / path);
    }
  }
  Snapshot();
  return velocity;
}

void WeightVelocity::Save(torch::serialize::OutputArchive& archive) const {
  for (size_t b = 0; b < snapshot_.size(); ++b) {
    archive.write("velocity.snapshot." + std::to_string(b), snapshot_[b]);
  }
  if (!path_.empty()) archive.write("velocity.path", torch::tensor(path_, torch::kFloat64));
}

void WeightVelocity::Load(torch::serialize::InputArchive& archive) {
  snapshot_.clear();
  for (int b = 0; b < model_->num_blocks(); ++b) {
    torch::Tensor t;
    if (!archive.try_read("velocity.snapshot." + std::to_string(b), t)) {
      snapshot_.clear();
      return;
    }
    snapshot_.push_back(t.to(BlockWeights(b).device()));  // the archive loads on the CPU
  }
  path_.assign(model_->num_blocks(), 0.0);
  torch::Tensor path;
  if (archive.try_read("velocity.path", path) && path.numel() == model_->num_blocks()) {
    for (int64_t b = 0; b < path.numel(); ++b) path_[b] = path[b].item<double>();
  }
}

}  // namespace jigsaw
