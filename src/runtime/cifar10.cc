#include "runtime/cifar10.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "core/error.h"
#include "core/output.h"
#include "core/progress.h"
#include "core/rng.h"
#include "runtime/jpeg_decode.h"
#include "runtime/tar_reader.h"

namespace jigsaw {
namespace {

namespace fs = std::filesystem;

constexpr int kSide = 32;
constexpr int kChannels = 3;
constexpr size_t kImageBytes = kSide * kSide * kChannels;  // 3072
constexpr size_t kRecordBytes = 1 + kImageBytes;           // 3073
constexpr int kClasses = 10;
// A 32x32 JPEG is a few KiB even with metadata; a larger member is not one of ours.
constexpr uint64_t kMaxJpegBytes = 16 << 20;

const char* SplitName(bool train) { return train ? "train" : "test"; }

ImageSet EmptyCifarSet(int classes) {
  ImageSet set;
  set.channels = kChannels;
  set.height = kSide;
  set.width = kSide;
  set.classes = classes;
  return set;
}

bool IsJpegName(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  auto ends_with = [&](const std::string& suffix) {
    return lower.size() > suffix.size() &&
           lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".jpg") || ends_with(".jpeg");
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, std::string("cannot open the file: ") + std::strerror(errno));
  std::string data;
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (!ec) data.reserve(size);
  char buffer[1 << 16];
  while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) data.append(buffer, in.gcount());
  if (in.bad()) throw InputError(path, 0, "cannot read the file");
  return data;
}

// Decodes one JPEG into the next image slot of `set`; "" on success, else the reason.
std::string AppendJpeg(const std::string& jpeg, int label, ImageSet* set) {
  const size_t slot = set->pixels.size();
  set->pixels.resize(slot + kImageBytes);
  std::string why = DecodeJpegPlanarRgb(reinterpret_cast<const uint8_t*>(jpeg.data()), jpeg.size(),
                                        kSide, kSide, set->pixels.data() + slot);
  set->labels.push_back(static_cast<uint8_t>(label));
  ++set->count;
  return why;
}

void ReportDecoded(Progress* progress, const ImageSet& set, const std::string& what) {
  if (progress != nullptr && progress->Due()) {
    progress->Report("decoded " + std::to_string(set.count) + " images of " + what);
  }
}

std::vector<std::string> SortedEntries(const std::string& dir, bool directories) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    const bool is_directory = it->is_directory(type_ec);
    if (directories ? is_directory : it->is_regular_file(type_ec)) {
      names.push_back(it->path().filename().string());
    }
  }
  if (ec) throw InputError(dir, 0, "cannot list the folder: " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> BatchPaths(const std::string& dir, bool train) {
  if (!train) return {dir + "/test_batch.bin"};
  std::vector<std::string> paths;
  for (int i = 1; i <= 5; ++i) paths.push_back(dir + "/data_batch_" + std::to_string(i) + ".bin");
  return paths;
}

// FNV-1a, 64 bits: only names cache files, no security role.
class Fingerprint {
 public:
  void Add(const std::string& text) {
    for (unsigned char c : text) Mix(c);
    Mix(0);
  }
  void Add(uint64_t value) {
    for (int i = 0; i < 8; ++i) Mix(static_cast<unsigned char>(value >> (8 * i)));
  }
  void AddFile(const fs::path& path) {
    std::error_code ec;
    const auto time = fs::last_write_time(path, ec);
    Add(ec ? 0 : static_cast<uint64_t>(time.time_since_epoch().count()));
    const bool regular = fs::is_regular_file(path, ec);
    Add(regular ? static_cast<uint64_t>(fs::file_size(path, ec)) : 0);
  }
  std::string Hex() const {
    char text[17];
    std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(hash_));
    return text;
  }

 private:
  void Mix(unsigned char c) { hash_ = (hash_ ^ c) * 0x100000001b3ULL; }
  uint64_t hash_ = 0xcbf29ce484222325ULL;
};

// Names, sizes and modification times of the archive, or of every entry of the split's folder.
std::string SourceKey(const std::string& source, bool is_folder, bool train) {
  Fingerprint fingerprint;
  fingerprint.Add("jigsaw cifar10 cache v1");
  fingerprint.Add(fs::absolute(source).lexically_normal().string());
  fingerprint.Add(SplitName(train));
  if (!is_folder) {
    fingerprint.AddFile(source);
    return fingerprint.Hex();
  }
  const std::string root = source + "/" + SplitName(train);
  for (const std::string& class_name : SortedEntries(root, true)) {
    const std::string class_dir = root + "/" + class_name;
    fingerprint.Add(class_name);
    fingerprint.AddFile(class_dir);
    for (const std::string& file : SortedEntries(class_dir, false)) {
      fingerprint.Add(file);
      fingerprint.AddFile(class_dir + "/" + file);
    }
  }
  return fingerprint.Hex();
}

}  // namespace

ImageSet ReadCifarBinaryBatches(const std::vector<std::string>& paths) {
  ImageSet set = EmptyCifarSet(kClasses);
  for (const std::string& path : paths) {
    const std::string data = ReadWholeFile(path);
    auto fail = [&](size_t offset, const std::string& message) {
      throw InputError(path, 0, "byte " + std::to_string(offset) + ": " + message);
    };
    if (data.empty()) fail(0, "empty file, expected 3073-byte CIFAR-10 records");
    if (data.size() % kRecordBytes != 0) {
      const size_t partial = data.size() % kRecordBytes;
      fail(data.size() - partial, "truncated record: " + std::to_string(partial) +
                                      " of 3073 bytes (the file size " +
                                      std::to_string(data.size()) + " is not a multiple of 3073)");
    }
    const size_t records = data.size() / kRecordBytes;
    for (size_t r = 0; r < records; ++r) {
      const auto* record = reinterpret_cast<const uint8_t*>(data.data()) + r * kRecordBytes;
      if (record[0] >= kClasses) {
        fail(r * kRecordBytes, "label " + std::to_string(record[0]) + " outside [0, 10)");
      }
      set.labels.push_back(record[0]);
      set.pixels.insert(set.pixels.end(), record + 1, record + kRecordBytes);
    }
    set.count += static_cast<int>(records);
  }
  return set;
}

void WriteCifarBinaryBatch(const ImageSet& set, const std::string& path) {
  if (set.channels != kChannels || set.height != kSide || set.width != kSide ||
      set.pixels.size() != static_cast<size_t>(set.count) * kImageBytes ||
      set.labels.size() != static_cast<size_t>(set.count)) {
    throw std::invalid_argument("WriteCifarBinaryBatch: not a set of 32x32 RGB images");
  }
  for (uint8_t label : set.labels) {
    if (label >= kClasses) throw std::invalid_argument("WriteCifarBinaryBatch: label >= 10");
  }
  // A name of its own per writer: ranks sharing a cache folder may write the same file at once.
  static std::atomic<unsigned> counter{0};
  const std::string temp =
      path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot open '" + temp + "' for writing");
    for (int i = 0; i < set.count; ++i) {
      out.put(static_cast<char>(set.labels[i]));
      out.write(reinterpret_cast<const char*>(set.pixels.data()) + i * kImageBytes, kImageBytes);
    }
    out.flush();
    if (!out) {
      out.close();
      fs::remove(temp);
      throw std::runtime_error("write to '" + temp + "' failed");
    }
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) {
    fs::remove(temp);
    throw std::runtime_error("cannot rename '" + temp + "' to '" + path + "': " + ec.message());
  }
}

ImageSet ReadCifarImageFolder(const std::string& dir, bool train, Progress* progress) {
  const std::string root = dir + "/" + SplitName(train);
  if (!fs::is_directory(root)) {
    throw InputError(root, 0,
                     "no such folder, expected " + dir + "/" + SplitName(train) + "/<class>/*.jpg");
  }
  const std::vector<std::string> classes = SortedEntries(root, true);
  if (classes.empty() || classes.size() > kClasses) {
    throw InputError(
        root, 0,
        std::to_string(classes.size()) + " class folders, expected 1 to 10 (CIFAR-10 has 10)");
  }
  ImageSet set = EmptyCifarSet(static_cast<int>(classes.size()));
  for (size_t label = 0; label < classes.size(); ++label) {
    const std::string class_dir = root + "/" + classes[label];
    if (!SortedEntries(class_dir, true).empty()) {
      throw InputError(class_dir, 0, "holds a sub-folder; expected only the class's *.jpg files");
    }
    int images = 0;
    for (const std::string& file : SortedEntries(class_dir, false)) {
      if (!IsJpegName(file)) continue;
      const std::string path = class_dir + "/" + file;
      std::string why = AppendJpeg(ReadWholeFile(path), static_cast<int>(label), &set);
      if (!why.empty()) throw InputError(path, 0, why);
      ++images;
      ReportDecoded(progress, set, root);
    }
    if (images == 0) throw InputError(class_dir, 0, "class folder without *.jpg images");
  }
  if (progress != nullptr) {
    progress->Final("decoded " + std::to_string(set.count) + " images of " + root);
  }
  return set;
}

ImageSet ReadCifarArchive(const std::string& tar_gz_path, bool train, Progress* progress) {
  const std::string prefix = std::string(SplitName(train)) + "/";
  struct Member {
    std::string file;
    uint64_t header_offset;
    int slot;  // in `decoded`, archive order
  };
  std::map<std::string, std::vector<Member>> classes;  // sorted by class name
  ImageSet decoded = EmptyCifarSet(kClasses);
  TarReader reader(tar_gz_path);
  TarMember member;
  while (reader.Next(&member)) {
    if (member.name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = member.name.substr(prefix.size());
    const size_t slash = rest.find('/');
    if (slash == std::string::npos) {  // the class folder itself, or a file beside the classes
      if (member.kind == TarMember::Kind::kDirectory) classes[rest];
      continue;
    }
    const std::string class_name = rest.substr(0, slash);
    const std::string file = rest.substr(slash + 1);
    if (file.find('/') != std::string::npos) {
      reader.Fail(member.header_offset, "member '" + member.name + "': expected " + prefix +
                                            "<class>/<image>.jpg, found a deeper path");
    }
    if (member.kind == TarMember::Kind::kDirectory) {
      reader.Fail(member.header_offset, "member '" + member.name + "': expected " + prefix +
                                            "<class>/<image>.jpg, found a sub-folder");
    }
    if (!IsJpegName(file)) continue;
    const std::string jpeg = reader.ReadData(kMaxJpegBytes);
    const int slot = decoded.count;
    std::string why = AppendJpeg(jpeg, 0, &decoded);
    if (!why.empty()) reader.Fail(member.data_offset, "member '" + member.name + "': " + why);
    classes[class_name].push_back({file, member.header_offset, slot});
    ReportDecoded(progress, decoded, tar_gz_path + " (" + prefix + ")");
  }
  if (classes.empty() || classes.size() > kClasses) {
    throw InputError(tar_gz_path, 0,
                     std::to_string(classes.size()) + " class folders under " + prefix +
                         ", expected 1 to 10 (CIFAR-10 has 10)");
  }
  ImageSet set = EmptyCifarSet(static_cast<int>(classes.size()));
  set.pixels.resize(decoded.pixels.size());
  int label = 0;
  for (auto& [class_name, members] : classes) {
    if (members.empty()) {
      throw InputError(tar_gz_path, 0,
                       "class folder " + prefix + class_name + " without *.jpg images");
    }
    // Stable: of two equal names the later member comes second and is reported.
    std::stable_sort(members.begin(), members.end(),
                     [](const Member& a, const Member& b) { return a.file < b.file; });
    for (size_t i = 0; i < members.size(); ++i) {
      if (i > 0 && members[i].file == members[i - 1].file) {
        reader.Fail(members[i].header_offset,
                    "member '" + prefix + class_name + "/" + members[i].file + "' appears twice");
      }
      std::copy_n(decoded.pixels.begin() + static_cast<size_t>(members[i].slot) * kImageBytes,
                  kImageBytes, set.pixels.begin() + static_cast<size_t>(set.count) * kImageBytes);
      set.labels.push_back(static_cast<uint8_t>(label));
      ++set.count;
    }
    ++label;
  }
  if (progress != nullptr) {
    progress->Final("decoded " + std::to_string(set.count) + " images of " + tar_gz_path + " (" +
                    prefix + ")");
  }
  return set;
}

ImageSet LoadCifar10(const std::string& source, bool train, const std::string& cache_dir,
                     Progress* progress) {
  std::error_code ec;
  const fs::file_status status = fs::status(source, ec);
  if (!fs::exists(status)) throw InputError(source, 0, "no such file or folder");
  const bool is_folder = fs::is_directory(status);
  if (is_folder) {
    for (const std::string& dir : {source, source + "/cifar-10-batches-bin"}) {
      if (fs::exists(dir + "/data_batch_1.bin") || fs::exists(dir + "/test_batch.bin")) {
        return ReadCifarBinaryBatches(BatchPaths(dir, train));
      }
    }
    if (!fs::is_directory(source + "/train") && !fs::is_directory(source + "/test")) {
      throw InputError(source, 0,
                       "expected CIFAR-10 binary batches (data_batch_1.bin .. data_batch_5.bin, "
                       "test_batch.bin) or an ImageFolder (train/<class>/*.jpg, "
                       "test/<class>/*.jpg)");
    }
  }
  std::string cache_path;
  if (!cache_dir.empty()) {
    cache_path =
        cache_dir + "/" + SplitName(train) + "-" + SourceKey(source, is_folder, train) + ".bin";
    if (fs::exists(cache_path)) {
      ImageSet set = ReadCifarBinaryBatches({cache_path});
      if (progress != nullptr) {
        progress->Final("read " + std::to_string(set.count) + " cached images from " + cache_path);
      }
      return set;
    }
  }
  ImageSet set = is_folder ? ReadCifarImageFolder(source, train, progress)
                           : ReadCifarArchive(source, train, progress);
  if (set.classes != kClasses) {
    throw InputError(
        source, 0,
        std::to_string(set.classes) + " classes under " + SplitName(train) + "/, CIFAR-10 has 10");
  }
  if (!cache_path.empty()) {
    MakeDirectories(cache_dir);
    WriteCifarBinaryBatch(set, cache_path);
  }
  return set;
}

void AugmentCifarBatch(const ImageSet& set, const std::vector<int64_t>& indices, int pad, bool flip,
                       uint64_t seed, std::vector<uint8_t>* out) {
  if (pad < 0) throw std::invalid_argument("AugmentCifarBatch: negative pad");
  const int channels = set.channels;
  const int height = set.height;
  const int width = set.width;
  const size_t sample_bytes = static_cast<size_t>(channels) * height * width;
  for (int64_t index : indices) {
    if (index < 0 || index >= set.count) {
      throw std::invalid_argument("AugmentCifarBatch: index " + std::to_string(index) +
                                  " outside [0, " + std::to_string(set.count) + ")");
    }
  }
  out->resize(indices.size() * sample_bytes);
  Rng rng(seed);
  const uint64_t offsets = 2 * static_cast<uint64_t>(pad) + 1;
  for (size_t i = 0; i < indices.size(); ++i) {
    const int dy = static_cast<int>(rng.UniformInt(offsets)) - pad;
    const int dx = static_cast<int>(rng.UniformInt(offsets)) - pad;
    const bool mirror = rng.UniformInt(2) == 1 && flip;
    const uint8_t* source = set.pixels.data() + static_cast<size_t>(indices[i]) * sample_bytes;
    uint8_t* target = out->data() + i * sample_bytes;
    for (int c = 0; c < channels; ++c) {
      for (int y = 0; y < height; ++y) {
        uint8_t* row = target + (static_cast<size_t>(c) * height + y) * width;
        const int source_y = y + dy;
        if (source_y < 0 || source_y >= height) {
          std::fill_n(row, width, 0);
          continue;
        }
        const uint8_t* source_row = source + (static_cast<size_t>(c) * height + source_y) * width;
        for (int x = 0; x < width; ++x) {
          const int source_x = (mirror ? width - 1 - x : x) + dx;
          row[x] = (source_x >= 0 && source_x < width) ? source_row[source_x] : 0;
        }
      }
    }
  }
}

}  // namespace jigsaw
