#include "runtime/train_data.h"

#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "core/rng.h"
#include "runtime/cifar10.h"
#include "runtime/image_splits.h"
#include "runtime/spb_worker.h"

namespace jigsaw {
namespace {

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
  data.train = LoadImageSplit(options, true);
  data.test = LoadImageSplit(options, false);
  data.augment = options.dataset == "cifar10" && options.augment != "off";
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
