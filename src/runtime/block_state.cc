#include "runtime/block_state.h"

#include <cmath>
#include <string>

namespace jigsaw {

BlockTrainingState::BlockTrainingState(BlockModel model, double momentum, double weight_decay)
    : model_(model), momentum_(momentum), weight_decay_(weight_decay) {
  for (int b = 0; b < model_->num_blocks(); ++b) {
    parameters_.push_back(model_->block(b)->parameters());
    int64_t elements = 0;
    for (const torch::Tensor& p : parameters_.back()) elements += p.numel();
    elements_.push_back(elements);
  }
  gradients_.resize(parameters_.size());
  momenta_.resize(parameters_.size());
}

void BlockTrainingState::SetActiveBlocks(const std::vector<bool>& active) {
  for (int b = 0; b < blocks(); ++b) {
    if (active[b] && !gradients_[b].defined() && elements_[b] > 0) {
      gradients_[b] = torch::zeros({elements_[b]}, parameters_[b].front().options());
      int64_t offset = 0;
      for (torch::Tensor& p : parameters_[b]) {
        p.mutable_grad() = gradients_[b].narrow(0, offset, p.numel()).view_as(p);
        offset += p.numel();
      }
    } else if (!active[b] && gradients_[b].defined()) {
      for (torch::Tensor& p : parameters_[b]) p.mutable_grad().reset();
      gradients_[b] = torch::Tensor();
      momenta_[b].clear();
    }
  }
}

void BlockTrainingState::ZeroGradients() {
  for (torch::Tensor& g : gradients_) {
    if (g.defined()) g.zero_();
  }
}

void BlockTrainingState::Step(double lr, const std::vector<bool>& update,
                              const std::vector<double>& lr_factor,
                              std::vector<double>* step_lengths) {
  torch::NoGradGuard no_grad;
  if (step_lengths != nullptr) step_lengths->assign(blocks(), 0.0);
  for (int b = 0; b < blocks(); ++b) {
    if (!update[b] || !gradients_[b].defined()) continue;
    double squared = 0;
    const double block_lr = lr * lr_factor[b];
    std::vector<torch::Tensor>& momenta = momenta_[b];
    const bool first = momenta.empty();
    for (size_t i = 0; i < parameters_[b].size(); ++i) {
      torch::Tensor& p = parameters_[b][i];
      torch::Tensor d = p.grad();
      if (weight_decay_ != 0) d = d.add(p, weight_decay_);
      if (momentum_ != 0) {
        if (first) {
          momenta.push_back(d.clone());
        } else {
          momenta[i].mul_(momentum_).add_(d);
        }
        d = momenta[i];
      }
      p.add_(d, -block_lr);
      if (step_lengths != nullptr) squared += d.square().sum().item<double>();
    }
    if (step_lengths != nullptr) (*step_lengths)[b] = std::abs(block_lr) * std::sqrt(squared);
  }
}

int64_t BlockTrainingState::StateBytes() const {
  int64_t bytes = 0;
  for (int b = 0; b < blocks(); ++b) {
    if (gradients_[b].defined()) bytes += elements_[b] * 4;
    for (const torch::Tensor& m : momenta_[b]) bytes += m.numel() * 4;
  }
  return bytes;
}

void BlockTrainingState::Save(torch::serialize::OutputArchive& archive) const {
  for (int b = 0; b < blocks(); ++b) {
    for (size_t i = 0; i < momenta_[b].size(); ++i) {
      archive.write("m." + std::to_string(b) + "." + std::to_string(i), momenta_[b][i]);
    }
  }
}

void BlockTrainingState::Load(torch::serialize::InputArchive& archive) {
  for (int b = 0; b < blocks(); ++b) {
    momenta_[b].clear();
    for (size_t i = 0; i < parameters_[b].size(); ++i) {
      torch::Tensor m;
      if (!archive.try_read("m." + std::to_string(b) + "." + std::to_string(i), m)) break;
      momenta_[b].push_back(m.to(parameters_[b][i].device()));
    }
    if (momenta_[b].size() != parameters_[b].size()) momenta_[b].clear();
  }
}

}  // namespace jigsaw
