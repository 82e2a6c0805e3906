// The training and test sets of `jigsaw train` and `jigsaw profile`, and the training batches.
//
// Data sets (DataOptions::dataset):
//   fashion-mnist  IDX files in data_dir (default /usr/share/datasets/fashion-mnist)
//   cifar10        data_dir = a .tar.gz of the JPEG ImageFolder layout, such a folder, or a folder
//                  of the official binary batches (default
//                  ../shared/data/datasets/cifar10/cifar10-jpeg.tar.gz); decoded JPEGs are cached
//                  in cache_dir (default $XDG_CACHE_HOME/jigsaw or ~/.cache/jigsaw) as binary
//                  batches; normalised with CIFAR-10's channel means and deviations
//   synthetic      seeded class patterns plus noise (tests)
// train_samples > 0 keeps that many training samples, the same ones for every seed and plan (the
// first of a permutation drawn with a fixed seed). Augmentation (random crop with 4 pixels of zero
// padding and horizontal flip) is on for cifar10 unless disabled; its randomness is a function of
// (seed, epoch, iteration, rank), so runs and resumed runs are reproducible.
#ifndef JIGSAW_RUNTIME_TRAIN_DATA_H_
#define JIGSAW_RUNTIME_TRAIN_DATA_H_

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "runtime/image_data.h"
#include "runtime/runtime.h"

namespace jigsaw {

struct TrainingData {
  ImageSet train;
  ImageSet test;
  bool augment = false;
};

TrainingData LoadTrainingData(const DataOptions& options);

// The training batch of `indices`, augmented when data.augment.
torch::Tensor TrainingImages(const TrainingData& data, const std::vector<int64_t>& indices,
                             uint64_t seed, int epoch, int64_t iteration, int rank);

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_TRAIN_DATA_H_
