#include "runtime/train_data.h"

#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "core/rng.h"
#include "runtime/cifar10.h"
#include "runtime/spb_worker.h"

namespace jigsaw {
namespace {

constexpr char kDefaultFashionDir[] = "/usr/share/datasets/fashion-mnist";
constexpr char kDefaultCifarSource[] = "../shared/data/datasets/cifar10/cifar10-jpeg.tar.gz";

// The default CIFAR-10 archive: ../shared/data/... from the working directory (the repository
// root, where the README's commands run), else the same path beside the repository that holds
// this executable (build/jigsaw-runtime -> ../../shared/data/...).
std::string DefaultCifarSource() {
  if (std::filesystem::exists(kDefaultCifarSource)) return kDefaultCifarSource;
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::filesystem::path beside = exe.parent_path().parent_path() / kDefaultCifarSource;
    if (std::filesystem::exists(beside)) return beside.string();
  }
  return kDefaultCifarSource;
}

std::string DefaultCacheDir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/jigsaw";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.cache/jigsaw";
  }
  return ".cache/jigsaw";
}

void KeepSubset(ImageSet* set, int samples) {
  if (samples <= 0 || samples >= set->count) return;
  std::vector<int64_t> order(set->count);
  for (int i = 0; i < set->count; ++i) order[i] = i;
  Rng rng(0x5eed5eedULL);
  for (int i = set->count - 1; i > 0; --i) {
    std::swap(order[i], order[rng.UniformInt(static_cast<uint64_t>(i) + 1)]);
  }
  const int64_t sample = int64_t{set->channels} * set->height * set->width;
  std::vector<uint8_t> pixels(static_cast<size_t>(samples * sample));
  std::vector<uint8_t> labels(samples);
  for (int i = 0; i < samples; ++i) {
    std::copy_n(set->pixels.data() + order[i] * sample, sample, pixels.data() + i * sample);
    labels[i] = set->labels[order[i]];
  }
  set->pixels = std::move(pixels);
  set->labels = std::move(labels);
  set->count = samples;
}

}  // namespace

TrainingData LoadTrainingData(const DataOptions& options) {
  TrainingData data;
  if (options.dataset == "fashion-mnist") {
    const std::string dir = options.data_dir.empty() ? kDefaultFashionDir : options.data_dir;
    data.train = LoadFashionMnist(dir, true);
    data.test = LoadFashionMnist(dir, false);
  } else if (options.dataset == "cifar10") {
    const std::string source = options.data_dir.empty() ? DefaultCifarSource() : options.data_dir;
    const std::string cache = options.cache_dir.empty() ? DefaultCacheDir() : options.cache_dir;
    data.train = LoadCifar10(source, true, cache);
    data.test = LoadCifar10(source, false, cache);
    for (ImageSet* set : {&data.train, &data.test}) {
      set->channel_mean = {0.4914, 0.4822, 0.4465};
      set->channel_std = {0.2470, 0.2435, 0.2616};
    }
    data.augment = options.augment != "off";
  } else if (options.dataset == "synthetic") {
    data.train = MakeSyntheticImageSet(options.synthetic_train, options.synthetic_size,
                                       options.synthetic_classes, 7, 1);
    data.test = MakeSyntheticImageSet(options.synthetic_test, options.synthetic_size,
                                      options.synthetic_classes, 7, 2);
  } else {
    throw UsageError("--dataset '" + options.dataset +
                     "': expected fashion-mnist, cifar10 or synthetic");
  }
  if (options.augment == "on") data.augment = true;
  if (options.augment != "on" && options.augment != "off" && options.augment != "auto") {
    throw UsageError("--augment '" + options.augment + "': expected auto, on or off");
  }
  if (options.train_samples < 0) throw UsageError("--train-samples must be >= 0");
  KeepSubset(&data.train, options.train_samples);
  return data;
}

torch::Tensor TrainingImages(const TrainingData& data, const std::vector<int64_t>& indices,
                             uint64_t seed, int epoch, int64_t iteration, int rank) {
  if (!data.augment) return BatchImages(data.train, indices);
  const uint64_t stream = seed * 0x9e3779b97f4a7c15ULL ^ (static_cast<uint64_t>(epoch) << 48) ^
                          (static_cast<uint64_t>(iteration) << 8) ^ static_cast<uint64_t>(rank);
  std::vector<uint8_t> pixels;
  AugmentCifarBatch(data.train, indices, 4, true, stream, &pixels);
  return NormalizeImages(data.train, pixels, static_cast<int64_t>(indices.size()));
}

}  // namespace jigsaw
