// Per-block profiles of a model (the JSON that `jigsaw profile` writes and the simulator reads;
// format in docs/runtime.md) and the cost model that predicts an SPB iteration from them.
//
// Prediction for a worker of depth d at batch size b (profile measured at batch p; times scale
// linearly by b/p, a first-order approximation):
//   backward_s = backward_weight_s of block L-d + sum over blocks L-d+1 .. L-1 of backward_s
// (the lowest trainable block needs no input gradient: its input is a frozen activation or the
// data; the others need both, measured together so shared work such as a ReLU's backward is
// counted once), and
// bytes sent = the EstimatedBytesSent of the iteration's collectives over the blocks'
// parameter bytes. Torch-free.
#ifndef JIGSAW_SPB_COST_MODEL_H_
#define JIGSAW_SPB_COST_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/output.h"
#include "spb/spb_plan.h"

namespace jigsaw {

struct BlockProfile {
  std::string name;
  double forward_s = 0;
  double backward_s = 0;         // weight and input gradients together
  double backward_weight_s = 0;  // parameter gradients only
  double backward_input_s = 0;   // input gradient only
  int64_t activation_bytes = 0;  // the block's output for the profiled batch
  int64_t parameter_bytes = 0;
};

struct ModelProfile {
  std::string model;
  int batch = 0;
  std::vector<int> input_shape;  // C, H, W
  int threads = 1;
  std::vector<BlockProfile> blocks;
};

Json ProfileToJson(const ModelProfile& profile);
// Throws InputError naming the file and the missing or malformed field.
ModelProfile ReadProfile(const std::string& path);

double PredictBackwardS(const ModelProfile& profile, int depth, int batch);
double PredictBytesSent(const ModelProfile& profile, const std::vector<Collective>& collectives,
                        int rank);

}  // namespace jigsaw

#endif  // JIGSAW_SPB_COST_MODEL_H_
