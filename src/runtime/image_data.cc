#include "runtime/image_data.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "core/rng.h"

namespace jigsaw {
namespace {

constexpr uint32_t kImagesMagic = 0x00000803;  // unsigned bytes, 3 dimensions
constexpr uint32_t kLabelsMagic = 0x00000801;  // unsigned bytes, 1 dimension

// gzread reads gzip and raw files alike.
std::string ReadMaybeGzipped(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw InputError(path, 0, "cannot open the file");
  std::string data;
  char buffer[1 << 16];
  int n;
  while ((n = gzread(file, buffer, sizeof(buffer))) > 0) data.append(buffer, n);
  int error = Z_OK;
  const char* message = gzerror(file, &error);
  gzclose(file);
  if (n < 0 || (error != Z_OK && error != Z_STREAM_END)) {
    throw InputError(path, 0, std::string("corrupt gzip data: ") + message);
  }
  return data;
}

class IdxHeader {
 public:
  IdxHeader(const std::string& path, const std::string& data) : path_(path), data_(data) {}

  uint32_t ReadU32(const char* what) {
    if (offset_ + 4 > data_.size()) {
      Fail("file ends inside the header, expected the " + std::string(what));
    }
    const auto* p = reinterpret_cast<const unsigned char*>(data_.data() + offset_);
    offset_ += 4;
    return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
  }

  void RequireMagic(uint32_t expected, const char* kind) {
    uint32_t magic = ReadU32("magic number");
    if (magic != expected) {
      char text[96];
      std::snprintf(text, sizeof(text), "magic number 0x%08x, expected 0x%08x (%s)", magic,
                    expected, kind);
      offset_ = 0;
      Fail(text);
    }
  }

  // Requires exactly `bytes` payload bytes after the header.
  void RequirePayload(uint64_t bytes) {
    uint64_t available = data_.size() - offset_;
    if (available < bytes) {
      Fail("truncated: header announces " + std::to_string(bytes) + " data bytes, only " +
           std::to_string(available) + " present");
    }
    if (available > bytes) {
      offset_ += bytes;
      Fail(std::to_string(available - bytes) + " unexpected bytes after the data");
    }
  }

  [[noreturn]] void Fail(const std::string& message) const {
    throw InputError(path_, 0, "byte " + std::to_string(offset_) + ": " + message);
  }

  size_t offset() const { return offset_; }

 private:
  const std::string& path_;
  const std::string& data_;
  size_t offset_ = 0;
};

std::string PickExisting(const std::string& dir, const std::string& name) {
  std::string gz = dir + "/" + name + ".gz";
  return std::filesystem::exists(gz) ? gz : dir + "/" + name;
}

}  // namespace

ImageSet ReadIdxImageSet(const std::string& images_path, const std::string& labels_path) {
  ImageSet set;
  std::string images = ReadMaybeGzipped(images_path);
  IdxHeader image_header(images_path, images);
  image_header.RequireMagic(kImagesMagic, "IDX3 unsigned-byte images");
  uint32_t count = image_header.ReadU32("image count");
  uint32_t rows = image_header.ReadU32("row count");
  uint32_t cols = image_header.ReadU32("column count");
  if (rows == 0 || cols == 0 || rows > 4096 || cols > 4096 || count > (1u << 26)) {
    image_header.Fail("implausible dimensions " + std::to_string(count) + " x " +
                      std::to_string(rows) + " x " + std::to_string(cols));
  }
  image_header.RequirePayload(uint64_t{count} * rows * cols);
  set.count = static_cast<int>(count);
  set.height = static_cast<int>(rows);
  set.width = static_cast<int>(cols);
  set.pixels.assign(images.begin() + image_header.offset(), images.end());

  std::string labels = ReadMaybeGzipped(labels_path);
  IdxHeader label_header(labels_path, labels);
  label_header.RequireMagic(kLabelsMagic, "IDX1 unsigned-byte labels");
  uint32_t label_count = label_header.ReadU32("label count");
  if (label_count != count) {
    label_header.Fail(std::to_string(label_count) + " labels for the " + std::to_string(count) +
                      " images of " + images_path);
  }
  label_header.RequirePayload(label_count);
  set.labels.assign(labels.begin() + label_header.offset(), labels.end());
  for (size_t i = 0; i < set.labels.size(); ++i) {
    if (set.labels[i] >= set.classes) {
      throw InputError(labels_path, 0,
                       "byte " + std::to_string(label_header.offset() + i) + ": label " +
                           std::to_string(set.labels[i]) + " outside [0, " +
                           std::to_string(set.classes) + ")");
    }
  }
  return set;
}

ImageSet LoadFashionMnist(const std::string& dir, bool train) {
  const std::string prefix = train ? "train" : "t10k";
  return ReadIdxImageSet(PickExisting(dir, prefix + "-images-idx3-ubyte"),
                         PickExisting(dir, prefix + "-labels-idx1-ubyte"));
}

ImageSet MakeSyntheticImageSet(int count, int size, int classes, uint64_t pattern_seed,
                               uint64_t sample_seed) {
  ImageSet set;
  set.count = count;
  set.height = size;
  set.width = size;
  set.classes = classes;
  const int pixels = size * size;
  std::vector<double> patterns(static_cast<size_t>(classes) * pixels);
  Rng pattern_rng(pattern_seed);
  for (double& p : patterns) p = pattern_rng.Uniform(0, 255);
  Rng rng(sample_seed);
  set.pixels.resize(static_cast<size_t>(count) * pixels);
  set.labels.resize(count);
  for (int i = 0; i < count; ++i) {
    const int label = static_cast<int>(rng.UniformInt(classes));
    set.labels[i] = static_cast<uint8_t>(label);
    for (int p = 0; p < pixels; ++p) {
      double value = 0.6 * patterns[static_cast<size_t>(label) * pixels + p] + rng.Uniform(0, 102);
      set.pixels[static_cast<size_t>(i) * pixels + p] =
          static_cast<uint8_t>(std::clamp(value, 0.0, 255.0));
    }
  }
  return set;
}

}  // namespace jigsaw
