#include "runtime/image_splits.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "core/data_files.h"
#include "core/error.h"
#include "runtime/cifar10.h"

namespace jigsaw {
namespace {

constexpr char kDefaultFashionDir[] = "/usr/share/datasets/fashion-mnist";

}  // namespace

// The default CIFAR-10 archive in the shared data (core/data_files.h: $JIGSAW_DATA_DIR first).
std::string DefaultCifarSource() { return SharedDataPath("datasets/cifar10/cifar10-jpeg.tar.gz"); }

std::string DefaultDataCacheDir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/jigsaw";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.cache/jigsaw";
  }
  return ".cache/jigsaw";
}

void ChannelStatistics(const std::string& dataset, int channels, std::vector<double>* mean,
                       std::vector<double>* std) {
  if (dataset == "cifar10" && channels == 3) {
    *mean = {0.4914, 0.4822, 0.4465};
    *std = {0.2470, 0.2435, 0.2616};
    return;
  }
  mean->assign(static_cast<size_t>(channels), 0.286);
  std->assign(static_cast<size_t>(channels), 0.353);
}

ImageSet LoadImageSplit(const DataOptions& options, bool train) {
  ImageSet set;
  if (options.dataset == "fashion-mnist") {
    set = LoadFashionMnist(options.data_dir.empty() ? kDefaultFashionDir : options.data_dir, train);
  } else if (options.dataset == "cifar10") {
    const std::string source = options.data_dir.empty() ? DefaultCifarSource() : options.data_dir;
    const std::string cache = options.cache_dir.empty() ? DefaultDataCacheDir() : options.cache_dir;
    set = LoadCifar10(source, train, cache);
    ChannelStatistics(options.dataset, set.channels, &set.channel_mean, &set.channel_std);
  } else if (options.dataset == "synthetic") {
    set =
        MakeSyntheticImageSet(train ? options.synthetic_train : options.synthetic_test,
                              options.synthetic_size, options.synthetic_classes, 7, train ? 1 : 2);
  } else {
    throw UsageError("--dataset '" + options.dataset +
                     "': expected fashion-mnist, cifar10 or synthetic");
  }
  return set;
}

void NormalizedSample(const ImageSet& set, int index, std::vector<float>* out) {
  if (index < 0 || index >= set.count) throw std::out_of_range("image index out of range");
  const size_t plane = static_cast<size_t>(set.height) * set.width;
  const uint8_t* pixels = set.pixels.data() + static_cast<size_t>(index) * set.channels * plane;
  for (int c = 0; c < set.channels; ++c) {
    const double mean = set.channel_mean.empty() ? 0.286 : set.channel_mean[c];
    const double std = set.channel_std.empty() ? 0.353 : set.channel_std[c];
    for (size_t i = 0; i < plane; ++i) {
      out->push_back(static_cast<float>((pixels[c * plane + i] / 255.0 - mean) / std));
    }
  }
}

}  // namespace jigsaw
