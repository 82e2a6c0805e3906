// Heterogeneous clusters: --cluster-spec parsing, Gavel's CLP allocations on a case small enough
// to check by hand, the simulator placing typed GPUs, and homogeneous runs left unchanged.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cluster/cluster_spec.h"
#include "cluster/policy.h"
#include "cluster/simulator.h"
#include "core/error.h"
#include "model/throughput_table.h"
#include "test_util/shell.h"

namespace jigsaw {
namespace {

TEST(ClusterSpec, ParsesGavelWorkerTypesInOrder) {
  const ClusterSpec spec = ParseClusterSpec("v100:32,p100:16,k80:16");
  ASSERT_EQ(spec.size(), 3u);
  EXPECT_EQ(spec[0].type, "v100");
  EXPECT_EQ(spec[0].gpus, 32);
  EXPECT_EQ(spec[1].type, "p100");
  EXPECT_EQ(spec[2].type, "k80");
  EXPECT_EQ(spec[2].gpus, 16);
  EXPECT_EQ(TotalGpus(spec), 64);
  EXPECT_EQ(FormatClusterSpec(spec), "v100:32,p100:16,k80:16");
}

TEST(ClusterSpec, MalformedSpecsAreUsageErrorsQuotingTheEntry) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "empty"},
      {"v100", "entry 'v100' is not TYPE:GPUS"},
      {"v100:", "entry 'v100:' is not TYPE:GPUS"},
      {":4", "entry ':4' is not TYPE:GPUS"},
      {"v100:4,", "entry '' is not TYPE:GPUS"},
      {"v100:0", "GPU count '0' of v100 is not a whole number"},
      {"v100:-2", "GPU count '-2' of v100"},
      {"v100:x", "GPU count 'x' of v100"},
      {"v100:4.5", "GPU count '4.5' of v100"},
      {"v100:99999999999", "GPU count '99999999999'"},
      {"v100:4,v100:2", "worker type 'v100' given twice"},
      {"v 100:4", "worker type 'v 100' has a character"},
  };
  for (const auto& [text, why] : cases) {
    try {
      ParseClusterSpec(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const UsageError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("--cluster-spec"), std::string::npos) << message;
      EXPECT_NE(message.find(why), std::string::npos) << message;
      EXPECT_NE(message.find("expected TYPE:GPUS"), std::string::npos) << message;
    }
  }
}

TEST(ClusterSpec, UnknownWorkerTypeNamesTheTablesTypes) {
  const ThroughputTable table =
      ThroughputTable::Parse("t.json", R"json({"v100": {"('A (batch size 1)', 1)": {"null": 4}},
                    "k80": {"('A (batch size 1)', 1)": {"null": 1}}})json");
  RequireWorkerTypesInTable(ParseClusterSpec("v100:2,k80:1"), table);
  try {
    RequireWorkerTypesInTable(ParseClusterSpec("v100:2,p100:1"), table);
    ADD_FAILURE() << "accepted p100";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("worker type 'p100' is not in t.json (expected one of: "
                                         "k80, v100)"),
              std::string::npos)
        << e.what();
  }
}

// Two jobs, one V100 and one K80. Job 0 runs 4 it/s on the V100 and 1 on the K80; job 1 runs 2
// it/s on either. Equal-share throughputs: (4 + 1) / 2 = 2.5 and 2. Job 1's normalised
// throughput is at most 2 / 2 = 1 and only when it runs all the time, so max-min's level is 1;
// keeping it while maximising the sum leaves one answer: job 0 on the V100 (4 / 2.5 = 1.6), job 1
// on the K80 (1). Max sum throughput (4 + 2 = 6 against 1 + 2 = 3) and las_perf's assignment
// agree. The agnostic split (half of each type each) would give job 0 only 2.5 / 2.5 = 1.
PolicyContext TwoTypeContext() {
  PolicyContext context;
  context.gpus = 2;
  context.worker_types = {"v100", "k80"};
  context.worker_gpus = {1, 1};
  return context;
}

std::vector<PolicyJob> TwoJobs() {
  std::vector<PolicyJob> jobs(2);
  jobs[0].id = 0;
  jobs[0].throughput = 4;
  jobs[0].type_throughputs = {4, 1};
  jobs[1].id = 1;
  jobs[1].throughput = 2;
  jobs[1].type_throughputs = {2, 2};
  return jobs;
}

void ExpectEachJobOnItsBetterType(const std::vector<std::vector<double>>& x) {
  ASSERT_EQ(x.size(), 2u);
  ASSERT_EQ(x[0].size(), 2u);
  ASSERT_EQ(x[1].size(), 2u);
  EXPECT_NEAR(x[0][0], 1.0, 1e-4);
  EXPECT_NEAR(x[0][1], 0.0, 1e-4);
  EXPECT_NEAR(x[1][0], 0.0, 1e-4);
  EXPECT_NEAR(x[1][1], 1.0, 1e-4);
}

TEST(HeterogeneousPolicies, AwareMaxMinFairnessGivesEachJobItsBetterType) {
  auto policy = MakePolicy("max_min_fairness_perf");
  ASSERT_TRUE(policy->HeterogeneityAware());
  ExpectEachJobOnItsBetterType(policy->AllocateByType(TwoTypeContext(), TwoJobs()));
}

TEST(HeterogeneousPolicies, AwareMaxMinFairnessEqualisesWhenBothPreferTheSameType) {
  // Job 0: 4 and 1 it/s, job 1: 3 and 2 (equal shares 2.5 each). With job 0 on the V100 a
  // share a of the time, both full time, the normalised throughputs are (1 + 3a) / 2.5 and
  // (3 - a) / 2.5: equal, at 1, for a = 1/2, which maximises the sum among allocations at level 1.
  std::vector<PolicyJob> jobs = TwoJobs();
  jobs[1].type_throughputs = {3, 2};
  auto policy = MakePolicy("max_min_fairness_perf");
  const auto x = policy->AllocateByType(TwoTypeContext(), jobs);
  for (int j = 0; j < 2; ++j) {
    for (int k = 0; k < 2; ++k) EXPECT_NEAR(x[j][k], 0.5, 1e-4) << j << "," << k;
  }
}

TEST(HeterogeneousPolicies, MaxSumThroughputAndLasPerfPickTheBetterTypes) {
  ExpectEachJobOnItsBetterType(
      MakePolicy("max_sum_throughput")->AllocateByType(TwoTypeContext(), TwoJobs()));
  ExpectEachJobOnItsBetterType(MakePolicy("las_perf")->AllocateByType(TwoTypeContext(), TwoJobs()));
  EXPECT_FALSE(MakePolicy("max_min_fairness")->HeterogeneityAware());
  EXPECT_FALSE(MakePolicy("las")->HeterogeneityAware());
}

Trace TwoJobTrace() {
  Trace trace;
  for (int id = 0; id < 2; ++id) {
    JobSpec job;
    job.id = id;
    job.job_type = id == 0 ? "A (batch size 1)" : "B (batch size 1)";
    job.model = id == 0 ? "A" : "B";
    job.batch_size = 1;
    job.total_steps = id == 0 ? 4000 : 2000;
    job.source = "test:" + std::to_string(id + 1);
    trace.jobs.push_back(job);
  }
  return trace;
}

ThroughputTable TwoTypeTable() {
  return ThroughputTable::Parse("t.json", R"json({"v100": {"('A (batch size 1)', 1)": {"null": 4},
                             "('B (batch size 1)', 1)": {"null": 2}},
                    "k80": {"('A (batch size 1)', 1)": {"null": 1},
                            "('B (batch size 1)', 1)": {"null": 2}}})json");
}

SimResult SimulateTwoTypes(const std::string& policy_name) {
  const Trace trace = TwoJobTrace();
  const ThroughputTable table = TwoTypeTable();
  auto policy = MakePolicy(policy_name);
  SimConfig config;
  config.cluster = ParseClusterSpec("v100:1,k80:1");
  config.preemption_overhead_s = 0;
  config.deadline_factor = 0;
  Simulator simulator(trace, &table, policy.get(), config);
  return simulator.Run();
}

TEST(HeterogeneousSimulator, AwarePoliciesRunEachJobOnItsBetterTypeEveryRound) {
  for (const char* name : {"max_min_fairness_perf", "max_sum_throughput", "las_perf"}) {
    const SimResult result = SimulateTwoTypes(name);
    EXPECT_EQ(result.gpus, 2) << name;
    // 4000 iterations at 4 it/s and 2000 at 2 it/s, alone on their types from t = 0.
    EXPECT_DOUBLE_EQ(result.jobs[0].jct_s, 1000) << name;
    EXPECT_DOUBLE_EQ(result.jobs[1].jct_s, 1000) << name;
    ASSERT_EQ(result.busy_gpu_s_by_type.size(), 2u);
    EXPECT_DOUBLE_EQ(result.busy_gpu_s_by_type[0], 1000) << name;
    EXPECT_DOUBLE_EQ(result.busy_gpu_s_by_type[1], 1000) << name;
  }
}

TEST(HeterogeneousSimulator, AgnosticMaxMinFairnessSplitsTimeOverTheTypes) {
  const SimResult result = SimulateTwoTypes("max_min_fairness");
  // Half its time on the K80 slows job 0 towards 4000 / 2.5 = 1600 s; job 1 does not care.
  EXPECT_GT(result.jobs[0].jct_s, 1300);
  EXPECT_DOUBLE_EQ(result.jobs[1].jct_s, 1000);
  EXPECT_GT(result.busy_gpu_s_by_type[1], 1000);  // the K80 also ran job 0
}

TEST(HeterogeneousSimulator, JobThatFitsNoTypeIsAnInputErrorNamingItsLine) {
  Trace trace = TwoJobTrace();
  trace.jobs[1].scale_factor = 2;
  ThroughputTable table =
      ThroughputTable::Parse("t.json", R"json({"v100": {"('A (batch size 1)', 1)": {"null": 4},
                             "('B (batch size 1)', 2)": {"null": 2}},
                    "k80": {"('A (batch size 1)', 1)": {"null": 1}}})json");
  auto policy = MakePolicy("max_min_fairness");
  SimConfig config;
  config.cluster = ParseClusterSpec("v100:1,k80:1");
  Simulator simulator(trace, &table, policy.get(), config);
  try {
    simulator.Run();
    ADD_FAILURE() << "a 2-GPU job ran on 1-GPU types";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("test:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("fits on no worker type of --cluster-spec v100:1,k80:1"),
              std::string::npos)
        << e.what();
  }
}

std::string RunJigsaw(const std::string& args) {
  const test_util::CommandResult result =
      test_util::RunShell(std::string(JIGSAW_BINARY) + " " + args + " 2>&1");
  return std::to_string(result.exit_code) + ":" + result.output;
}

using jigsaw::test_util::Slurp;

// One worker type through the heterogeneous path (per-type priorities, placement) gives the
// homogeneous run's jobs exactly, for each kind of policy: time fractions, ranking, planner.
TEST(HeterogeneousSimulator, OneTypeClusterSpecReproducesTheHomogeneousRun) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("jigsaw_hetero_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  for (const char* policy : {"max_min_fairness", "max_min_fairness_perf", "las", "shockwave"}) {
    const std::string common = std::string("sim --quiet --jobs 30 --seed 5 --policy ") + policy;
    const std::string homogeneous = (dir / policy / "homogeneous").string();
    const std::string typed = (dir / policy / "typed").string();
    ASSERT_EQ(RunJigsaw(common + " --gpus 8 --out " + homogeneous).substr(0, 2), "0:") << policy;
    ASSERT_EQ(RunJigsaw(common + " --cluster-spec v100:8 --out " + typed).substr(0, 2), "0:")
        << policy;
    const std::string jobs = Slurp(std::filesystem::path(homogeneous) / "jobs.csv");
    ASSERT_FALSE(jobs.empty());
    EXPECT_EQ(jobs, Slurp(std::filesystem::path(typed) / "jobs.csv")) << policy;
  }
  std::filesystem::remove_all(dir);
}

TEST(HeterogeneousSimulator, CliErrorsAreUsageErrors) {
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("jigsaw_hetero_unused_" + std::to_string(::getpid())))
                              .string();
  std::string result = RunJigsaw("sim --quiet --cluster-spec v100:4,k80 --out " + out);
  EXPECT_EQ(result.substr(0, 2), "2:") << result;
  EXPECT_NE(result.find("entry 'k80' is not TYPE:GPUS"), std::string::npos) << result;
  // The built-in synthetic table has only v100.
  result = RunJigsaw("sim --quiet --cluster-spec v100:4,k80:4 --out " + out);
  EXPECT_EQ(result.substr(0, 2), "2:") << result;
  EXPECT_NE(result.find("worker type 'k80' is not in"), std::string::npos) << result;
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace jigsaw
