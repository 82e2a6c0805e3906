// The round mechanism's incremental selection (PickJobs on identical GPUs) must pick exactly what
// recomputing every priority and ranking every job picks: whole simulations are compared.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cluster/policies/policies.h"
#include "cluster/sim_output.h"
#include "cluster/simulator.h"
#include "core/rng.h"
#include "model/trace_generator.h"

namespace jigsaw {
namespace {

SimResult Simulate(const Trace& trace, const ThroughputTable* table, const std::string& policy_name,
                   SimConfig config, bool reference) {
  auto policy = MakePolicy(policy_name);
  config.reference_pick = reference;
  Simulator simulator(trace, table, policy.get(), config);
  return simulator.Run();
}

void ExpectIdentical(SimResult& a, SimResult& b, const std::string& what) {
  ASSERT_EQ(a.rounds.size(), b.rounds.size()) << what;
  for (size_t r = 0; r < a.rounds.size(); ++r) {
    ASSERT_EQ(a.rounds[r].scheduled, b.rounds[r].scheduled) << what << " round " << r;
    ASSERT_EQ(a.rounds[r].start_s, b.rounds[r].start_s) << what << " round " << r;
  }
  ASSERT_EQ(a.jobs.size(), b.jobs.size()) << what;
  for (size_t j = 0; j < a.jobs.size(); ++j) {
    ASSERT_EQ(a.jobs[j].finish_s, b.jobs[j].finish_s) << what << " job " << j;
    ASSERT_EQ(a.jobs[j].gpu_s, b.jobs[j].gpu_s) << what << " job " << j;
  }
  EXPECT_EQ(SummarizeSimulation(&a, {}).dump(), SummarizeSimulation(&b, {}).dump()) << what;
}

// Overloaded random traces (queues of up to ~100 jobs on 2-16 GPUs), with and without a
// reallocation interval, on every policy that uses the round mechanism. Typed static jobs (the
// incremental path is off for jobs that change their batch size) and type-less ones with equal
// sizes, which give many exactly tied allocations.
TEST(RoundSelection, IncrementalPicksEqualRankingEveryJobOnRandomOverloadedTraces) {
  const ThroughputTable table = SyntheticThroughputTable();
  const std::vector<std::string> policies = {"min_total_duration",    "max_min_fairness",
                                             "max_min_fairness_perf", "finish_time_fairness",
                                             "gandiva_fair",          "allox",
                                             "max_sum_throughput",    "las_perf"};
  Rng rng(13);
  int compared = 0;
  for (int trial = 0; trial < 12; ++trial) {
    SimConfig config;
    const int gpu_choices[4] = {2, 4, 8, 16};
    const size_t size = rng.UniformInt(4);
    config.gpus = gpu_choices[size];
    const double intervals[3] = {0, 300, 1000};
    config.min_reallocation_interval_s = intervals[rng.UniformInt(3)];
    TraceGeneratorOptions options;
    const double sf_mix[4][4] = {// GPUs per job 1, 2, 4, 8: only gangs that fit
                                 {0.7, 0.3, 0, 0},
                                 {0.6, 0.3, 0.1, 0},
                                 {0.5, 0.3, 0.15, 0.05},
                                 {0.5, 0.3, 0.15, 0.05}};
    for (int k = 0; k < 4; ++k) options.scale_factor_mix[k] = sf_mix[size][k];
    options.jobs = 30 + static_cast<int>(rng.UniformInt(90));
    options.mean_interarrival_s = 5 + static_cast<double>(rng.UniformInt(60));
    options.min_duration_h = 0.1;
    options.max_duration_h = 0.5 + static_cast<double>(rng.UniformInt(6));
    options.mode_mix[0] = 1;
    options.mode_mix[1] = 0;
    options.mode_mix[2] = 0;
    options.seed = 100 + static_cast<uint64_t>(trial);
    Trace trace = GenerateTrace(options, table);
    const bool typeless = trial % 3 == 2;
    if (typeless) {
      for (JobSpec& job : trace.jobs) {
        job.job_type.clear();
        job.total_steps = std::round(job.duration_s);
      }
    }
    for (const std::string& policy : policies) {
      const std::string what = policy + " trial " + std::to_string(trial) + " (" +
                               std::to_string(trace.jobs.size()) + " jobs, " +
                               std::to_string(config.gpus) + " GPUs)";
      SimResult plain = Simulate(trace, typeless ? nullptr : &table, policy, config, true);
      SimResult incremental = Simulate(trace, typeless ? nullptr : &table, policy, config, false);
      ExpectIdentical(plain, incremental, what);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 12 * 8);
}

}  // namespace
}  // namespace jigsaw
