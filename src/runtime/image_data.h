// Labelled image sets for training: Fashion-MNIST read from IDX files, and a seeded synthetic set.
//
// ImageSet stores 8-bit pixels, sample-major, channel-major inside a sample (count x channels x
// height x width), and one label in [0, classes) per sample. The IDX reader accepts gzip-compressed
// or raw files and throws InputError naming the file and the byte offset of the first problem
// (bad magic number, dimensions, truncation, label out of range, image/label count mismatch).
#ifndef JIGSAW_RUNTIME_IMAGE_DATA_H_
#define JIGSAW_RUNTIME_IMAGE_DATA_H_

#include <cstdint>
#include <string>
#include <vector>

namespace jigsaw {

struct ImageSet {
  int count = 0;
  int channels = 1;
  int height = 0;
  int width = 0;
  int classes = 10;
  std::vector<uint8_t> pixels;
  std::vector<uint8_t> labels;
  // Per-channel mean and standard deviation of the pixels on the 0..1 scale, used to normalise
  // batches; empty = Fashion-MNIST's (0.286, 0.353).
  std::vector<double> channel_mean;
  std::vector<double> channel_std;
};

// Reads an IDX3 image file and its IDX1 label file (gzip or raw).
ImageSet ReadIdxImageSet(const std::string& images_path, const std::string& labels_path);

// Fashion-MNIST from `dir` (Debian's dataset-fashion-mnist: /usr/share/datasets/fashion-mnist):
// train-* (60,000 images) or t10k-* (10,000 images), with or without the .gz suffix.
ImageSet LoadFashionMnist(const std::string& dir, bool train);

// `count` single-channel size x size images of `classes` classes: each class has a fixed random
// pattern (from `pattern_seed`), each sample is its class pattern plus noise (from
// `sample_seed`). A train and a test set drawn with the same pattern seed share the classes.
ImageSet MakeSyntheticImageSet(int count, int size, int classes, uint64_t pattern_seed,
                               uint64_t sample_seed);

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_IMAGE_DATA_H_
