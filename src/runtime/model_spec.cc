#include "runtime/model_spec.h"

namespace jigsaw {

void WriteModelSpec(torch::serialize::OutputArchive& archive, const ModelSpec& spec) {
  archive.write("spec.model", c10::IValue(spec.model));
  archive.write("spec.dataset", c10::IValue(spec.dataset));
  archive.write("spec.shape", torch::tensor(std::vector<int64_t>{spec.channels, spec.height,
                                                                 spec.width, spec.classes}));
}

std::optional<ModelSpec> ReadModelSpec(torch::serialize::InputArchive& archive) {
  c10::IValue model;
  c10::IValue dataset;
  torch::Tensor shape;
  if (!archive.try_read("spec.model", model) || !archive.try_read("spec.shape", shape) ||
      !model.isString() || shape.numel() != 4) {
    return std::nullopt;
  }
  ModelSpec spec;
  spec.model = model.toStringRef();
  if (archive.try_read("spec.dataset", dataset) && dataset.isString()) {
    spec.dataset = dataset.toStringRef();
  }
  shape = shape.to(torch::kInt64);
  spec.channels = static_cast<int>(shape[0].item<int64_t>());
  spec.height = static_cast<int>(shape[1].item<int64_t>());
  spec.width = static_cast<int>(shape[2].item<int64_t>());
  spec.classes = static_cast<int>(shape[3].item<int64_t>());
  return spec;
}

}  // namespace jigsaw
