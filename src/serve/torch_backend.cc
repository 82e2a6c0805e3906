#include "serve/torch_backend.h"

#include <torch/torch.h>

#include <filesystem>

#include "core/error.h"
#include "core/limits.h"
#include "runtime/model_spec.h"
#include "runtime/models.h"

namespace jigsaw {
namespace {

class TorchBackend : public InferenceBackend {
 public:
  TorchBackend(ServedModelInfo info, BlockModel model)
      : info_(std::move(info)), model_(std::move(model)) {
    model_->eval();
  }

  const ServedModelInfo& info() const override { return info_; }

  InferResult Infer(const InferRequest& request) override {
    torch::NoGradGuard no_grad;
    torch::Tensor x = torch::from_blob(const_cast<float*>(request.input.data()),
                                       {request.batch, info_.channels, info_.height, info_.width},
                                       torch::kFloat32);
    for (int i = 0; i < model_->num_blocks(); ++i) x = model_->block(i)->forward(x);
    const torch::Tensor logits = x.reshape({request.batch, info_.classes}).contiguous();
    InferResult result;
    result.logits.assign(logits.data_ptr<float>(), logits.data_ptr<float>() + logits.numel());
    const torch::Tensor classes = logits.argmax(1).to(torch::kInt64).contiguous();
    result.classes.assign(classes.data_ptr<int64_t>(),
                          classes.data_ptr<int64_t>() + classes.numel());
    return result;
  }

 private:
  ServedModelInfo info_;
  BlockModel model_;
};

}  // namespace

std::unique_ptr<InferenceBackend> LoadTorchBackend(const TorchBackendOptions& options) {
  const std::string& path = options.checkpoint;
  if (!std::filesystem::is_regular_file(path)) {
    throw InputError(path, 0,
                     "expected a `jigsaw train` checkpoint (OUT/checkpoint.pt): no such file");
  }
  if (options.max_batch < 1 || options.max_batch > 4096) {
    throw UsageError("--max-batch must be in [1, 4096]");
  }
  torch::set_num_threads(std::max(1, options.threads));
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const std::exception& e) {
    throw InputError(path, 0, "expected a `jigsaw train` checkpoint: " + BoundedMessage(e.what()));
  }
  const std::optional<ModelSpec> spec = ReadModelSpec(archive);
  if (!spec) {
    throw InputError(path, 0,
                     "expected a checkpoint with a model spec (spec.model, spec.shape): written "
                     "by an older `jigsaw train`? Train again to serve it");
  }
  ServedModelInfo info;
  info.name = options.name.empty() ? spec->model : options.name;
  info.channels = spec->channels;
  info.height = spec->height;
  info.width = spec->width;
  info.classes = spec->classes;
  info.max_batch = options.max_batch;
  if (info.channels < 1 || info.height < 1 || info.width < 1 || info.classes < 1 ||
      info.channels * int64_t{info.height} * info.width > (1 << 24)) {
    throw InputError(path, 0, "spec.shape: expected positive channels, height, width, classes");
  }
  BlockModel model = MakeModel(spec->model, info.channels, info.height, info.width, info.classes);
  try {
    torch::serialize::InputArchive model_archive;
    archive.read("model", model_archive);
    model->load(model_archive);
  } catch (const std::exception& e) {
    throw InputError(
        path, 0, "the weights do not fit model '" + spec->model + "': " + BoundedMessage(e.what()));
  }
  return std::make_unique<TorchBackend>(std::move(info), std::move(model));
}

}  // namespace jigsaw
