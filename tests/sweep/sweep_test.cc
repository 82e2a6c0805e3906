// jigsaw sweep: the TOML format and its cross product, an end-to-end sweep of `jigsaw sim` runs
// (parallel children, runs.csv/runs.json, resuming), and MPI sharding under mpirun.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "core/error.h"
#include "sweep/sweep_config.h"
#include "sweep/sweep_runner.h"
#include "test_util/shell.h"

namespace jigsaw::sweep {
namespace {

using test_util::CommandResult;
using test_util::Slurp;

CommandResult Shell(const std::string& command) { return test_util::RunShell(command + " 2>&1"); }

std::filesystem::path TempDir(const std::string& name) {
  return test_util::FreshTempDir("jigsaw_sweep_", name);
}

int CountLines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

const char* kSmallSweep = R"(
command = "sim"
[fixed]
jobs = 8
gpus = 4
[axes]
policy = ["fifo", "las"]
seed = [0, 1]
)";

TEST(SweepConfig, CrossProductWithLinkedAxesAndOverrides) {
  const SweepConfig config = ParseSweepConfig(R"(
command = "sim"
out = "o"
[fixed]
gpus = 8
round-s = 60.5
[axes]
policy = ["fifo", "las", "srtf"]
"trace+gpus" = [["a/t120.trace", 32], ["a/t220.trace", 64]]
load = [0.5, 2]
)",
                                              "test.toml");
  const std::vector<RunSpec> runs = ExpandRuns(config);
  ASSERT_EQ(runs.size(), 12u);
  // Last axis fastest; the linked axis sets both options; an axis overrides a fixed option.
  const std::vector<std::string> first = {"--round-s",    "60.5",   "--policy", "fifo",   "--trace",
                                          "a/t120.trace", "--gpus", "32",       "--load", "0.5"};
  EXPECT_EQ(runs[0].arguments, first);
  EXPECT_EQ(runs[1].arguments.back(), "2");
  EXPECT_EQ(runs[2].arguments[5], "a/t220.trace");
  EXPECT_EQ(runs[2].arguments[7], "64");
  // Stable, distinct folder names led by the axis values.
  EXPECT_EQ(runs[0].name.rfind("fifo_t120_32_0.5-", 0), 0u) << runs[0].name;
  std::set<std::string> names;
  for (const RunSpec& run : runs) names.insert(run.name);
  EXPECT_EQ(names.size(), runs.size());
  EXPECT_EQ(ExpandRuns(config)[7].name, runs[7].name);
}

TEST(SweepConfig, MalformedFilesNameTheLine) {
  const auto expect_error = [](const std::string& text, const std::string& part) {
    try {
      ParseSweepConfig(text, "bad.toml");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_error("command = \"sim\"\n[axes]\npolicy = []\n", "bad.toml:3");
  expect_error("command = \"sim\"\n[axes]\npolicy = \"fifo\"\n", "non-empty list");
  expect_error("command = \"train\"\n", "'command' must be");
  expect_error("command = \"sim\"\nfoo = 1\n", "unknown key 'foo'");
  expect_error("command = \"sim\"\n[axes]\n\"a+b\" = [[1]]\n", "list of 2 values");
  expect_error("command = \"sim\"\n[fixed]\nout = \"x\"\n", "'out' is set per run");
  expect_error("command = = \n", "bad.toml:1");
}

TEST(SweepCli, RunsInParallelWritesTheTableAndResumes) {
  const auto dir = TempDir("e2e");
  std::ofstream(dir / "sweep.toml") << kSmallSweep;
  const std::string sweep = std::string(JIGSAW_BINARY) + " sweep " + (dir / "sweep.toml").string() +
                            " --out " + (dir / "out").string() + " --parallel 2";
  const CommandResult first = Shell(sweep);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("4 ran now, 0 failed"), std::string::npos) << first.output;
  const std::string csv = Slurp(dir / "out" / "runs.csv");
  EXPECT_EQ(CountLines(csv), 5) << csv;
  const std::string header = csv.substr(0, csv.find('\n'));
  for (const char* column : {"run", "status", "--policy", "--seed", "--gpus", "--round-s",
                             "avg_jct_s", "makespan_s", "worst_ftf_rho"}) {
    EXPECT_NE(header.find(column), std::string::npos) << column << " in " << header;
  }
  const auto runs = nlohmann::json::parse(Slurp(dir / "out" / "runs.json"));
  ASSERT_EQ(runs.size(), 4u);
  for (const auto& run : runs) {
    EXPECT_EQ(run["status"], "complete");
    EXPECT_EQ(run["options"]["--gpus"], 4);
    EXPECT_GT(run["metrics"]["avg_jct_s"].get<double>(), 0);
  }
  // Each run matches a direct `jigsaw sim` with the same options.
  const CommandResult direct = Shell(std::string(JIGSAW_BINARY) +
                                     " sim --jobs 8 --gpus 4 --policy las --seed 1 --quiet --out " +
                                     (dir / "direct").string());
  ASSERT_EQ(direct.exit_code, 0) << direct.output;
  const auto expected = nlohmann::json::parse(Slurp(dir / "direct" / "summary.json"));
  bool matched = false;
  for (const auto& run : runs) {
    if (run["options"]["--policy"] == "las" && run["options"]["--seed"] == 1) {
      EXPECT_EQ(run["metrics"]["avg_jct_s"], expected["avg_jct_s"]);
      matched = true;
    }
  }
  EXPECT_TRUE(matched);
  // Resuming: a complete sweep runs nothing again; a removed run is redone.
  const CommandResult again = Shell(sweep);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("4 already complete, 0 ran now"), std::string::npos) << again.output;
  std::filesystem::remove_all(dir / "out" / "runs" / runs[2]["run"].get<std::string>());
  const CommandResult resumed = Shell(sweep);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("3 already complete, 1 ran now"), std::string::npos)
      << resumed.output;
  EXPECT_EQ(Slurp(dir / "out" / "runs.csv"), csv);
  std::filesystem::remove_all(dir);
}

// Input paths in a sweep file are relative to the file, whatever the working directory, and
// every one is checked before any run starts (a missing one: exit 2 naming file:line, no run).
TEST(SweepCli, PathsResolveAgainstTheFileAndAreCheckedFirst) {
  const auto dir = TempDir("paths");
  std::filesystem::create_directories(dir / "config" / "traces");
  std::filesystem::create_directories(dir / "elsewhere");
  const CommandResult trace = Shell(
      std::string(JIGSAW_BINARY) + " sim --jobs 6 --gpus 4 --quiet --write-trace " +
      (dir / "config" / "traces" / "t6.trace").string() + " --out " + (dir / "trace_run").string());
  ASSERT_EQ(trace.exit_code, 0) << trace.output;
  std::ofstream(dir / "config" / "sweep.toml")
      << "command = \"sim\"\n[fixed]\ngpus = 4\ntrace = \"traces/t6.trace\"\n"
         "[axes]\npolicy = [\"fifo\", \"las\"]\n";
  // Run from another folder, naming the file by a relative path.
  const std::string run_elsewhere = "cd " + (dir / "elsewhere").string() + " && " + JIGSAW_BINARY +
                                    " sweep ../config/sweep.toml --out out";
  const CommandResult ok = Shell(run_elsewhere);
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("2 ran now, 0 failed"), std::string::npos) << ok.output;
  EXPECT_NE(Slurp(dir / "elsewhere" / "out" / "runs.csv").find("t6.trace"), std::string::npos);

  std::ofstream(dir / "config" / "broken.toml")
      << "command = \"sim\"\n[axes]\n\"trace+gpus\" = [[\"traces/t6.trace\", 4],\n"
         "  [\"traces/missing.trace\", 8]]\npolicy = [\"fifo\"]\n";
  const CommandResult missing =
      Shell("cd " + (dir / "elsewhere").string() + " && " + JIGSAW_BINARY +
            " sweep ../config/broken.toml --out broken_out");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("../config/broken.toml:4: 'trace' = 'traces/missing.trace'"),
            std::string::npos)
      << missing.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "elsewhere" / "broken_out" / "runs"));
  std::filesystem::remove_all(dir);
}

TEST(SweepCli, FailedRunIsMarkedAndReported) {
  const auto dir = TempDir("fail");
  std::ofstream(dir / "sweep.toml") << "command = \"sim\"\n[fixed]\njobs = 4\n[axes]\n"
                                       "gpus = [4, -1]\n";
  const CommandResult result =
      Shell(std::string(JIGSAW_BINARY) + " sweep " + (dir / "sweep.toml").string() + " --out " +
            (dir / "out").string());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("1 ran now, 1 failed"), std::string::npos) << result.output;
  const std::string csv = Slurp(dir / "out" / "runs.csv");
  EXPECT_NE(csv.find(",failed"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",complete"), std::string::npos) << csv;
  std::filesystem::remove_all(dir);
}

TEST(SweepCli, ShardsOverMpiRanks) {
  if (Shell("command -v mpirun").exit_code != 0) {
    GTEST_SKIP() << "mpirun not installed (Debian openmpi-bin; scripts/setup.sh installs it)";
  }
  const auto dir = TempDir("mpi");
  std::ofstream(dir / "sweep.toml") << kSmallSweep;
  const std::string root = getuid() == 0 ? " --allow-run-as-root" : "";
  const CommandResult result =
      Shell("mpirun -np 2 --oversubscribe" + root + " " + JIGSAW_BINARY + " sweep " +
            (dir / "sweep.toml").string() + " --out " + (dir / "out").string() + " --parallel 1");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  // Each rank ran its half; rank 0 wrote the whole table.
  EXPECT_NE(result.output.find("rank 0/2: 4 runs in the sweep, 2 assigned here: 0 already "
                               "complete, 2 ran now"),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("rank 1/2: 4 runs in the sweep, 2 assigned here: 0 already "
                               "complete, 2 ran now"),
            std::string::npos)
      << result.output;
  const auto runs = nlohmann::json::parse(Slurp(dir / "out" / "runs.json"));
  ASSERT_EQ(runs.size(), 4u);
  for (const auto& run : runs) EXPECT_EQ(run["status"], "complete") << run.dump();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace jigsaw::sweep
