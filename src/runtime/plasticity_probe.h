// The convergence signal of `--spb adaptive` (spb/adaptive_plan.h): how much each block's function
// changed since the last probe, measured on a fixed probe batch.
//
// Record() runs the probe batch through the model (eval mode, no autograd) and keeps every block's
// input and output. MeasureAndRecord(first) then returns, for every block b >= first,
// ||block_b(kept input_b) - kept output_b|| / ||kept output_b|| under the current weights (the
// block's own change, isolated from the blocks below it), 0 for the blocks below `first`, and
// records anew. The model's train/eval mode is restored. Holds 2 x L probe activations.
#ifndef JIGSAW_RUNTIME_PLASTICITY_PROBE_H_
#define JIGSAW_RUNTIME_PLASTICITY_PROBE_H_

#include <torch/torch.h>

#include <vector>

#include "runtime/models.h"

namespace jigsaw {

class PlasticityProbe {
 public:
  explicit PlasticityProbe(torch::Tensor batch) : batch_(std::move(batch)) {}

  bool recorded() const { return !inputs_.empty(); }
  void Record(BlockModel& model);
  std::vector<double> MeasureAndRecord(BlockModel& model, int first);

  void Save(torch::serialize::OutputArchive& archive) const;
  void Load(torch::serialize::InputArchive& archive, int blocks);

 private:
  torch::Tensor batch_;
  std::vector<torch::Tensor> inputs_;
  std::vector<torch::Tensor> outputs_;
};

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_PLASTICITY_PROBE_H_
