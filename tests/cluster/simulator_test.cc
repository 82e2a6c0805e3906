#include "cluster/simulator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "cluster/sim_output.h"
#include "core/error.h"
#include "model/adaptation.h"
#include "model/trace_generator.h"
#include "model/trace_readers.h"

namespace jigsaw {
namespace {

JobSpec UntypedJob(int id, double arrival, double work, int gpus) {
  JobSpec job;
  job.id = id;
  job.arrival_s = arrival;
  job.total_steps = work;
  job.duration_s = work;
  job.scale_factor = gpus;
  job.source = "test:" + std::to_string(id + 1);
  return job;
}

SimResult Simulate(const Trace& trace, const std::string& policy_name, int gpus,
                   const ThroughputTable* table = nullptr) {
  auto policy = MakePolicy(policy_name);
  SimConfig config;
  config.gpus = gpus;
  Simulator simulator(trace, table, policy.get(), config);
  return simulator.Run();
}

TEST(Simulator, LoneJobRunsAtFullSpeed) {
  Trace trace;
  trace.jobs = {UntypedJob(0, 0, 1000, 1)};
  SimResult result = Simulate(trace, "max_min_fairness", 1);
  ASSERT_EQ(result.jobs.size(), 1u);
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_s, 1000);
  EXPECT_DOUBLE_EQ(result.jobs[0].jct_s, 1000);
  EXPECT_DOUBLE_EQ(result.makespan_s, 1000);
  EXPECT_EQ(result.rounds.size(), 9u);  // eight full rounds and a short one
  EXPECT_DOUBLE_EQ(result.rounds.back().end_s - result.rounds.back().start_s, 40);
}

TEST(Simulator, IdleTimeIsSkipped) {
  Trace trace;
  trace.jobs = {UntypedJob(0, 0, 100, 1), UntypedJob(1, 1e7, 100, 1)};
  SimResult result = Simulate(trace, "fifo", 4);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_s, 1e7 + 100);
  EXPECT_LE(result.rounds.size(), 3u);
}

TEST(Simulator, GangsNeverExceedTheClusterAndWorkIsConserved) {
  TraceGeneratorOptions options;
  options.jobs = 60;
  options.mean_interarrival_s = 30;
  ThroughputTable table = SyntheticThroughputTable();
  Trace trace = GenerateTrace(options, table);
  for (const std::string& policy : PolicyNames()) {
    SimResult result = Simulate(trace, policy, 8, &table);
    double gpu_s = 0;
    for (const JobRecord& job : result.jobs) {
      ASSERT_GT(job.finish_s, job.arrival_s) << policy;
      ASSERT_GE(job.start_s, job.arrival_s) << policy;
      gpu_s += job.gpu_s;
    }
    for (const RoundRecord& round : result.rounds) ASSERT_LE(round.gpus_used, 8) << policy;
    EXPECT_NEAR(gpu_s, result.busy_gpu_s, 1e-6 * gpu_s) << policy;
    EXPECT_LE(result.busy_gpu_s, 8 * result.makespan_s * (1 + 1e-9)) << policy;
    // Without packing or SPB, goodput can only lose to restart overheads.
    EXPECT_LE(result.useful_gpu_s, result.busy_gpu_s * (1 + 1e-9)) << policy;
    EXPECT_GT(result.useful_gpu_s, 0.8 * result.busy_gpu_s) << policy;
  }
}

TEST(Simulator, PreemptedJobsPayTheRestartOverhead) {
  // Two equal jobs share one GPU round-robin; every resumption costs 20 s of the round.
  Trace trace;
  trace.jobs = {UntypedJob(0, 0, 1200, 1), UntypedJob(1, 0, 1200, 1)};
  SimResult shared = Simulate(trace, "gandiva_fair", 1);
  EXPECT_GT(shared.makespan_s, 2400 + 5 * 20);
  trace.jobs[1].arrival_s = 5000;
  SimResult alone = Simulate(trace, "gandiva_fair", 1);
  EXPECT_DOUBLE_EQ(alone.jobs[0].jct_s, 1200);
}

TEST(Simulator, GnsJobsGrowTheirBatchAndFinishSooner) {
  ThroughputTable table = SyntheticThroughputTable();
  JobSpec job;
  job.job_type = "ResNet-18 (batch size 32)";
  job.model = "ResNet-18";
  job.batch_size = 32;
  job.scale_factor = 1;
  job.total_steps = 1563.0 * 60;  // 60 epochs of CIFAR-10 at batch 32
  job.duration_s = job.total_steps / table.Isolated("v100", {job.job_type, 1});
  job.source = "test:1";
  Trace fixed;
  fixed.jobs = {job};
  Trace adaptive = fixed;
  adaptive.jobs[0].mode = AdaptationMode::kGns;
  SimResult fixed_result = Simulate(fixed, "fifo", 1, &table);
  SimResult adaptive_result = Simulate(adaptive, "fifo", 1, &table);
  EXPECT_EQ(fixed_result.jobs[0].final_batch_size, 32);
  EXPECT_EQ(adaptive_result.jobs[0].final_batch_size, 256);
  EXPECT_LT(adaptive_result.jobs[0].jct_s, 0.8 * fixed_result.jobs[0].jct_s);
  EXPECT_LT(adaptive_result.jobs[0].isolated_s, fixed_result.jobs[0].isolated_s);
}

TEST(IsolatedRunTime, CountsTheJobsOwnIterationsUnlessAskedForTheReference) {
  ThroughputTable table = SyntheticThroughputTable();
  JobSpec job;
  job.job_type = "ResNet-50 (batch size 16)";
  job.model = "ResNet-50";
  job.batch_size = 16;
  job.total_steps = 625;  // a tenth of an epoch: 100,000 / 16 = 6,250 iterations per epoch
  const double throughput = table.Isolated("v100", {job.job_type, 1});
  EXPECT_DOUBLE_EQ(IsolatedRunTime(job, &table, "v100"), 625 / throughput);
  EXPECT_DOUBLE_EQ(IsolatedRunTime(job, &table, "v100", IsolatedTime::kReferenceEpochs),
                   100000.0 / 16 / throughput);
  // With a batch-size schedule: whole epochs at their batch sizes, the last one partly.
  job.job_type = "ResNet-18 (batch size 32)";
  job.model = "ResNet-18";
  job.batch_size = 32;
  job.mode = AdaptationMode::kGns;
  job.total_steps = 1563.0 * 59.5;  // 59.5 epochs
  const double exact = IsolatedRunTime(job, &table, "v100");
  const double reference = IsolatedRunTime(job, &table, "v100", IsolatedTime::kReferenceEpochs);
  double expected = 0;
  for (int epoch = 0; epoch < 60; ++epoch) {
    const int batch = GnsBatchSize("ResNet-18", 32, 1, epoch);
    const double at = table.Isolated("v100", {MakeJobType("ResNet-18", batch), 1});
    expected += (epoch < 59 ? 1.0 : 0.5) * IterationsPerEpoch("ResNet-18", batch) / at;
  }
  EXPECT_NEAR(exact, expected, 1e-9 * expected);
  EXPECT_LT(exact, reference);
  // Type-less jobs count their work in seconds either way.
  EXPECT_DOUBLE_EQ(IsolatedRunTime(UntypedJob(0, 0, 77, 2), nullptr, "v100"), 77);
}

TEST(Simulator, MeasurementWindowGivesSteadyStateMetricsAndEndsTheRun) {
  // One GPU, a 100 s job every 200 s: half the GPU does useful work while jobs keep arriving.
  Trace trace;
  for (int i = 0; i < 10; ++i) trace.jobs.push_back(UntypedJob(i, 200.0 * i, 100, 1));
  auto policy = MakePolicy("fifo");
  SimConfig config;
  config.gpus = 1;
  config.window_begin = 2;
  config.window_end = 6;
  SimResult result = Simulator(trace, nullptr, policy.get(), config).Run();
  ASSERT_TRUE(result.has_window);
  EXPECT_DOUBLE_EQ(result.window_start_s, 400);
  EXPECT_DOUBLE_EQ(result.window_end_s, 1200);
  EXPECT_DOUBLE_EQ(result.window_useful_gpu_s, 400);
  EXPECT_EQ(result.jobs_finished, 6);  // stopped once jobs 2..5 were done
  EXPECT_LT(result.jobs[9].finish_s, 0);
  Json summary = SummarizeSimulation(&result, Json::object());
  EXPECT_DOUBLE_EQ(summary["window"]["goodput"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(summary["window"]["avg_jct_s"].get<double>(), 100);
  EXPECT_EQ(summary["window"]["jobs"].get<int>(), 4);
  EXPECT_EQ(summary["jobs_finished"].get<int>(), 6);
  EXPECT_DOUBLE_EQ(summary["avg_jct_s"].get<double>(), 100);  // finished jobs only

  config.window_begin = 6;
  config.window_end = 6;
  EXPECT_THROW(Simulator(trace, nullptr, policy.get(), config).Run(), UsageError);
}

// Runs every job, pairing the second half of the queue as guests on the first half's GPUs.
class PairingPolicy : public Policy {
 public:
  std::string name() const override { return "pairing"; }
  std::vector<double> Allocate(const PolicyContext&, const std::vector<PolicyJob>& jobs) override {
    return std::vector<double>(jobs.size(), 0.0);
  }
  bool PlansRounds() const override { return true; }
  std::vector<Placement> PlanPlacements(const PolicyContext& context,
                                        const std::vector<PolicyJob>& jobs) override {
    std::vector<Placement> placements;
    const size_t half = (jobs.size() + 1) / 2;
    for (size_t i = 0; i < half; ++i) {
      Placement p;
      p.job_id = jobs[i].id;
      p.rate = 0.6;
      if (i + half < jobs.size()) p.guests.push_back({jobs[i + half].id, 0.5});
      placements.push_back(p);
    }
    return placements;
  }
};

TEST(Simulator, ColocatedJobsShareGpusAtTheirRates) {
  Trace trace;
  trace.jobs = {UntypedJob(0, 0, 600, 2), UntypedJob(1, 0, 600, 2)};
  PairingPolicy policy;
  SimConfig config;
  config.gpus = 2;
  config.preemption_overhead_s = 0;
  config.deadline_factor = 0;  // slowed-down jobs legitimately run longer than alone
  SimResult result = Simulator(trace, nullptr, &policy, config).Run();
  // Host at 0.6 and guest at 0.5 of full speed on the same two GPUs: the host ends at 1000 s,
  // the guest has 540 iterations at 1080 s and then runs alone (as a host, at 0.6) to 1180 s.
  EXPECT_NEAR(result.jobs[0].jct_s, 1000, 1e-6);
  EXPECT_NEAR(result.jobs[1].jct_s, 1180, 1e-6);
  ASSERT_FALSE(result.rounds.empty());
  EXPECT_EQ(result.rounds[0].gpus_used, 2);
  EXPECT_EQ(result.rounds[0].colocated, (std::vector<int>{1}));
  // Goodput counts both jobs: 600 s x 2 GPUs of work each, on 2 GPUs for 1180 s.
  Json summary = SummarizeSimulation(&result, {});
  EXPECT_NEAR(summary["cluster_efficiency"].get<double>(), 2400.0 / (2 * 1180), 1e-4);
  EXPECT_GT(summary["cluster_efficiency"].get<double>(), summary["cluster_util"].get<double>());
}

TEST(Simulator, RejectsJobsThatCannotRun) {
  Trace trace;
  trace.jobs = {UntypedJob(0, 0, 100, 16)};
  try {
    Simulate(trace, "fifo", 8);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("test:1"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("needs 16 GPUs"), std::string::npos);
  }
  JobSpec typed = UntypedJob(0, 0, 100, 1);
  typed.job_type = "Unknown (batch size 3)";
  trace.jobs = {typed};
  ThroughputTable table = SyntheticThroughputTable();
  EXPECT_THROW(Simulate(trace, "fifo", 8, &table), InputError);
}

// A run that cannot progress stops with a clear error instead of looping with
// growing memory. A job below one iteration per round is refused at its trace line...
TEST(Simulator, AJobBelowOneIterationPerRoundIsRefusedAtItsLine) {
  ThroughputTable table = ThroughputTable::Parse(
      "t.json", R"json({"v100": {"('LM (batch size 10)', 1)": {"null": 0.001}}})json");
  JobSpec job = UntypedJob(0, 0, 100, 1);
  job.job_type = "LM (batch size 10)";
  job.model = "LM";
  job.batch_size = 10;
  Trace trace;
  trace.jobs = {job};
  auto policy = MakePolicy("fifo");
  SimConfig config;
  config.gpus = 1;
  config.round_s = 0.5;
  try {
    Simulator(trace, &table, policy.get(), config).Run();
    FAIL() << "simulated a job that can never progress";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("test:1: the job runs 0.001 iterations/s, less than one"),
              std::string::npos)
        << e.what();
  }
  // Untyped jobs run 1 unit per second: a round under a second would run none.
  trace.jobs = {UntypedJob(0, 0, 100, 1)};
  EXPECT_THROW(Simulator(trace, nullptr, policy.get(), config).Run(), InputError);
}

// ... a job that slows below one iteration per round during the run (GNS doubling its batch to
// a type the table says runs 0.001 it/s) ends the run after kMaxIdleRounds idle rounds, naming
// the job...
TEST(Simulator, ARunThatStopsProgressingEndsWithAnErrorNamingTheJob) {
  ThroughputTable table = ThroughputTable::Parse("t.json", R"json({"v100": {
      "('ResNet-18 (batch size 32)', 1)": {"null": 100},
      "('ResNet-18 (batch size 64)', 1)": {"null": 0.001}}})json");
  JobSpec job = UntypedJob(0, 0, 60 * 1563, 1);  // GNS doubles the batch after 21 epochs
  job.job_type = "ResNet-18 (batch size 32)";
  job.model = "ResNet-18";
  job.batch_size = 32;
  job.mode = AdaptationMode::kGns;
  Trace trace;
  trace.jobs = {job};
  try {
    Simulate(trace, "fifo", 1, &table);
    FAIL() << "the run ended";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("the simulation cannot progress"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("job 0 (test:1) runs 0.001 iterations/s"),
              std::string::npos)
        << e.what();
  }
}

// ... and a restart overhead longer than a round never makes progress negative (it did: two
// time-sharing jobs then lost 880 s of work per preemption and never finished).
TEST(Simulator, AnOverheadLongerThanTheRoundNeverUndoesWork) {
  Trace trace;
  trace.jobs = {UntypedJob(0, 0, 1000, 1), UntypedJob(1, 0, 1000, 1)};
  auto policy = MakePolicy("max_min_fairness");
  SimConfig config;
  config.gpus = 1;
  config.preemption_overhead_s = 1000;
  SimResult result = Simulator(trace, nullptr, policy.get(), config).Run();
  for (const JobRecord& job : result.jobs) {
    EXPECT_GE(job.finish_s, 1000);
    EXPECT_DOUBLE_EQ(job.gpu_s, 1000);  // the work, once: a preempted round adds nothing
  }
  // Each job alternates a lost round (the restart) with a full one, 2 x 1000 s of rounds each.
  EXPECT_DOUBLE_EQ(result.makespan_s, 3800);
}

// ... and options that could never let a run end are refused by name.
TEST(Simulator, OptionsOutsideTheirLimitsAreRefusedByName) {
  Trace trace;
  trace.jobs = {UntypedJob(0, 0, 1000, 1)};
  auto policy = MakePolicy("fifo");
  const std::pair<void (*)(SimConfig*), const char*> kBad[] = {
      {[](SimConfig* c) { c->min_reallocation_interval_s = INFINITY; },
       "--min-reallocation-interval-s must be in [0, 1000000000]"},
      {[](SimConfig* c) { c->min_reallocation_interval_s = NAN; },
       "--min-reallocation-interval-s must be in"},
      {[](SimConfig* c) { c->round_s = NAN; }, "--round-s must be in [0.001, 10000000]"},
      {[](SimConfig* c) { c->deadline_factor = -1; }, "--deadline-factor must be in"},
      {[](SimConfig* c) { c->preemption_overhead_s = INFINITY; },
       "--preemption-overhead-s must be in"},
      {[](SimConfig* c) { c->gpus = -5; }, "--gpus must be in [1, 1048576]"}};
  for (const auto& [mutate, expected] : kBad) {
    SimConfig config;
    mutate(&config);
    try {
      Simulator(trace, nullptr, policy.get(), config).Run();
      ADD_FAILURE() << "accepted: " << expected;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
}

TEST(Simulator, SameInputsGiveIdenticalResults) {
  TraceGeneratorOptions options;
  options.jobs = 80;
  ThroughputTable table = SyntheticThroughputTable();
  Trace trace = GenerateTrace(options, table);
  SimResult a = Simulate(trace, "finish_time_fairness", 16, &table);
  SimResult b = Simulate(trace, "finish_time_fairness", 16, &table);
  EXPECT_EQ(SummarizeSimulation(&a, {}).dump(), SummarizeSimulation(&b, {}).dump());
}

// Published Shockwave-repository simulations (120 jobs, 32 V100s, 120 s rounds): makespan and
// average JCT of each baseline, research notes §2.6.
TEST(SimulatorFidelity, BaselinesMatchPublishedShockwaveTableWithinTenPercent) {
  const std::string data = JIGSAW_SHARED_DATA;
  const std::string trace_path = data + "/traces/shockwave/shockwave_120.trace";
  const std::string table_path = data + "/throughputs/shockwave_tacc_throughputs.json";
  if (!std::filesystem::exists(trace_path)) GTEST_SKIP() << "shared data not found";
  Trace trace = ReadTrace(trace_path);
  ThroughputTable table = ThroughputTable::Load(table_path);
  struct Published {
    const char* policy;
    double makespan_s, avg_jct_s;
  };
  const Published published[] = {
      {"max_min_fairness", 33208, 11274},   {"finish_time_fairness", 31929, 11302},
      {"min_total_duration", 24205, 19807}, {"allox", 32489, 9926},
      {"max_sum_throughput", 31909, 9655},  {"gandiva_fair", 32367, 12574}};
  for (const Published& p : published) {
    SimResult result = Simulate(trace, p.policy, 32, &table);
    Json summary = SummarizeSimulation(&result, {});
    const double makespan = summary["makespan_s"].get<double>();
    const double jct = summary["avg_jct_s"].get<double>();
    EXPECT_NEAR(makespan / p.makespan_s, 1.0, 0.10) << p.policy << " makespan " << makespan;
    EXPECT_NEAR(jct / p.avg_jct_s, 1.0, 0.10) << p.policy << " avg JCT " << jct;
    EXPECT_EQ(summary["jobs"].get<int>(), 120);
  }
}

}  // namespace
}  // namespace jigsaw
