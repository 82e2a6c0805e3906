// `jigsaw checkpoint`: a `jigsaw train` checkpoint's weights in another precision (torch-free
// header; the work is in checkpoint_convert.cc).
//
// The output holds the model spec and the weights only, which is all `jigsaw serve` reads: no
// optimizer state, no training progress, so it cannot be resumed. Floating-point parameters and
// buffers are cast (round to nearest); integer buffers (batch norm's step counters) are kept.
// --dtype float16 halves the weights for transport (ResNet-18: 44.7 MB of float32 parameters,
// 22.4 MB in float16); --dtype float32 turns such a file back into one `jigsaw serve` loads.
// The precision is recorded in the file ("weights.dtype"; absent means float32, as in every
// checkpoint `jigsaw train` writes). The output is written to a temporary file and renamed.
// Errors name the file: not a checkpoint, no model spec, weights that do not fit the spec.
#ifndef JIGSAW_RUNTIME_CHECKPOINT_CONVERT_H_
#define JIGSAW_RUNTIME_CHECKPOINT_CONVERT_H_

#include <string>

namespace jigsaw {

enum class WeightsDtype { kFloat32, kFloat16 };

// Throws UsageError listing the accepted names.
WeightsDtype ParseWeightsDtype(const std::string& text);
const char* WeightsDtypeName(WeightsDtype dtype);
std::string WeightsDtypeNames();  // "float32, float16"

struct CheckpointOptions {
  std::string input;   // a checkpoint written by `jigsaw train` or by this command
  std::string output;  // the converted file
  WeightsDtype dtype = WeightsDtype::kFloat16;

  // UsageError naming --input / --output when empty or the same path.
  void Validate() const;
};

int RunCheckpoint(const CheckpointOptions& options);

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_CHECKPOINT_CONVERT_H_
