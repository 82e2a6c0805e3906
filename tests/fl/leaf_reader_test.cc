#include "fl/leaf_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace jigsaw {
namespace {

std::string Image(double value) {
  std::string text = "[";
  for (int i = 0; i < 784; ++i) text += (i ? "," : "") + std::to_string(value);
  return text + "]";
}

class LeafReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("jigsaw_leaf_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  // Expects InputError naming `path` with `fragment` in its message.
  void ExpectError(const std::string& text, const std::string& fragment) {
    const std::string path = Write("bad.json", text);
    try {
      ReadLeafFile(path);
      FAIL() << "no error for: " << fragment;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_GE(e.line(), 1) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  }
  std::filesystem::path dir_;
};

TEST_F(LeafReaderTest, ReadsUsersImagesAndLabels) {
  const std::string path =
      Write("ok.json",
            "{\"users\": [\"a\", \"b\"], \"num_samples\": [2, 1],\n\"user_data\": {\"a\": "
            "{\"x\": [" +
                Image(1.0) + ", " + Image(0.5) + "], \"y\": [3, 61]},\n\"b\": {\"x\": [" +
                Image(0.0) + "], \"y\": [0]}}}");
  const std::vector<LeafUser> users = ReadLeafFile(path);
  ASSERT_EQ(users.size(), 2u);
  EXPECT_EQ(users[0].id, "a");
  EXPECT_EQ(users[0].labels, (std::vector<int>{3, 61}));
  ASSERT_EQ(users[0].pixels.size(), 2u * 784);
  EXPECT_EQ(users[0].pixels[0], 255);
  EXPECT_EQ(users[0].pixels[784], 128);
  EXPECT_EQ(users[1].pixels[0], 0);
}

TEST_F(LeafReaderTest, MalformedFilesGiveFileLineErrors) {
  ExpectError("{\"users\": [\"a\"", "expected a LEAF JSON object");
  ExpectError("[1, 2]", "expected a JSON object");
  ExpectError("{\"users\": [\"a\"], \"num_samples\": [1]}", "missing field \"user_data\"");
  ExpectError("{\"users\": [\"a\"], \"num_samples\": [1, 2], \"user_data\": {}}",
              "as long as \"users\"");
  ExpectError("{\"users\": [\"a\"], \"num_samples\": [1], \"user_data\": {}}",
              "no entry in user_data");
  ExpectError("{\"users\": [\"a\"], \"num_samples\": [2], \"user_data\": {\"a\": {\"x\": [" +
                  Image(1) + "], \"y\": [1]}}}",
              "num_samples says 2 but x has 1");
  ExpectError(
      "{\"users\": [\"a\"], \"num_samples\": [1], \"user_data\": {\"a\": {\"x\": "
      "[[0.5, 0.5]], \"y\": [1]}}}",
      "expected an image of 784 numbers");
  ExpectError("{\"users\": [\"a\"], \"num_samples\": [1], \"user_data\": {\"a\": {\"x\": [" +
                  Image(1.5) + "], \"y\": [1]}}}",
              "outside [0, 1]");
  ExpectError("{\"users\": [\"a\"], \"num_samples\": [1], \"user_data\": {\"a\": {\"x\": [" +
                  Image(1) + "], \"y\": [62]}}}",
              "label: expected an integer in [0, 61]");
}

TEST_F(LeafReaderTest, ErrorLineNamesTheUsersEntry) {
  const std::string path =
      Write("lines.json",
            "{\"users\": [\"a\"], \"num_samples\": [1],\n\"user_data\":\n{\n\"a\": {\"x\": "
            "[[0.5]], \"y\": [1]}}}");
  try {
    ReadLeafFile(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 4) << e.what();
  }
}

TEST_F(LeafReaderTest, MissingFileAndCorruptGzip) {
  EXPECT_THROW(ReadLeafFile((dir_ / "absent.json").string()), InputError);
  // A gzip header followed by garbage.
  const std::string path = Write("bad.json.gz", std::string("\x1f\x8b\x08\x00garbage", 12));
  EXPECT_THROW(ReadLeafFile(path), InputError);
}

FederatedData ThreeClients() {
  FederatedData data;
  for (const char* id : {"a", "b", "c"}) {
    ClientData client;
    client.id = id;
    client.train_index = {static_cast<int>(data.clients.size())};
    data.clients.push_back(client);
  }
  return data;
}

TEST_F(LeafReaderTest, ClientListKeepsTheListedClientsInItsOrder) {
  FederatedData data = ThreeClients();
  KeepListedClients(Write("list.txt", "# oracle group 0\nc\n\n  a  # trailing comment\n"), &data);
  ASSERT_EQ(data.clients.size(), 2u);
  EXPECT_EQ(data.clients[0].id, "c");
  EXPECT_EQ(data.clients[0].train_index, (std::vector<int>{2}));
  EXPECT_EQ(data.clients[1].id, "a");
}

TEST_F(LeafReaderTest, ClientListErrorsNameTheLine) {
  struct Case {
    std::string text;
    int line;
    std::string fragment;
  };
  for (const Case& bad : {Case{"a\n# x\nzz\n", 3, "client id \"zz\": expected the id of a client"},
                          Case{"b\na\nb\n", 3, "expected each id once (already listed on line 1)"},
                          Case{"# only comments\n\n", 0, "expected at least one client id"}}) {
    FederatedData data = ThreeClients();
    const std::string path = Write("bad_list.txt", bad.text);
    try {
      KeepListedClients(path, &data);
      FAIL() << "no error for: " << bad.text;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.line(), bad.line) << e.what();
      EXPECT_NE(std::string(e.what()).find(bad.fragment), std::string::npos) << e.what();
    }
    EXPECT_EQ(data.clients.size(), 3u);  // unchanged
  }
  FederatedData data = ThreeClients();
  EXPECT_THROW(KeepListedClients((dir_ / "absent.txt").string(), &data), InputError);
}

TEST(Femnist, SharedDataHas105WritersWithBothSplits) {
  const std::string dir = std::string(JIGSAW_SHARED_DATA) + "/datasets/femnist";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no FEMNIST in " << dir;
  const FederatedData data = ReadFemnist(dir, 0);
  EXPECT_EQ(data.clients.size(), 105u);
  EXPECT_EQ(data.classes, 62);
  size_t train = 0;
  for (const ClientData& client : data.clients) {
    EXPECT_FALSE(client.test_index.empty());
    train += client.train_index.size();
  }
  EXPECT_EQ(train * 784, data.train_pixels.size());
}

}  // namespace
}  // namespace jigsaw
