#include "runtime/image_data.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace jigsaw {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("jigsaw_runtime_" + name + "_" + std::to_string(getpid())))
      .string();
}

std::string BigEndian(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

std::string Images(uint32_t count, uint32_t rows, uint32_t cols, size_t payload) {
  return BigEndian(0x803) + BigEndian(count) + BigEndian(rows) + BigEndian(cols) +
         std::string(payload, '\x7f');
}

std::string Labels(uint32_t count, const std::string& values) {
  return BigEndian(0x801) + BigEndian(count) + values;
}

std::string Write(const std::string& name, const std::string& bytes) {
  std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string WriteGzip(const std::string& name, const std::string& bytes) {
  std::string path = TempPath(name);
  gzFile file = gzopen(path.c_str(), "wb");
  gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(file);
  return path;
}

std::string ErrorOf(const std::string& images, const std::string& labels) {
  try {
    ReadIdxImageSet(images, labels);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(RuntimeImageData, ReadsRawAndGzippedIdx) {
  std::string labels = std::string{0, 9, 3};
  ImageSet raw = ReadIdxImageSet(Write("ok_images", Images(3, 2, 4, 24)),
                                 Write("ok_labels", Labels(3, labels)));
  EXPECT_EQ(raw.count, 3);
  EXPECT_EQ(raw.height, 2);
  EXPECT_EQ(raw.width, 4);
  EXPECT_EQ(raw.pixels.size(), 24u);
  EXPECT_EQ(raw.labels, (std::vector<uint8_t>{0, 9, 3}));
  ImageSet gz = ReadIdxImageSet(WriteGzip("ok_images.gz", Images(3, 2, 4, 24)),
                                WriteGzip("ok_labels.gz", Labels(3, labels)));
  EXPECT_EQ(gz.pixels, raw.pixels);
  EXPECT_EQ(gz.labels, raw.labels);
}

TEST(RuntimeImageData, MalformedFilesNameFileAndByte) {
  const std::string images = Write("images", Images(2, 2, 2, 8));
  const std::string labels = Write("labels", Labels(2, std::string{1, 2}));
  EXPECT_EQ(ErrorOf(images, labels), "no error");

  const std::string bad_magic = Write("bad_magic", Labels(2, std::string(8, 0)));
  EXPECT_EQ(ErrorOf(bad_magic, labels),
            bad_magic +
                ": byte 0: magic number 0x00000801, expected 0x00000803 (IDX3 "
                "unsigned-byte images)");
  const std::string short_header = Write("short_header", BigEndian(0x803) + "\x01");
  EXPECT_NE(ErrorOf(short_header, labels).find("byte 4: file ends inside the header"),
            std::string::npos);
  const std::string truncated = Write("truncated", Images(2, 2, 2, 5));
  EXPECT_EQ(ErrorOf(truncated, labels),
            truncated + ": byte 16: truncated: header announces 8 data bytes, only 5 present");
  const std::string trailing = Write("trailing", Images(2, 2, 2, 9));
  EXPECT_EQ(ErrorOf(trailing, labels), trailing + ": byte 24: 1 unexpected bytes after the data");

  const std::string few_labels = Write("few_labels", Labels(1, std::string{1}));
  EXPECT_EQ(ErrorOf(images, few_labels),
            few_labels + ": byte 8: 1 labels for the 2 images of " + images);
  const std::string bad_label = Write("bad_label", Labels(2, std::string{1, 12}));
  EXPECT_EQ(ErrorOf(images, bad_label), bad_label + ": byte 9: label 12 outside [0, 10)");
  EXPECT_NE(ErrorOf(TempPath("missing"), labels).find("cannot open"), std::string::npos);
}

TEST(RuntimeImageData, ReadsDebianFashionMnist) {
  const std::string dir = "/usr/share/datasets/fashion-mnist";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " not installed";
  ImageSet test = LoadFashionMnist(dir, false);
  EXPECT_EQ(test.count, 10000);
  EXPECT_EQ(test.height, 28);
  EXPECT_EQ(test.width, 28);
  std::vector<int> per_class(10);
  for (uint8_t label : test.labels) ++per_class[label];
  for (int n : per_class) EXPECT_EQ(n, 1000);
}

TEST(RuntimeImageData, SyntheticSetIsSeededAndSharesClassPatterns) {
  ImageSet a = MakeSyntheticImageSet(50, 6, 4, 7, 1);
  ImageSet b = MakeSyntheticImageSet(50, 6, 4, 7, 1);
  ImageSet c = MakeSyntheticImageSet(50, 6, 4, 7, 2);
  EXPECT_EQ(a.pixels, b.pixels);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_NE(a.pixels, c.pixels);
  EXPECT_EQ(a.count, 50);
  EXPECT_EQ(a.pixels.size(), 50u * 36);
  for (uint8_t label : a.labels) EXPECT_LT(label, 4);
}

}  // namespace
}  // namespace jigsaw
