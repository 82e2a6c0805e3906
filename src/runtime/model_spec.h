// What a `jigsaw train` checkpoint needs besides its weights to be rebuilt elsewhere (by
// `jigsaw serve`): the model name and the input and output shapes. Stored in the checkpoint
// archive under "spec.*"; checkpoints written before the spec existed have none.
#ifndef JIGSAW_RUNTIME_MODEL_SPEC_H_
#define JIGSAW_RUNTIME_MODEL_SPEC_H_

#include <torch/torch.h>

#include <optional>
#include <string>

namespace jigsaw {

struct ModelSpec {
  std::string model;    // a MakeModel name (models.h)
  std::string dataset;  // what it was trained on (informational)
  int channels = 0;
  int height = 0;
  int width = 0;
  int classes = 0;
};

void WriteModelSpec(torch::serialize::OutputArchive& archive, const ModelSpec& spec);

// The spec stored in `archive`, or nullopt when it has none.
std::optional<ModelSpec> ReadModelSpec(torch::serialize::InputArchive& archive);

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_MODEL_SPEC_H_
