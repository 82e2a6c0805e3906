// `jigsaw train` end to end: real worker processes, Gloo over TCP, fault handling.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

namespace {

struct Run {
  int exit_code = -1;
  std::string output;
  double seconds = 0;
};

Run RunJigsaw(const std::string& args) {
  Run run;
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

std::string TinyJob(const std::string& out) {
  std::filesystem::remove_all(out);
  return "train --model mlp --dataset synthetic --synthetic-train 512 --synthetic-test 64 "
         "--synthetic-size 8 --workers 2 --epochs 1 --batch 8 --quiet --out " +
         out;
}

std::string TempDir(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("jigsaw_runtime_cli_" + name)).string();
}

TEST(RuntimeTrainCli, TwoProcessesTrainAndWriteSummary) {
  const std::string out = TempDir("ok");
  Run run = RunJigsaw(TinyJob(out) + " --spb rotating --max-iters-per-epoch 4");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(std::filesystem::exists(out + "/summary.json"));
  EXPECT_TRUE(std::filesystem::exists(out + "/iterations.csv"));
}

TEST(RuntimeTrainCli, KilledWorkerFailsTheJobWithinTheTimeout) {
  const std::string out = TempDir("fault");
  Run run = RunJigsaw(TinyJob(out) + " --spb full --timeout-s 5 --kill-rank 1 --kill-at-iter 3");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.output.find("worker 1 was killed by signal 9"), std::string::npos) << run.output;
  EXPECT_LT(run.seconds, 30);
}

TEST(RuntimeTrainCli, BadPlanIsAUsageError) {
  Run run = RunJigsaw(TinyJob(TempDir("bad")) + " --spb stairs");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.output.find("--spb 'stairs'"), std::string::npos) << run.output;
}

}  // namespace
