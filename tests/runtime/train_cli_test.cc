// `jigsaw train` end to end: real worker processes, Gloo over TCP, fault handling.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "core/error.h"
#include "core/output.h"
#include "core/text_input.h"
#include "spb/cost_model.h"

namespace {

struct JigsawRun {
  int exit_code = -1;
  std::string output;
  double seconds = 0;
};

JigsawRun RunJigsaw(const std::string& args) {
  JigsawRun run;
  auto start = std::chrono::steady_clock::now();
  std::string command = std::string(JIGSAW_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) run.output.append(buffer, n);
  int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

std::string TinyJob(const std::string& out, int epochs = 1) {
  std::filesystem::remove_all(out);
  return "train --model mlp --dataset synthetic --synthetic-train 512 --synthetic-test 64 "
         "--synthetic-size 8 --workers 2 --batch 8 --quiet --epochs " +
         std::to_string(epochs) + " --out " + out;
}

std::string TempDir(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("jigsaw_runtime_cli_" + name + "_" + std::to_string(getpid())))
      .string();
}

TEST(RuntimeTrainCli, TwoProcessesTrainAndWriteSummary) {
  const std::string out = TempDir("ok");
  JigsawRun run = RunJigsaw(TinyJob(out) + " --spb rotating --max-iters-per-epoch 4");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(std::filesystem::exists(out + "/iterations.csv"));
  jigsaw::Json summary = jigsaw::Json::parse(jigsaw::ReadWholeFile(out + "/summary.json"));
  // The socket bytes Gloo actually wrote match the estimate (averaged over the workers).
  const double estimated = summary["bytes_sent_per_iter"].get<double>();
  const double written = summary["wire_bytes_per_iter"].get<double>();
  EXPECT_GT(estimated, 0);
  EXPECT_NEAR(written / estimated, 1.0, 0.1);
}

TEST(RuntimeTrainCli, KilledWorkerFailsTheJobWithinTheTimeout) {
  const std::string out = TempDir("fault");
  JigsawRun run =
      RunJigsaw(TinyJob(out) + " --spb full --timeout-s 5 --kill-rank 1 --kill-at-iter 3");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.output.find("worker 1 was killed by signal 9"), std::string::npos) << run.output;
}

TEST(RuntimeTrainCli, ResumeAfterAKilledWorkerFinishesTheJob) {
  const std::string out = TempDir("kill_resume");
  const std::string job = TinyJob(out, 3) + " --spb staircase --max-iters-per-epoch 4";
  JigsawRun killed = RunJigsaw(job + " --timeout-s 5 --kill-rank 0 --kill-at-iter 9");
  ASSERT_NE(killed.exit_code, 0);
  ASSERT_TRUE(std::filesystem::exists(
      out + "/checkpoint.pt"));  // after epochs 1 and 2
                                 // Outputs of the finished epochs survive the failure.
  EXPECT_EQ(jigsaw::Json::parse(jigsaw::ReadWholeFile(out + "/summary.json"))["epochs_done"], 2);
  JigsawRun resumed = RunJigsaw(job + " --resume");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  jigsaw::Json summary = jigsaw::Json::parse(jigsaw::ReadWholeFile(out + "/summary.json"));
  EXPECT_EQ(summary["resumed_from_epoch"], 2);
  EXPECT_EQ(summary["epoch_test_accuracy"].size(), 3u);
  std::string csv = jigsaw::ReadWholeFile(out + "/iterations.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 * 2 * 4);
}

TEST(RuntimeTrainCli, StalledWorkerFailsTheJobAfterTheTimeout) {
  const std::string out = TempDir("stall");
  JigsawRun run = RunJigsaw(TinyJob(out) +
                            " --spb staircase --timeout-s 2 --kill-rank 1 --kill-at-iter 3 "
                            "--stall-instead-of-kill");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.output.find("worker 0: lost contact with a peer"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("worker 1 did not exit in time, killed"), std::string::npos)
      << run.output;
}

TEST(RuntimeProfileCli, WritesAProfileTheCostModelReads) {
  const std::string out = TempDir("profile.json");
  JigsawRun run = RunJigsaw(
      "profile --model mlp --dataset synthetic --synthetic-test 64 --synthetic-size 8 "
      "--batch 16 --repeats 3 --out " +
      out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  jigsaw::ModelProfile profile = jigsaw::ReadProfile(out);
  EXPECT_EQ(profile.model, "mlp");
  EXPECT_EQ(profile.batch, 16);
  EXPECT_EQ(profile.input_shape, (std::vector<int>{1, 8, 8}));
  ASSERT_EQ(profile.blocks.size(), 4u);
  EXPECT_EQ(profile.blocks[0].parameter_bytes, (64 * 256 + 256) * 4);
  EXPECT_EQ(profile.blocks[3].activation_bytes, 16 * 10 * 4);
  for (const jigsaw::BlockProfile& b : profile.blocks) {
    EXPECT_GT(b.forward_s, 0);
    EXPECT_GT(b.backward_weight_s, 0);
  }
}

TEST(RuntimeProfileCli, MalformedProfileNamesTheFile) {
  const std::string path = TempDir("bad_profile.json");
  FILE* file = std::fopen(path.c_str(), "w");
  std::fputs("{\"model\": \"mlp\", \"batch\": 4}", file);
  std::fclose(file);
  try {
    jigsaw::ReadProfile(path);
    FAIL() << "accepted a profile without blocks";
  } catch (const jigsaw::InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find("malformed block profile"), std::string::npos);
  }
}

TEST(RuntimeTrainCli, BadPlanIsAUsageError) {
  JigsawRun run = RunJigsaw(TinyJob(TempDir("bad")) + " --spb stairs");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.output.find("--spb 'stairs'"), std::string::npos) << run.output;
}

}  // namespace
