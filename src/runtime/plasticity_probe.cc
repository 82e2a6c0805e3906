#include "runtime/plasticity_probe.h"

#include <string>

namespace jigsaw {
namespace {

class EvalModeScope {
 public:
  explicit EvalModeScope(BlockModel& model) : model_(model), was_training_(model->is_training()) {
    model_->eval();
  }
  ~EvalModeScope() { model_->train(was_training_); }

 private:
  BlockModel& model_;
  bool was_training_;
};

}  // namespace

void PlasticityProbe::Record(BlockModel& model) {
  torch::NoGradGuard no_grad;
  EvalModeScope eval(model);
  inputs_.clear();
  outputs_.clear();
  torch::Tensor x = batch_;
  for (int b = 0; b < model->num_blocks(); ++b) {
    inputs_.push_back(x);
    x = model->block(b)->forward(x);
    outputs_.push_back(x);
  }
}

std::vector<double> PlasticityProbe::MeasureAndRecord(BlockModel& model, int first) {
  std::vector<double> change(model->num_blocks(), 0.0);
  {
    torch::NoGradGuard no_grad;
    EvalModeScope eval(model);
    for (int b = first; b < model->num_blocks() && recorded(); ++b) {
      torch::Tensor now = model->block(b)->forward(inputs_[b]);
      const double base = outputs_[b].norm().item<double>();
      change[b] = base > 0 ? (now - outputs_[b]).norm().item<double>() / base : 0.0;
    }
  }
  Record(model);
  return change;
}

void PlasticityProbe::Save(torch::serialize::OutputArchive& archive) const {
  for (size_t b = 0; b < inputs_.size(); ++b) {
    archive.write("probe.in." + std::to_string(b), inputs_[b]);
    archive.write("probe.out." + std::to_string(b), outputs_[b]);
  }
}

void PlasticityProbe::Load(torch::serialize::InputArchive& archive, int blocks) {
  inputs_.clear();
  outputs_.clear();
  for (int b = 0; b < blocks; ++b) {
    torch::Tensor in;
    torch::Tensor out;
    if (!archive.try_read("probe.in." + std::to_string(b), in) ||
        !archive.try_read("probe.out." + std::to_string(b), out)) {
      inputs_.clear();
      outputs_.clear();
      return;
    }
    inputs_.push_back(in);
    outputs_.push_back(out);
  }
}

}  // namespace jigsaw
