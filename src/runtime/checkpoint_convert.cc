#include "runtime/checkpoint_convert.h"

#include <torch/torch.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "core/error.h"
#include "runtime/model_spec.h"
#include "runtime/models.h"

namespace jigsaw {
namespace {

constexpr std::array<std::pair<WeightsDtype, const char*>, 2> kWeightsDtypes = {{
    {WeightsDtype::kFloat32, "float32"},
    {WeightsDtype::kFloat16, "float16"},
}};

torch::ScalarType ScalarTypeOf(WeightsDtype dtype) {
  return dtype == WeightsDtype::kFloat16 ? torch::kHalf : torch::kFloat32;
}

// Casts every floating-point parameter and buffer in place (integer buffers stay).
void CastWeights(BlockModel& model, torch::ScalarType type) {
  torch::NoGradGuard no_grad;
  for (torch::Tensor& p : model->parameters()) p.set_data(p.detach().to(type));
  for (torch::Tensor& b : model->buffers()) {
    if (b.is_floating_point()) b.set_data(b.to(type));
  }
}

}  // namespace

WeightsDtype ParseWeightsDtype(const std::string& text) {
  for (const auto& [dtype, name] : kWeightsDtypes) {
    if (text == name) return dtype;
  }
  throw UsageError("--dtype '" + text + "': expected " + WeightsDtypeNames());
}

const char* WeightsDtypeName(WeightsDtype dtype) {
  for (const auto& [value, name] : kWeightsDtypes) {
    if (value == dtype) return name;
  }
  return "?";
}

std::string WeightsDtypeNames() {
  std::string names;
  for (const auto& [dtype, name] : kWeightsDtypes)
    names += (names.empty() ? "" : ", ") + std::string(name);
  return names;
}

void CheckpointOptions::Validate() const {
  if (input.empty()) throw UsageError("--input: expected a checkpoint file");
  if (output.empty()) throw UsageError("--output: expected the file to write");
  std::error_code ec;
  if (std::filesystem::equivalent(input, output, ec)) {
    throw UsageError("--output '" + output + "': the same file as --input (write elsewhere)");
  }
}

int RunCheckpoint(const CheckpointOptions& options) {
  options.Validate();
  const std::string& path = options.input;
  if (!std::filesystem::is_regular_file(path)) {
    throw InputError(path, 0, "expected a `jigsaw train` checkpoint: no such file");
  }
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path, torch::kCPU);
  } catch (const std::exception& e) {
    throw InputError(path, 0, std::string("expected a `jigsaw train` checkpoint: ") + e.what());
  }
  const std::optional<ModelSpec> spec = ReadModelSpec(archive);
  if (!spec) {
    throw InputError(path, 0, "expected a checkpoint with a model spec (spec.model, spec.shape)");
  }
  c10::IValue stored;
  WeightsDtype from = WeightsDtype::kFloat32;
  if (archive.try_read("weights.dtype", stored)) {
    if (!stored.isString()) throw InputError(path, 0, "weights.dtype: expected a string");
    try {
      from = ParseWeightsDtype(stored.toStringRef());
    } catch (const UsageError&) {
      throw InputError(
          path, 0, "weights.dtype '" + stored.toStringRef() + "': expected " + WeightsDtypeNames());
    }
  }
  BlockModel model =
      MakeModel(spec->model, spec->channels, spec->height, spec->width, spec->classes);
  CastWeights(model, ScalarTypeOf(from));  // loading keeps the archive's precision
  try {
    torch::serialize::InputArchive model_archive;
    archive.read("model", model_archive);
    model->load(model_archive);
  } catch (const std::exception& e) {
    throw InputError(path, 0, "the weights do not fit model '" + spec->model + "': " + e.what());
  }
  CastWeights(model, ScalarTypeOf(options.dtype));
  torch::serialize::OutputArchive out;
  torch::serialize::OutputArchive model_out;
  model->save(model_out);
  out.write("model", model_out);
  WriteModelSpec(out, *spec);
  out.write("weights.dtype", c10::IValue(std::string(WeightsDtypeName(options.dtype))));
  const std::string temp = options.output + ".tmp";
  out.save_to(temp);
  std::filesystem::rename(temp, options.output);
  std::fprintf(stderr, "checkpoint: %s (%s) -> %s (%s), model %s\n", path.c_str(),
               WeightsDtypeName(from), options.output.c_str(), WeightsDtypeName(options.dtype),
               spec->model.c_str());
  return 0;
}

}  // namespace jigsaw
