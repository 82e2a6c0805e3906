// `jigsaw fl` end to end through the CLI binary.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace jigsaw {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class FlCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("jigsaw_fl_cli_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Exit status of the command; stderr in err_.
  int Run(const std::string& args) {
    const std::string command = std::string(JIGSAW_BINARY) + " fl " + args + " 2>" +
                                (dir_ / "err").string() + " >/dev/null";
    const int status = std::system(command.c_str());
    err_ = Slurp(dir_ / "err");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  fs::path dir_;
  std::string err_;
};

TEST_F(FlCliTest, MalformedLeafFileIsAClearInputError) {
  fs::create_directories(dir_ / "leaf/train");
  fs::create_directories(dir_ / "leaf/test");
  std::ofstream(dir_ / "leaf/train/all_data_0_train_9.json")
      << "{\"users\": [\"a\"],\n\"num_samples\": [1],\n\"user_data\": {\"a\": {\"x\": [[0.5]], "
         "\"y\": [1]}}}";
  std::ofstream(dir_ / "leaf/test/all_data_0_test_9.json") << "{}";
  EXPECT_EQ(Run("--dataset femnist --data-dir " + (dir_ / "leaf").string() + " --out " +
                (dir_ / "out").string()),
            2);
  EXPECT_NE(err_.find("all_data_0_train_9.json:3: user \"a\": sample 0: expected an image of 784"),
            std::string::npos)
      << err_;
}

// A LEAF shard of writers w0, w1, w2 (two training images and one test image each).
void WriteTinyLeaf(const fs::path& dir) {
  fs::create_directories(dir / "train");
  fs::create_directories(dir / "test");
  std::string image = "[";
  for (int i = 0; i < 784; ++i) image += (i ? ",0.5" : "0.5");
  image += "]";
  for (const bool train : {true, false}) {
    const int samples = train ? 2 : 1;
    std::string users, counts, entries;
    for (int w = 0; w < 3; ++w) {
      const std::string id = "\"w" + std::to_string(w) + "\"";
      users += (w ? ", " : "") + id;
      counts += (w ? ", " : "") + std::to_string(samples);
      std::string xs, ys;
      for (int s = 0; s < samples; ++s) {
        xs += (s ? ", " : "") + image;
        ys += (s ? ", " : "") + std::to_string(w + s);
      }
      entries += (w ? ",\n" : "") + id + ": {\"x\": [" + xs + "], \"y\": [" + ys + "]}";
    }
    std::ofstream(dir / (train ? "train/all_data_0_train_9.json" : "test/all_data_0_test_9.json"))
        << "{\"users\": [" << users << "], \"num_samples\": [" << counts << "],\n\"user_data\": {"
        << entries << "}}";
  }
}

TEST_F(FlCliTest, ClientListKeepsExactlyThoseWriters) {
  WriteTinyLeaf(dir_ / "leaf");
  std::ofstream(dir_ / "list.txt") << "# two of the three writers\nw2\n\nw0\n";
  const std::string common = "--dataset femnist --data-dir " + (dir_ / "leaf").string() +
                             " --model mlp --rounds 1 --participants 2 --local-steps 1 --batch 2 "
                             "--eval-every 1 --quiet --out " +
                             (dir_ / "out").string();
  ASSERT_EQ(Run(common + " --client-list " + (dir_ / "list.txt").string()), 0) << err_;
  EXPECT_EQ(nlohmann::json::parse(Slurp(dir_ / "out/summary.json"))["clients"], 2);
  std::stringstream clients(Slurp(dir_ / "out/clients.csv"));
  std::vector<std::string> ids;
  std::string line;
  std::getline(clients, line);
  EXPECT_EQ(line, "client,group,cohort,accuracy");
  while (std::getline(clients, line)) ids.push_back(line.substr(0, line.find(',')));
  EXPECT_EQ(ids, (std::vector<std::string>{"w2", "w0"}));

  std::ofstream(dir_ / "bad.txt") << "w1\nw7\n";
  EXPECT_EQ(Run(common + " --client-list " + (dir_ / "bad.txt").string()), 2);
  EXPECT_NE(err_.find("bad.txt:2: client id \"w7\": expected the id of a client"),
            std::string::npos)
      << err_;
  EXPECT_EQ(Run("--dataset blobs --client-list " + (dir_ / "list.txt").string() + " --out " +
                (dir_ / "o").string()),
            2);
  EXPECT_EQ(Run(common + " --max-clients 2 --client-list " + (dir_ / "list.txt").string()), 2);
}

TEST_F(FlCliTest, UsageErrorsExit2) {
  EXPECT_EQ(Run("--dataset blobs --clients 1 --out " + (dir_ / "o").string()), 2);
  EXPECT_EQ(Run("--algorithm fedsgd --out " + (dir_ / "o").string()), 2);
  EXPECT_EQ(Run("--split-epochs 5,x --dataset blobs --out " + (dir_ / "o").string()), 2);
  EXPECT_EQ(Run("--min-side-separation -1 --dataset blobs --out " + (dir_ / "o").string()), 2);
  EXPECT_EQ(Run("--rebipartition-epochs -5 --dataset blobs --out " + (dir_ / "o").string()), 2);
  EXPECT_EQ(Run("--max-side-ratio 1 --dataset blobs --out " + (dir_ / "o").string()), 2);
  EXPECT_EQ(Run("--max-update-ratio -1 --dataset femnist --data-dir " + (dir_ / "none").string() +
                " --out " + (dir_ / "o").string()),
            2);
  for (const std::string bad :
       {"--momentum 1", "--momentum -0.1", "--weight-decay -1", "--weight-decay inf",
        "--lr-decay 0", "--lr-decay 1.5", "--lr-decay-rounds 0", "--min-lr -1"}) {
    EXPECT_EQ(Run(bad + " --dataset femnist --data-dir " + (dir_ / "none").string() + " --out " +
                  (dir_ / "o").string()),
              2)
        << bad;
    EXPECT_NE(err_.find(bad.substr(0, bad.find(' '))), std::string::npos) << bad << ": " << err_;
  }
  EXPECT_EQ(Run("--late-signatures --dataset femnist --data-dir " + (dir_ / "none").string() +
                " --out " + (dir_ / "o").string()),
            2);
  EXPECT_NE(err_.find("--late-signatures"), std::string::npos) << err_;
  EXPECT_EQ(Run("--late-signatures --auxo --serve --dataset femnist --data-dir " +
                (dir_ / "none").string() + " --out " + (dir_ / "o").string()),
            2);
  EXPECT_NE(err_.find("simulation only"), std::string::npos) << err_;
  EXPECT_EQ(Run("--proportional-slots --dataset femnist --data-dir " + (dir_ / "none").string() +
                " --out " + (dir_ / "o").string()),
            2);
  EXPECT_NE(err_.find("--proportional-slots"), std::string::npos) << err_;
  EXPECT_EQ(Run("--pooled-sides --dataset femnist --data-dir " + (dir_ / "none").string() +
                " --out " + (dir_ / "o").string()),
            2);
  EXPECT_NE(err_.find("--pooled-sides"), std::string::npos) << err_;
}

TEST_F(FlCliTest, BlobsWriteSummaryAndAssignments) {
  ASSERT_EQ(Run("--dataset blobs --clients 200 --groups 2 --participants 40 --rounds 50 "
                "--known-clients 20 --min-cohort-clients 40 --split-epochs adaptive --out " +
                (dir_ / "out").string()),
            0)
      << err_;
  const auto summary = nlohmann::json::parse(Slurp(dir_ / "out/summary.json"));
  EXPECT_GE(summary["cohorts"].get<int>(), 1);
  EXPECT_TRUE(summary.contains("ari"));
  EXPECT_EQ(summary["min_side_separation"], 3.0);  // the defaults: the added split rules on
  EXPECT_EQ(summary["rebipartition_epochs"], 50);
  EXPECT_EQ(summary["pooled_sides"], false);  // opt-in
  EXPECT_NE(Slurp(dir_ / "out/clients.csv").find("client,group,cohort"), std::string::npos);
}

TEST_F(FlCliTest, FashionGroupsRunWritesRoundsAndClients) {
  if (!fs::exists("/usr/share/datasets/fashion-mnist")) GTEST_SKIP() << "no Fashion-MNIST";
  ASSERT_EQ(Run("--dataset fashion-groups --clients 20 --groups 2 --samples-per-client 20 "
                "--test-per-client 10 --model mlp --rounds 4 --participants 10 --local-steps 2 "
                "--auxo --split-epochs 2 --eval-every 2 --out " +
                (dir_ / "out").string()),
            0)
      << err_;
  const auto summary = nlohmann::json::parse(Slurp(dir_ / "out/summary.json"));
  EXPECT_EQ(summary["algorithm"], "auxo+fedavg");
  EXPECT_TRUE(summary.contains("ari"));
  EXPECT_TRUE(summary.contains("final_worst10_accuracy"));
  const std::string rounds = Slurp(dir_ / "out/rounds.csv");
  EXPECT_EQ(std::count(rounds.begin(), rounds.end(), '\n'), 5);  // header + 4 rounds
  EXPECT_NE(err_.find("fl: "), std::string::npos);               // progress on stderr
  // No -1 sentinels (docs/outputs.md): no --target-accuracy, so the "to target" fields are null.
  EXPECT_TRUE(summary["rounds_to_target"].is_null()) << summary.dump(2);
  EXPECT_TRUE(summary["wall_to_target_s"].is_null()) << summary.dump(2);
  EXPECT_EQ(Slurp(dir_ / "out/clients.csv").find(",-1"), std::string::npos);
}

}  // namespace
}  // namespace jigsaw
