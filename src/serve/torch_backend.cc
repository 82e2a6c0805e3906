#include "serve/torch_backend.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <span>

#include "core/error.h"
#include "core/limits.h"
#include "runtime/image_splits.h"
#include "runtime/model_spec.h"
#include "runtime/models.h"

namespace jigsaw {
namespace {

class TorchBackend : public InferenceBackend {
 public:
  TorchBackend(ServedModelInfo info, BlockModel model, std::shared_ptr<LayerCache> cache)
      : info_(std::move(info)), model_(std::move(model)), cache_(std::move(cache)) {
    model_->eval();
    stats_.cache = cache_ ? cache_->kind() : "none";
    stats_.answered_after.assign(model_->num_blocks() + 1, 0);
  }

  BackendStats stats() const override {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    return stats_;
  }

  const ServedModelInfo& info() const override { return info_; }

  void SetCache(std::shared_ptr<LayerCache> cache) override {
    cache_ = std::move(cache);
    std::lock_guard<std::mutex> lock(stats_mutex_);
    stats_.cache = cache_ ? cache_->kind() : "none";
    stats_.cache_bytes = cache_ ? cache_->MemoryBytes() : 0;
  }

  std::vector<double> MeasureBlockSeconds(const InferRequest& request, int repeats) override {
    torch::NoGradGuard no_grad;
    const int blocks = model_->num_blocks();
    std::vector<double> seconds(blocks, 0.0);
    for (int run = -1; run < std::max(1, repeats); ++run) {
      torch::Tensor x = InputTensor(request);
      for (int b = 0; b < blocks; ++b) {
        const auto start = std::chrono::steady_clock::now();
        x = model_->block(b)->forward(x);
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        if (run >= 0) seconds[b] += took.count() / std::max(1, repeats);
      }
    }
    return seconds;
  }

  InferResult Infer(const InferRequest& request) override {
    cache_seconds_ = 0;
    insert_seconds_ = 0;
    const auto start = std::chrono::steady_clock::now();
    InferResult result = Run(request);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::lock_guard<std::mutex> lock(stats_mutex_);
    stats_.cache_seconds += cache_seconds_;
    stats_.cache_insert_seconds += insert_seconds_;
    stats_.infer_seconds += took.count();
    stats_.samples += request.batch;
    for (int blocks : result.blocks_run) ++stats_.answered_after[blocks];
    if (cache_) stats_.cache_bytes = cache_->MemoryBytes();
    return result;
  }

  LayerFeatures ComputeLayerFeatures(const InferRequest& request,
                                     const std::vector<int>& layers) override {
    torch::NoGradGuard no_grad;
    const int blocks = model_->num_blocks();
    for (size_t j = 0; j < layers.size(); ++j) {
      if (layers[j] < 0 || layers[j] >= blocks || (j > 0 && layers[j] <= layers[j - 1])) {
        throw UsageError("layer features: layers must be ascending in [0, " +
                         std::to_string(blocks) + ")");
      }
    }
    LayerFeatures out;
    out.layers = layers;
    torch::Tensor x = InputTensor(request);
    size_t next = 0;
    for (int layer = 0; layer <= blocks; ++layer) {
      if (layer > 0) x = model_->block(layer - 1)->forward(x);
      if (next < layers.size() && layers[next] == layer) {
        const torch::Tensor pooled = Pool(layer, x);
        out.widths.push_back(static_cast<int>(pooled.size(1)));
        out.features.emplace_back(pooled.data_ptr<float>(),
                                  pooled.data_ptr<float>() + pooled.numel());
        ++next;
      }
    }
    const torch::Tensor classes =
        x.reshape({request.batch, info_.classes}).argmax(1).to(torch::kInt64).contiguous();
    out.classes.assign(classes.data_ptr<int64_t>(), classes.data_ptr<int64_t>() + classes.numel());
    return out;
  }

 private:
  torch::Tensor InputTensor(const InferRequest& request) const {
    return torch::from_blob(const_cast<float*>(request.input.data()),
                            {request.batch, info_.channels, info_.height, info_.width},
                            torch::kFloat32);
  }

  // The features caches see at `layer`: the input as is, later the global-average-pooled
  // activation (one value per channel), row-major batch x width.
  static torch::Tensor Pool(int layer, const torch::Tensor& x) {
    torch::Tensor pooled =
        layer == 0 ? x.flatten(1) : (x.dim() == 4 ? x.mean({2, 3}) : x.flatten(1));
    return pooled.contiguous();
  }

  InferResult Run(const InferRequest& request) {
    torch::NoGradGuard no_grad;
    const int blocks = model_->num_blocks();
    torch::Tensor x = InputTensor(request);
    InferResult result;
    result.blocks = blocks;
    result.blocks_run.assign(request.batch, blocks);
    result.logits.assign(static_cast<size_t>(request.batch) * info_.classes, 0.0f);
    result.classes.assign(request.batch, 0);
    // active[i] = the request's sample at row i of x; features[i][k] = its features at the k-th
    // cached layer (kept for the insert once the model has answered).
    std::vector<int> active(request.batch);
    for (int i = 0; i < request.batch; ++i) active[i] = i;
    std::vector<std::vector<std::vector<float>>> features(request.batch);
    const std::vector<int> no_layers;
    const std::vector<int>& layers = cache_ ? cache_->layers() : no_layers;
    size_t next = 0;
    for (int layer = 0; layer <= blocks && !active.empty(); ++layer) {
      if (layer > 0) x = model_->block(layer - 1)->forward(x);
      if (next < layers.size() && layers[next] == layer && layer < blocks) {
        x = LookUp(layer, x, &active, &features, &result);
        ++next;
      }
    }
    if (active.empty()) return result;
    const torch::Tensor logits = x.reshape({x.size(0), info_.classes}).contiguous();
    const torch::Tensor classes = logits.argmax(1).to(torch::kInt64).contiguous();
    for (size_t row = 0; row < active.size(); ++row) {
      const int sample = active[row];
      const float* scores = logits.data_ptr<float>() + row * info_.classes;
      std::copy(scores, scores + info_.classes,
                result.logits.begin() + static_cast<size_t>(sample) * info_.classes);
      result.classes[sample] = classes[row].item<int64_t>();
      if (features[sample].empty()) continue;
      const auto start = std::chrono::steady_clock::now();
      for (size_t k = 0; k < features[sample].size(); ++k) {
        cache_->Insert(layers[k], features[sample][k], result.classes[sample],
                       std::span<const float>(scores, info_.classes));
      }
      const double inserted =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      cache_seconds_ += inserted;
      insert_seconds_ += inserted;
    }
    return result;
  }

  // Looks up every active sample at `layer`; hits are answered and dropped from x and *active.
  torch::Tensor LookUp(int layer, const torch::Tensor& x, std::vector<int>* active,
                       std::vector<std::vector<std::vector<float>>>* features,
                       InferResult* result) {
    const torch::Tensor pooled = Pool(layer, x);
    const int64_t width = pooled.size(1);
    std::vector<int64_t> keep;
    std::vector<int> still;
    for (size_t row = 0; row < active->size(); ++row) {
      const int sample = (*active)[row];
      const float* begin = pooled.data_ptr<float>() + row * width;
      std::span<const float> values(begin, width);
      const auto start = std::chrono::steady_clock::now();
      std::optional<CacheAnswer> answer = cache_->Lookup(layer, values);
      cache_seconds_ +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (answer) {
        result->blocks_run[sample] = layer;
        result->classes[sample] = answer->label;
        float* out = result->logits.data() + static_cast<size_t>(sample) * info_.classes;
        if (static_cast<int>(answer->scores.size()) == info_.classes) {
          std::copy(answer->scores.begin(), answer->scores.end(), out);
        } else if (answer->label >= 0 && answer->label < info_.classes) {
          out[answer->label] = 1.0f;
        }
        continue;
      }
      (*features)[sample].emplace_back(values.begin(), values.end());
      keep.push_back(static_cast<int64_t>(row));
      still.push_back(sample);
    }
    if (still.size() == active->size()) return x;
    *active = std::move(still);
    if (active->empty()) return x;
    return x.index_select(0, torch::tensor(keep, torch::kInt64));
  }

  ServedModelInfo info_;
  BlockModel model_;
  std::shared_ptr<LayerCache> cache_;
  double cache_seconds_ = 0;   // of the Infer in progress (inference thread only)
  double insert_seconds_ = 0;  // likewise, the inserts' part
  mutable std::mutex stats_mutex_;
  BackendStats stats_;
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
    archive.load_from(path, torch::kCPU);  // a checkpoint trained on a GPU serves here too
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
  info.dataset = spec->dataset;
  ChannelStatistics(spec->dataset, info.channels, &info.channel_mean, &info.channel_std);
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
  return std::make_unique<TorchBackend>(std::move(info), std::move(model), options.cache);
}

}  // namespace jigsaw
