#include "runtime/cifar10.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "core/error.h"
#include "core/rng.h"

// jpeglib.h needs size_t and FILE declared first.
// clang-format off
#include <cstdio>
#include <jpeglib.h>
// clang-format on

namespace jigsaw {
namespace {

namespace fs = std::filesystem;

constexpr size_t kImageBytes = 3072;

// A fresh, empty folder per test.
std::string TempDir(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("jigsaw_cifar10_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteGzip(const std::string& path, const std::string& bytes) {
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  gzclose(file);
}

std::string Record(int label, int seed) {
  std::string record(1, static_cast<char>(label));
  for (size_t p = 0; p < kImageBytes; ++p) record += static_cast<char>((seed * 31 + p * 7) % 256);
  return record;
}

// --- JPEG encoding -------------------------------------------------------------------------------

struct Colour {
  int r, g, b;
};

// A flat width x height image, grayscale (components = 1, value r) or RGB, at quality 100.
std::string EncodeJpeg(Colour colour, int width = 32, int height = 32, int components = 3) {
  jpeg_compress_struct cinfo;
  jpeg_error_mgr error;
  cinfo.err = jpeg_std_error(&error);
  jpeg_create_compress(&cinfo);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&cinfo, &buffer, &size);
  cinfo.image_width = width;
  cinfo.image_height = height;
  cinfo.input_components = components;
  cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, 100, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  std::vector<unsigned char> row(static_cast<size_t>(width) * components);
  for (int x = 0; x < width; ++x) {
    if (components == 1) {
      row[x] = colour.r;
    } else {
      row[x * 3] = colour.r;
      row[x * 3 + 1] = colour.g;
      row[x * 3 + 2] = colour.b;
    }
  }
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW pointer = row.data();
    jpeg_write_scanlines(&cinfo, &pointer, 1);
  }
  jpeg_finish_compress(&cinfo);
  std::string jpeg(reinterpret_cast<char*>(buffer), size);
  jpeg_destroy_compress(&cinfo);
  std::free(buffer);
  return jpeg;
}

// Image `i` of `set` is flat `colour` (within JPEG rounding), channel-major.
void ExpectFlat(const ImageSet& set, int i, Colour colour) {
  const int expected[3] = {colour.r, colour.g, colour.b};
  for (int c = 0; c < 3; ++c) {
    for (int p = 0; p < 1024; ++p) {
      const int value = set.pixels[i * kImageBytes + c * 1024 + p];
      ASSERT_NEAR(value, expected[c], 3) << "image " << i << " channel " << c << " pixel " << p;
    }
  }
}

// --- tar building --------------------------------------------------------------------------------

// Recomputes the checksum of the header at `offset` after an edit.
void FixChecksum(std::string* tar, size_t offset) {
  tar->replace(offset + 148, 8, "        ");
  unsigned sum = 0;
  for (size_t i = 0; i < 512; ++i) sum += static_cast<unsigned char>((*tar)[offset + i]);
  char digits[8];
  std::snprintf(digits, sizeof(digits), "%06o", sum);
  tar->replace(offset + 148, 7, digits, 7);  // six digits and a NUL, then a space
}

std::string TarHeader(const std::string& name, char type, size_t size,
                      const std::string& prefix = "") {
  std::string header(512, '\0');
  header.replace(0, std::min<size_t>(name.size(), 100), name.substr(0, 100));
  header.replace(100, 8, "0000644", 8);
  header.replace(108, 8, "0000000", 8);
  header.replace(116, 8, "0000000", 8);
  char number[16];
  std::snprintf(number, sizeof(number), "%011zo", size);
  header.replace(124, 12, number, 12);
  header.replace(136, 12, "00000000000", 12);
  header[156] = type;
  header.replace(257, 8,
                 std::string("ustar\0"
                             "00",
                             8));
  header.replace(345, prefix.size(), prefix);
  FixChecksum(&header, 0);
  return header;
}

std::string TarMember(const std::string& name, char type, const std::string& data,
                      const std::string& prefix = "") {
  std::string padding((512 - data.size() % 512) % 512, '\0');
  return TarHeader(name, type, data.size(), prefix) + data + padding;
}

std::string TarFile(const std::string& name, const std::string& data) {
  return TarMember(name, '0', data);
}

std::string TarEnd() { return std::string(1024, '\0'); }

std::string PaxPathRecord(const std::string& path) {
  const std::string body = " path=" + path + "\n";
  size_t length = body.size() + 1;
  while (std::to_string(length).size() + body.size() != length) ++length;
  return std::to_string(length) + body;
}

const Colour kColours[] = {{200, 40, 90},  {20, 220, 60},  {90, 90, 240}, {250, 250, 10},
                           {60, 130, 200}, {130, 10, 160}, {10, 180, 180}};

std::string ErrorOf(const std::function<void()>& body) {
  try {
    body();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

#define EXPECT_CONTAINS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

// --- binary batches ------------------------------------------------------------------------------

TEST(RuntimeCifar10, BinaryBatchesRoundTrip) {
  const std::string dir = TempDir("binary");
  const std::string first = Record(3, 1) + Record(0, 2);
  const std::string second = Record(9, 3);
  WriteFile(dir + "/a.bin", first);
  WriteFile(dir + "/b.bin", second);
  ImageSet set = ReadCifarBinaryBatches({dir + "/a.bin", dir + "/b.bin"});
  EXPECT_EQ(set.count, 3);
  EXPECT_EQ(set.channels, 3);
  EXPECT_EQ(set.height, 32);
  EXPECT_EQ(set.width, 32);
  EXPECT_EQ(set.classes, 10);
  EXPECT_EQ(set.labels, (std::vector<uint8_t>{3, 0, 9}));
  const std::string all = first + second;
  ASSERT_EQ(set.pixels.size(), 3 * kImageBytes);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(std::string(set.pixels.begin() + i * kImageBytes,
                          set.pixels.begin() + (i + 1) * kImageBytes),
              all.substr(i * 3073 + 1, kImageBytes));
  }
  WriteCifarBinaryBatch(set, dir + "/written.bin");
  EXPECT_EQ(ReadFile(dir + "/written.bin"), all);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 3)
      << "no temporary file left behind";
  fs::remove_all(dir);
}

TEST(RuntimeCifar10, MalformedBinaryBatchesNameFileAndByte) {
  const std::string dir = TempDir("binary_bad");
  auto error_of = [](const std::string& path) {
    return ErrorOf([&] { ReadCifarBinaryBatches({path}); });
  };
  WriteFile(dir + "/empty.bin", "");
  EXPECT_EQ(error_of(dir + "/empty.bin"),
            dir + "/empty.bin: byte 0: empty file, expected 3073-byte CIFAR-10 records");
  WriteFile(dir + "/short.bin", Record(1, 1) + Record(2, 2) + std::string(100, 'x'));
  EXPECT_EQ(error_of(dir + "/short.bin"),
            dir +
                "/short.bin: byte 6146: truncated record: 100 of 3073 bytes (the file size 6246 "
                "is not a multiple of 3073)");
  WriteFile(dir + "/label.bin", Record(1, 1) + Record(10, 2));
  EXPECT_EQ(error_of(dir + "/label.bin"), dir + "/label.bin: byte 3073: label 10 outside [0, 10)");
  EXPECT_CONTAINS(error_of(dir + "/missing.bin"), dir + "/missing.bin: cannot open the file");
  EXPECT_CONTAINS(error_of(dir), dir + ": cannot read the file");
  fs::remove_all(dir);
}

// --- ImageFolder ---------------------------------------------------------------------------------

TEST(RuntimeCifar10, ImageFolderDecodesClassesAndFilesInSortedOrder) {
  const std::string dir = TempDir("folder");
  WriteFile(dir + "/train/cat/b.jpg", EncodeJpeg(kColours[0]));
  WriteFile(dir + "/train/cat/a.JPG", EncodeJpeg(kColours[1]));
  WriteFile(dir + "/train/cat/notes.txt", "not an image");
  WriteFile(dir + "/train/airplane/z.jpeg", EncodeJpeg({77, 0, 0}, 32, 32, 1));  // grayscale
  WriteFile(dir + "/train/airplane/y.jpg", EncodeJpeg(kColours[2]));
  WriteFile(dir + "/train/README", "ignored beside the class folders");
  WriteFile(dir + "/test/dog/0.jpg", EncodeJpeg(kColours[3]));

  ImageSet train = ReadCifarImageFolder(dir, true);
  EXPECT_EQ(train.count, 4);
  EXPECT_EQ(train.classes, 2);
  EXPECT_EQ(train.channels, 3);
  EXPECT_EQ(train.height, 32);
  EXPECT_EQ(train.width, 32);
  EXPECT_EQ(train.labels, (std::vector<uint8_t>{0, 0, 1, 1}));
  ASSERT_EQ(train.pixels.size(), 4 * kImageBytes);
  ExpectFlat(train, 0, kColours[2]);   // airplane/y.jpg
  ExpectFlat(train, 1, {77, 77, 77});  // airplane/z.jpeg
  ExpectFlat(train, 2, kColours[1]);   // cat/a.JPG
  ExpectFlat(train, 3, kColours[0]);   // cat/b.jpg

  ImageSet test = ReadCifarImageFolder(dir, false);
  EXPECT_EQ(test.count, 1);
  EXPECT_EQ(test.classes, 1);
  ExpectFlat(test, 0, kColours[3]);
  fs::remove_all(dir);
}

TEST(RuntimeCifar10, ImageFolderErrorsNameTheFile) {
  const std::string dir = TempDir("folder_bad");
  auto error_of = [&] { return ErrorOf([&] { ReadCifarImageFolder(dir, true); }); };
  EXPECT_CONTAINS(error_of(), dir + "/train: no such folder");

  WriteFile(dir + "/train/cat/a.jpg", EncodeJpeg(kColours[0], 48, 40));
  EXPECT_EQ(error_of(), dir + "/train/cat/a.jpg: JPEG is 48x40 pixels, expected 32x32");
  const std::string jpeg = EncodeJpeg(kColours[0]);
  WriteFile(dir + "/train/cat/a.jpg", jpeg.substr(0, jpeg.size() / 2));
  EXPECT_CONTAINS(error_of(), dir + "/train/cat/a.jpg: corrupt JPEG data: ");
  WriteFile(dir + "/train/cat/a.jpg", "GIF89a, not a JPEG");
  EXPECT_CONTAINS(error_of(), dir + "/train/cat/a.jpg: corrupt JPEG data: ");
  WriteFile(dir + "/train/cat/a.jpg", "");
  EXPECT_EQ(error_of(), dir + "/train/cat/a.jpg: empty file, expected JPEG data");

  WriteFile(dir + "/train/cat/a.jpg", jpeg);
  fs::create_directories(dir + "/train/dog");
  EXPECT_EQ(error_of(), dir + "/train/dog: class folder without *.jpg images");
  WriteFile(dir + "/train/dog/deeper/a.jpg", jpeg);
  EXPECT_CONTAINS(error_of(), dir + "/train/dog: holds a sub-folder");
  fs::remove_all(dir + "/train/dog");
  EXPECT_EQ(error_of(), "no error");
  for (int k = 0; k < 10; ++k) WriteFile(dir + "/train/c" + std::to_string(k) + "/a.jpg", jpeg);
  EXPECT_EQ(error_of(), dir + "/train: 11 class folders, expected 1 to 10 (CIFAR-10 has 10)");
  fs::remove_all(dir);
}

// --- tar archives --------------------------------------------------------------------------------

TEST(RuntimeCifar10, ArchiveReadsSplitMembersInSortedOrder) {
  const std::string dir = TempDir("archive");
  const std::string long_dir = "train/" + std::string(120, 'w') + "/";
  std::string tar =
      TarMember("./", '5', "") + TarMember("train/", '5', "") + TarMember("train/dog/", '5', "") +
      TarFile("train/dog/b.jpg", EncodeJpeg(kColours[0])) +
      TarFile("test/dog/a.jpg", EncodeJpeg(kColours[6])) +
      // ustar prefix field: "train" + "cat/c.jpg"
      TarMember("cat/c.jpg", '0', EncodeJpeg(kColours[1]), "train") +
      TarFile("./train/dog/a.jpg", EncodeJpeg(kColours[2])) +
      TarFile("train/dog/readme.txt", "ignored") + TarMember("train/dog/link.jpg", '2', "") +
      // GNU long name, then a pax path, each for the member after it
      TarMember("././@LongLink", 'L', long_dir + "x.jpg" + '\0') +
      TarFile("train/truncated-name.jpg", EncodeJpeg(kColours[3])) +
      TarMember("PaxHeaders/1", 'x', PaxPathRecord("train/cat/a.jpg")) +
      TarFile("train/ignored-name.jpg", EncodeJpeg(kColours[4])) + TarEnd();
  WriteGzip(dir + "/set.tar.gz", tar);
  WriteFile(dir + "/set.tar", tar);
  for (const char* name : {"/set.tar.gz", "/set.tar"}) {
    SCOPED_TRACE(name);
    ImageSet train = ReadCifarArchive(dir + name, true);
    EXPECT_EQ(train.count, 5);
    EXPECT_EQ(train.classes, 3);  // cat, dog, www...
    EXPECT_EQ(train.labels, (std::vector<uint8_t>{0, 0, 1, 1, 2}));
    ExpectFlat(train, 0, kColours[4]);  // cat/a.jpg (pax)
    ExpectFlat(train, 1, kColours[1]);  // cat/c.jpg (prefix)
    ExpectFlat(train, 2, kColours[2]);  // dog/a.jpg
    ExpectFlat(train, 3, kColours[0]);  // dog/b.jpg
    ExpectFlat(train, 4, kColours[3]);  // www.../x.jpg (long name)
    ImageSet test = ReadCifarArchive(dir + name, false);
    EXPECT_EQ(test.count, 1);
    ExpectFlat(test, 0, kColours[6]);
  }
  fs::remove_all(dir);
}

TEST(RuntimeCifar10, CorruptArchivesGiveClearErrors) {
  const std::string dir = TempDir("archive_bad");
  const std::string jpeg = EncodeJpeg(kColours[0]);
  const std::string good = TarFile("train/cat/a.jpg", jpeg) + TarFile("train/cat/b.jpg", jpeg);
  auto error_of = [&](const std::string& tar) {
    const std::string path = dir + "/x.tar.gz";
    WriteGzip(path, tar);
    return ErrorOf([&] { ReadCifarArchive(path, true); });
  };
  const std::string path = dir + "/x.tar.gz";
  EXPECT_EQ(error_of(good + TarEnd()), "no error");

  const std::string jpeg_size = std::to_string(jpeg.size());
  const size_t second_data = good.size() / 2 + 512;
  EXPECT_EQ(error_of(good.substr(0, second_data + 100)),
            path + ": byte " + std::to_string(second_data) +
                ": truncated archive: member 'train/cat/b.jpg' announces " + jpeg_size +
                " data bytes, only 100 present");
  EXPECT_EQ(error_of(good.substr(0, good.size() / 2 + 300)),
            path + ": byte " + std::to_string(good.size() / 2) +
                ": truncated archive: a header of 300 of 512 bytes");
  EXPECT_EQ(error_of(good), path + ": byte " + std::to_string(good.size()) +
                                ": truncated archive: it ends without the end-of-archive marker");

  std::string bad_checksum = good + TarEnd();
  bad_checksum[good.size() / 2 + 20] = 'q';
  EXPECT_EQ(error_of(bad_checksum), path + ": byte " + std::to_string(good.size() / 2) +
                                        ": header checksum mismatch (corrupt archive or not a "
                                        "tar file)");
  EXPECT_EQ(error_of(std::string(700, 'z')),
            path +
                ": byte 0: checksum field 'zzzzzzzz' is not an octal number (corrupt archive "
                "or not a tar file)");
  EXPECT_EQ(error_of(TarFile("train/../cat/a.jpg", jpeg) + TarEnd()),
            path + ": byte 0: member name 'train/../cat/a.jpg' contains '..'");
  EXPECT_EQ(error_of(TarFile("/train/cat/a.jpg", jpeg) + TarEnd()),
            path + ": byte 0: member name '/train/cat/a.jpg' is empty or absolute");

  // A size field far beyond the data: refused for an image, never allocated.
  std::string huge = TarHeader("train/cat/a.jpg", '0', 0) + jpeg + TarEnd();
  huge.replace(124, 11, "77777777777");
  FixChecksum(&huge, 0);
  EXPECT_EQ(error_of(huge), path +
                                ": byte 512: member 'train/cat/a.jpg' is 8589934591 bytes, "
                                "more than the 16777216 expected");
  huge.replace(0, 15, "train/cat/a.txt");  // not an image: skipped, which finds the truncation
  FixChecksum(&huge, 0);
  EXPECT_CONTAINS(error_of(huge), path +
                                      ": byte 512: truncated archive: member "
                                      "'train/cat/a.txt' announces 8589934591 data bytes");

  std::string bad_jpeg = jpeg;
  bad_jpeg.replace(bad_jpeg.size() / 2, 200, 200, '\xff');
  EXPECT_CONTAINS(error_of(TarFile("train/cat/a.jpg", bad_jpeg) + TarEnd()),
                  path + ": byte 512: member 'train/cat/a.jpg': corrupt JPEG data: ");
  EXPECT_EQ(error_of(TarFile("train/cat/deeper/a.jpg", jpeg) + TarEnd()),
            path +
                ": byte 0: member 'train/cat/deeper/a.jpg': expected train/<class>/<image>.jpg"
                ", found a deeper path");
  EXPECT_EQ(
      error_of(good + TarFile("train/cat/a.jpg", jpeg) + TarEnd()),
      path + ": byte " + std::to_string(good.size()) + ": member 'train/cat/a.jpg' appears twice");
  EXPECT_EQ(error_of(TarFile("test/cat/a.jpg", jpeg) + TarEnd()),
            path + ": 0 class folders under train/, expected 1 to 10 (CIFAR-10 has 10)");
  EXPECT_EQ(error_of(TarMember("train/dog/", '5', "") + good + TarEnd()),
            path + ": class folder train/dog without *.jpg images");

  // The compressed file itself cut short.
  WriteGzip(path, good + TarEnd());
  const std::string compressed = ReadFile(path);
  WriteFile(path, compressed.substr(0, compressed.size() - 30));
  EXPECT_CONTAINS(ErrorOf([&] { ReadCifarArchive(path, true); }),
                  ": corrupt or truncated gzip data: ");
  EXPECT_CONTAINS(ErrorOf([&] { ReadCifarArchive(dir + "/missing.tar.gz", true); }),
                  dir + "/missing.tar.gz: cannot open the file");
  fs::remove_all(dir);
}

// --- LoadCifar10 ---------------------------------------------------------------------------------

const char* const kClassNames[] = {"airplane", "automobile", "bird",  "cat",  "deer",
                                   "dog",      "frog",       "horse", "ship", "truck"};

// One flat image per class and split; class k is colour (20 k, 255 - 20 k, 100) in train and
// (20 k, 100, 255 - 20 k) in test.
Colour ClassColour(int k, bool train) {
  return train ? Colour{20 * k, 255 - 20 * k, 100} : Colour{20 * k, 100, 255 - 20 * k};
}

void ExpectTenClasses(const ImageSet& set, bool train) {
  ASSERT_EQ(set.count, 10);
  EXPECT_EQ(set.classes, 10);
  for (int k = 0; k < 10; ++k) {
    EXPECT_EQ(set.labels[k], k);
    ExpectFlat(set, k, ClassColour(k, train));
  }
}

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Overwrites `path` with garbage of the same size and restores its modification time, so only
// a cache keyed on size + time can still answer.
void CorruptKeepingSizeAndTime(const std::string& path) {
  const auto time = fs::last_write_time(path);
  const auto size = fs::file_size(path);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << std::string(size, '\x55');
  fs::last_write_time(path, time);
}

TEST(RuntimeCifar10, LoadCifar10FromBinaryBatches) {
  const std::string dir = TempDir("load_binary");
  for (int i = 1; i <= 5; ++i) {
    WriteFile(dir + "/cifar-10-batches-bin/data_batch_" + std::to_string(i) + ".bin",
              Record(i, i) + Record(0, 10 + i));
  }
  WriteFile(dir + "/cifar-10-batches-bin/test_batch.bin", Record(7, 99));
  ImageSet train = LoadCifar10(dir, true, dir + "/cache");
  EXPECT_EQ(train.count, 10);
  EXPECT_EQ(train.labels, (std::vector<uint8_t>{1, 0, 2, 0, 3, 0, 4, 0, 5, 0}));
  ImageSet test = LoadCifar10(dir + "/cifar-10-batches-bin", false, "");
  EXPECT_EQ(test.count, 1);
  EXPECT_EQ(test.labels[0], 7);
  EXPECT_FALSE(fs::exists(dir + "/cache")) << "binary batches need no cache";
  fs::remove(dir + "/cifar-10-batches-bin/data_batch_4.bin");
  EXPECT_CONTAINS(ErrorOf([&] { LoadCifar10(dir, true, ""); }),
                  "data_batch_4.bin: cannot open the file");
  EXPECT_EQ(ErrorOf([&] { LoadCifar10(dir + "/nothing", true, ""); }),
            dir + "/nothing: no such file or folder");
  fs::create_directories(dir + "/empty");
  EXPECT_CONTAINS(ErrorOf([&] { LoadCifar10(dir + "/empty", true, ""); }),
                  dir + "/empty: expected CIFAR-10 binary batches");
  fs::remove_all(dir);
}

TEST(RuntimeCifar10, LoadCifar10CachesADecodedFolder) {
  const std::string dir = TempDir("load_folder");
  const std::string source = dir + "/cifar10";
  const std::string cache = dir + "/cache";
  for (int k = 0; k < 10; ++k) {
    for (bool train : {true, false}) {
      WriteFile(source + (train ? "/train/" : "/test/") + kClassNames[k] + "/0000.jpg",
                EncodeJpeg(ClassColour(k, train)));
    }
  }
  ExpectTenClasses(LoadCifar10(source, true, cache), true);
  const std::vector<std::string> cached = FilesIn(cache);
  ASSERT_EQ(cached.size(), 1u);
  EXPECT_EQ(cached[0].substr(0, 6), "train-");
  EXPECT_EQ(fs::file_size(cache + "/" + cached[0]), 10u * 3073);

  const std::string image = source + "/train/cat/0000.jpg";
  CorruptKeepingSizeAndTime(image);
  ExpectTenClasses(LoadCifar10(source, true, cache), true);  // from the cache
  ExpectTenClasses(LoadCifar10(source, false, cache), false);
  EXPECT_EQ(FilesIn(cache).size(), 2u);
  EXPECT_CONTAINS(ErrorOf([&] { LoadCifar10(source, true, ""); }), image + ": corrupt JPEG");
  fs::last_write_time(image, fs::last_write_time(image) + std::chrono::seconds(1));
  EXPECT_CONTAINS(ErrorOf([&] { LoadCifar10(source, true, cache); }), image + ": corrupt JPEG")
      << "a changed source must not be answered from the cache";

  fs::remove_all(source + "/test/truck");
  EXPECT_EQ(ErrorOf([&] { LoadCifar10(source, false, cache); }),
            source + ": 9 classes under test/, CIFAR-10 has 10");
  fs::remove_all(dir);
}

TEST(RuntimeCifar10, LoadCifar10CachesADecodedArchive) {
  const std::string dir = TempDir("load_archive");
  const std::string archive = dir + "/cifar10.tar.gz";
  const std::string cache = dir + "/cache/nested";
  std::string tar;
  for (bool train : {true, false}) {
    for (int k = 9; k >= 0; --k) {  // reverse order: the reader sorts
      tar += TarFile(std::string(train ? "train/" : "test/") + kClassNames[k] + "/0.jpg",
                     EncodeJpeg(ClassColour(k, train)));
    }
  }
  WriteGzip(archive, tar + TarEnd());
  ExpectTenClasses(LoadCifar10(archive, false, cache), false);
  ASSERT_EQ(FilesIn(cache).size(), 1u);
  EXPECT_EQ(FilesIn(cache)[0].substr(0, 5), "test-");

  CorruptKeepingSizeAndTime(archive);
  ExpectTenClasses(LoadCifar10(archive, false, cache), false);  // from the cache
  EXPECT_CONTAINS(ErrorOf([&] { LoadCifar10(archive, true, cache); }), archive + ": byte 0: ")
      << "the train split was never cached";
  fs::remove(archive);
  EXPECT_EQ(ErrorOf([&] { LoadCifar10(archive, false, cache); }),
            archive + ": no such file or folder");
  fs::remove_all(dir);
}

// --- augmentation --------------------------------------------------------------------------------

ImageSet RandomSet(int count, uint64_t seed) {
  ImageSet set;
  set.count = count;
  set.channels = 3;
  set.height = 32;
  set.width = 32;
  Rng rng(seed);
  set.pixels.resize(count * kImageBytes);
  for (uint8_t& p : set.pixels) p = static_cast<uint8_t>(1 + rng.UniformInt(255));  // never 0
  set.labels.assign(count, 0);
  return set;
}

// Sample `index` cropped at (dy, dx) of the image padded by `pad`, then mirrored if asked.
std::vector<uint8_t> Reference(const ImageSet& set, int index, int pad, int dy, int dx,
                               bool mirror) {
  std::vector<uint8_t> out(kImageBytes);
  for (int c = 0; c < 3; ++c) {
    for (int y = 0; y < 32; ++y) {
      for (int x = 0; x < 32; ++x) {
        const int cx = mirror ? 31 - x : x;
        const int sy = y + dy - pad;
        const int sx = cx + dx - pad;
        const bool inside = sy >= 0 && sy < 32 && sx >= 0 && sx < 32;
        out[(c * 32 + y) * 32 + x] =
            inside ? set.pixels[index * kImageBytes + (c * 32 + sy) * 32 + sx] : 0;
      }
    }
  }
  return out;
}

std::vector<uint8_t> Sample(const std::vector<uint8_t>& batch, size_t i) {
  return std::vector<uint8_t>(batch.begin() + i * kImageBytes,
                              batch.begin() + (i + 1) * kImageBytes);
}

TEST(RuntimeCifar10, AugmentWithoutPadOrFlipIsTheIdentity) {
  const ImageSet set = RandomSet(3, 1);
  std::vector<uint8_t> out;
  AugmentCifarBatch(set, {2, 0, 2}, 0, false, 42, &out);
  ASSERT_EQ(out.size(), 3 * kImageBytes);
  EXPECT_EQ(Sample(out, 0), Reference(set, 2, 0, 0, 0, false));
  EXPECT_EQ(Sample(out, 1), Reference(set, 0, 0, 0, 0, false));
  EXPECT_EQ(Sample(out, 2), Reference(set, 2, 0, 0, 0, false));
  AugmentCifarBatch(set, {}, 4, true, 42, &out);
  EXPECT_TRUE(out.empty());
  EXPECT_THROW(AugmentCifarBatch(set, {3}, 0, false, 1, &out), std::invalid_argument);
  EXPECT_THROW(AugmentCifarBatch(set, {-1}, 0, false, 1, &out), std::invalid_argument);
  EXPECT_THROW(AugmentCifarBatch(set, {0}, -1, false, 1, &out), std::invalid_argument);
}

TEST(RuntimeCifar10, AugmentFlipMirrorsHalfTheSamples) {
  const ImageSet set = RandomSet(1, 2);
  std::vector<uint8_t> out;
  const std::vector<int64_t> indices(64, 0);
  AugmentCifarBatch(set, indices, 0, true, 7, &out);
  const std::vector<uint8_t> plain = Reference(set, 0, 0, 0, 0, false);
  const std::vector<uint8_t> mirrored = Reference(set, 0, 0, 0, 0, true);
  ASSERT_NE(plain, mirrored);
  int flipped = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const std::vector<uint8_t> sample = Sample(out, i);
    ASSERT_TRUE(sample == plain || sample == mirrored) << "sample " << i;
    flipped += sample == mirrored;
  }
  EXPECT_GT(flipped, 10);
  EXPECT_LT(flipped, 54);
}

TEST(RuntimeCifar10, AugmentCropsStayInsideThePaddedImageAndAreSeeded) {
  const int pad = 2;
  const ImageSet set = RandomSet(5, 3);
  std::vector<int64_t> indices;
  for (int i = 0; i < 500; ++i) indices.push_back(i % 5);
  std::vector<uint8_t> out;
  AugmentCifarBatch(set, indices, pad, true, 11, &out);
  std::set<std::pair<int, int>> offsets_seen;
  int mirrored = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const std::vector<uint8_t> sample = Sample(out, i);
    bool matched = false;
    for (int dy = 0; dy <= 2 * pad && !matched; ++dy) {
      for (int dx = 0; dx <= 2 * pad && !matched; ++dx) {
        for (bool mirror : {false, true}) {
          if (sample == Reference(set, static_cast<int>(indices[i]), pad, dy, dx, mirror)) {
            matched = true;
            offsets_seen.insert({dy, dx});
            mirrored += mirror;
            break;
          }
        }
      }
    }
    ASSERT_TRUE(matched) << "sample " << i << " is no crop of the padded image";
  }
  EXPECT_EQ(offsets_seen.size(), 25u) << "every offset in [0, 2 pad]^2 occurs";
  EXPECT_GT(mirrored, 150);
  EXPECT_LT(mirrored, 350);

  std::vector<uint8_t> again;
  AugmentCifarBatch(set, indices, pad, true, 11, &again);
  EXPECT_EQ(again, out);
  AugmentCifarBatch(set, indices, pad, true, 12, &again);
  EXPECT_NE(again, out);
  // The crops do not depend on the flip switch: without it, the same unmirrored crops.
  AugmentCifarBatch(set, indices, pad, false, 11, &again);
  for (size_t i = 0; i < 20; ++i) {
    const std::vector<uint8_t> sample = Sample(again, i);
    const std::vector<uint8_t> augmented = Sample(out, i);
    bool consistent = false;
    for (int dy = 0; dy <= 2 * pad; ++dy) {
      for (int dx = 0; dx <= 2 * pad; ++dx) {
        const int index = static_cast<int>(indices[i]);
        if (sample == Reference(set, index, pad, dy, dx, false)) {
          consistent = augmented == sample || augmented == Reference(set, index, pad, dy, dx, true);
        }
      }
    }
    EXPECT_TRUE(consistent) << "sample " << i;
  }
}

// --- the real data set ---------------------------------------------------------------------------

TEST(RuntimeCifar10, RealArchiveTestSplit) {
  const std::string archive =
      std::string(JIGSAW_SHARED_DATA) + "/datasets/cifar10/cifar10-jpeg.tar.gz";
  if (!fs::exists(archive)) GTEST_SKIP() << archive << " absent";
  ImageSet test = ReadCifarArchive(archive, false);
  EXPECT_EQ(test.count, 10000);
  EXPECT_EQ(test.classes, 10);
  ASSERT_EQ(test.pixels.size(), 10000 * kImageBytes);
  std::vector<int> per_class(10);
  for (uint8_t label : test.labels) ++per_class.at(label);
  for (int n : per_class) EXPECT_EQ(n, 1000);
  double sum = 0;
  for (uint8_t p : test.pixels) sum += p;
  const double mean = sum / test.pixels.size();
  EXPECT_GT(mean, 100) << "CIFAR-10's mean pixel is about 121";
  EXPECT_LT(mean, 140);
  EXPECT_NE(Sample(test.pixels, 0), Sample(test.pixels, 1));
}

}  // namespace
}  // namespace jigsaw
