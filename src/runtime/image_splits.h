// The labelled splits of `jigsaw train`'s data sets without LibTorch, as the serving side and
// `jigsaw serve-bench` need them: the same files, defaults and normalisation as training.
//
// LoadImageSplit(options, train) returns the training or test split of options.dataset
// (fashion-mnist, cifar10 or synthetic; see train_data.h for the sources and defaults) with its
// channel statistics filled in (CIFAR-10's, Fashion-MNIST's, or Fashion-MNIST's for synthetic, as
// training uses them). It throws UsageError for an unknown data set and InputError for bad files.
// options.train_samples is not applied here.
//
// NormalizedSample writes sample `index` as the model sees it: channels x height x width floats,
// (pixel / 255 - mean[c]) / std[c].
#ifndef JIGSAW_RUNTIME_IMAGE_SPLITS_H_
#define JIGSAW_RUNTIME_IMAGE_SPLITS_H_

#include <string>
#include <vector>

#include "runtime/image_data.h"
#include "runtime/runtime.h"

namespace jigsaw {

ImageSet LoadImageSplit(const DataOptions& options, bool train);

// Training's per-channel normalisation of `dataset`'s pixels on the 0..1 scale, as
// LoadImageSplit fills it: CIFAR-10's statistics for cifar10, Fashion-MNIST's (0.286, 0.353)
// for every channel of any other data set.
void ChannelStatistics(const std::string& dataset, int channels, std::vector<double>* mean,
                       std::vector<double>* std);

// Throws std::out_of_range for an index outside [0, set.count).
void NormalizedSample(const ImageSet& set, int index, std::vector<float>* out);

// Defaults of DataOptions::data_dir / cache_dir (train_data.h).
std::string DefaultCifarSource();
std::string DefaultDataCacheDir();

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_IMAGE_SPLITS_H_
