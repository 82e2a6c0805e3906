// CIFAR-10 without LibTorch: the official binary batches, an ImageFolder of JPEGs (a folder or a
// .tar.gz read in place), a decoded-set cache, and the standard crop + flip augmentation.
//
// Every reader returns an ImageSet of 32x32 RGB images (channels = 3, pixels sample-major then
// channel-major, as in the binary format) and throws InputError naming the file, and for binary
// data "byte N: ", on anything malformed: nothing is silently skipped or guessed.
//
// ImageFolder semantics follow torchvision's ImageFolder: under `<root>/<split>` (split = "train"
// or "test") each sub-folder is a class, class index = position of its name in sorted (byte)
// order, images = the class folder's *.jpg / *.jpeg files (case-insensitive) in sorted name order;
// other files are ignored. With the CIFAR-10 class names (airplane .. truck) the sorted order is
// the binary batches' label order.
#ifndef JIGSAW_RUNTIME_CIFAR10_H_
#define JIGSAW_RUNTIME_CIFAR10_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/image_data.h"

namespace jigsaw {

class Progress;

// Concatenates binary batch files: records of 1 label byte in [0, 10) + 3072 pixel bytes (1024 R,
// 1024 G, 1024 B, each 32x32 row-major). classes = 10. Errors: unreadable file, empty file, size
// not a multiple of 3073, label >= 10.
ImageSet ReadCifarBinaryBatches(const std::vector<std::string>& paths);

// Writes `set` (32x32x3, labels < 10) as one binary batch file, atomically (a temporary file in
// the same folder, renamed over `path`), so concurrent writers and crashes never leave a partial
// file under `path`.
void WriteCifarBinaryBatch(const ImageSet& set, const std::string& path);

// Decodes `dir/{train,test}/<class>/*.jpg` (libjpeg). Each image must be 32x32, RGB or grayscale
// (expanded to three channels). classes = the number of class folders, 1 to 10; a class folder
// without images is an error. `progress` (optional) gets throttled "decoded N images" lines.
ImageSet ReadCifarImageFolder(const std::string& dir, bool train, Progress* progress = nullptr);

// The same from a tar archive (gzip-compressed or not; see TarReader) holding that layout at its
// root, e.g. ../shared/data/datasets/cifar10/cifar10-jpeg.tar.gz, streamed without extracting:
// members `<split>/<class>/<name>.jpg`; other members are ignored except a deeper path under the
// split, or the same member twice, which are errors. Errors name the archive and the byte offset
// in the uncompressed tar stream.
ImageSet ReadCifarArchive(const std::string& tar_gz_path, bool train, Progress* progress = nullptr);

// CIFAR-10 from `source`:
//  (a) a folder of binary batches: data_batch_1.bin .. data_batch_5.bin (train) and
//      test_batch.bin (test), directly in it or in its cifar-10-batches-bin sub-folder;
//  (b) an ImageFolder folder (has a train/ or test/ sub-folder);
//  (c) any other regular file: a (.tar.gz) archive.
// For (b) and (c) exactly 10 classes are required, and with a non-empty `cache_dir` the decoded
// split is kept there as a binary batch (`<split>-<key>.bin`, key = hash of the source's absolute
// path and of the sizes and modification times of the archive or of every folder entry), which
// later calls read instead of decoding; a changed source gets a new key, so a stale cache is
// never used (old cache files are left for the user to delete).
ImageSet LoadCifar10(const std::string& source, bool train, const std::string& cache_dir,
                     Progress* progress = nullptr);

// Writes the augmented images of set samples `indices` (in that order) to `out`, resized to
// indices.size() * channels * height * width bytes in ImageSet's layout. Per sample: a random
// height x width crop of the image zero-padded by `pad` pixels on each side (row and column
// offsets uniform in [0, 2 * pad]), then, if `flip`, a horizontal mirror with probability 1/2.
// The draws depend on `seed` only (three per sample, the flip drawn even when unused, so the crops
// do not depend on `flip`); pass a seed derived from (run seed, epoch, iteration, rank). pad = 0
// without flip copies the images. Throws std::invalid_argument for pad < 0 or an index outside
// [0, set.count).
void AugmentCifarBatch(const ImageSet& set, const std::vector<int64_t>& indices, int pad, bool flip,
                       uint64_t seed, std::vector<uint8_t>* out);

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_CIFAR10_H_
