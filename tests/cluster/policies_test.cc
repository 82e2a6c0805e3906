#include "cluster/policies/policies.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>

#include "cluster/policies/colocation.h"
#include "core/error.h"
#include "core/rng.h"
#include "model/job_spec.h"
#include "model/throughput_table.h"
#include "solver/linear_program.h"

namespace jigsaw {
namespace {

// The first guest of a placement (-1 / 0 when it has none).
int PartnerId(const Policy::Placement& p) { return p.guests.empty() ? -1 : p.guests[0].job_id; }
double PartnerRate(const Policy::Placement& p) { return p.guests.empty() ? 0 : p.guests[0].rate; }

std::vector<PolicyJob> RandomJobs(Rng& rng, int n) {
  const int sf_choices[4] = {1, 2, 4, 8};
  std::vector<PolicyJob> jobs(n);
  for (int j = 0; j < n; ++j) {
    jobs[j].id = j;
    jobs[j].scale_factor = sf_choices[rng.UniformInt(4)];
    jobs[j].throughput = rng.Uniform(0.5, 60);
    jobs[j].remaining_steps = std::floor(rng.Uniform(100, 1e6));
    jobs[j].remaining_isolated_s = jobs[j].remaining_steps / jobs[j].throughput;
    jobs[j].elapsed_s = std::floor(rng.Uniform(0, 5000));
    jobs[j].arrival_s = 10000 - jobs[j].elapsed_s;
  }
  return jobs;
}

void ExpectFeasible(const std::vector<double>& x, const std::vector<PolicyJob>& jobs, int gpus) {
  ASSERT_EQ(x.size(), jobs.size());
  double used = 0;
  for (size_t j = 0; j < x.size(); ++j) {
    EXPECT_GE(x[j], -1e-12);
    EXPECT_LE(x[j], 1 + 1e-9);
    used += x[j] * jobs[j].scale_factor;
  }
  EXPECT_LE(used, gpus + 1e-6);
}

TEST(Policies, MaxMinFairnessGivesEqualGpuTimeWhenContended) {
  Rng rng(1);
  auto jobs = RandomJobs(rng, 40);
  PolicyContext context;
  context.gpus = 32;
  auto x = MakePolicy("max_min_fairness")->Allocate(context, jobs);
  ExpectFeasible(x, jobs, 32);
  for (size_t j = 0; j < jobs.size(); ++j) {
    EXPECT_NEAR(x[j] * jobs[j].scale_factor, 32.0 / 40, 1e-12);
  }
}

TEST(Policies, MaxSumThroughputReachesTheLpOptimum) {
  Rng rng(2);
  for (int trial = 0; trial < 20; ++trial) {
    auto jobs = RandomJobs(rng, 1 + static_cast<int>(rng.UniformInt(30)));
    PolicyContext context;
    context.gpus = 16;
    auto x = MakePolicy("max_sum_throughput")->Allocate(context, jobs);
    ExpectFeasible(x, jobs, 16);
    double value = 0;
    LinearProgram lp(LinearProgram::Sense::kMaximize);
    std::vector<std::pair<int, double>> row;
    for (size_t j = 0; j < jobs.size(); ++j) {
      value += jobs[j].throughput * x[j];
      row.push_back({lp.AddVariable(0, 1, jobs[j].throughput), jobs[j].scale_factor});
    }
    lp.AddRow(row, -LinearProgram::kInfinity, 16);
    ASSERT_EQ(lp.Solve(), LinearProgram::Status::kOptimal);
    EXPECT_NEAR(value, lp.objective_value(), 1e-6 * lp.objective_value());
  }
}

// The smallest horizon in which all jobs can finish, from an LP over s = 1 / horizon.
double LpCriticalHorizon(const std::vector<PolicyJob>& jobs, int gpus) {
  LinearProgram lp(LinearProgram::Sense::kMaximize);
  const int s = lp.AddVariable(0, LinearProgram::kInfinity, 1.0);
  std::vector<std::pair<int, double>> row;
  for (const PolicyJob& job : jobs) {
    const int v = lp.AddVariable(0, 1, 0);
    lp.AddRow({{v, job.throughput}, {s, -job.remaining_steps}}, 0, LinearProgram::kInfinity);
    row.push_back({v, static_cast<double>(job.scale_factor)});
  }
  lp.AddRow(row, -LinearProgram::kInfinity, gpus);
  EXPECT_EQ(lp.Solve(), LinearProgram::Status::kOptimal);
  return 1.0 / lp.objective_value();
}

TEST(Policies, MinTotalDurationFinishesEveryJobWithinFivePercentOfTheLpHorizon) {
  Rng rng(4);
  for (int trial = 0; trial < 20; ++trial) {
    auto jobs = RandomJobs(rng, 1 + static_cast<int>(rng.UniformInt(40)));
    PolicyContext context;
    context.gpus = 32;
    auto x = MakePolicy("min_total_duration")->Allocate(context, jobs);
    ExpectFeasible(x, jobs, 32);
    const double critical = LpCriticalHorizon(jobs, 32);
    double horizon = 0;
    for (size_t j = 0; j < jobs.size(); ++j) {
      horizon = std::max(horizon, jobs[j].remaining_steps / (jobs[j].throughput * x[j]));
    }
    EXPECT_GE(horizon, critical * (1 - 1e-6));
    EXPECT_LE(horizon, critical * 1.06);
  }
}

TEST(Policies, FinishTimeFairnessEqualisesTheWorstRho) {
  Rng rng(5);
  auto jobs = RandomJobs(rng, 50);
  PolicyContext context;
  context.gpus = 32;
  auto policy = MakePolicy("finish_time_fairness");
  auto x = policy->Allocate(context, jobs);
  ExpectFeasible(x, jobs, 32);
  // rho under the returned allocation vs. rho of the equal-share allocation it must not exceed.
  double worst = 0, worst_equal = 0;
  const double m = jobs.size();
  for (size_t j = 0; j < jobs.size(); ++j) {
    const double iso = std::min(1.0, 32 / (m * jobs[j].scale_factor));
    const double expected = jobs[j].remaining_steps / (jobs[j].throughput * iso);
    worst = std::max(
        worst,
        (jobs[j].elapsed_s + jobs[j].remaining_steps / (jobs[j].throughput * x[j])) / expected);
    worst_equal = std::max(worst_equal, (jobs[j].elapsed_s + expected) / expected);
  }
  EXPECT_LE(worst, worst_equal + 1e-9);
  EXPECT_GT(worst, 1.0);
}

TEST(Policies, GreedyPoliciesRankAsDocumented) {
  std::vector<PolicyJob> jobs(3);
  for (int j = 0; j < 3; ++j) {
    jobs[j].id = j;
    jobs[j].scale_factor = 2;
    jobs[j].throughput = 1;
  }
  jobs[0].arrival_s = 0, jobs[1].arrival_s = 10, jobs[2].arrival_s = 20;
  jobs[0].remaining_isolated_s = 500, jobs[1].remaining_isolated_s = 100;
  jobs[2].remaining_isolated_s = 300;
  jobs[0].attained_gpu_s = 50000, jobs[1].attained_gpu_s = 4000, jobs[2].attained_gpu_s = 0;
  PolicyContext context;
  context.gpus = 4;
  EXPECT_EQ(MakePolicy("fifo")->Allocate(context, jobs), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(MakePolicy("srtf")->Allocate(context, jobs), (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(MakePolicy("las")->Allocate(context, jobs), (std::vector<double>{0, 1, 1}));
  auto gandiva = MakePolicy("gandiva_fair")->Allocate(context, jobs);
  for (double share : gandiva) EXPECT_DOUBLE_EQ(share, 1.0);
}

TEST(Policies, AlloxPicksTheShortestOfTheOldestAndNeverPreemptsThem) {
  // 10 single-GPU jobs on 1 GPU: AlloX considers the oldest max(0.2 * 10, 1) = 2 jobs and
  // picks the shorter of them.
  std::vector<PolicyJob> jobs(10);
  for (int j = 0; j < 10; ++j) {
    jobs[j].id = j;
    jobs[j].scale_factor = 1;
    jobs[j].throughput = 1;
    jobs[j].elapsed_s = 1000 - j;
    jobs[j].remaining_isolated_s = j == 1 ? 50 : 500 + j;
    jobs[j].remaining_steps = jobs[j].remaining_isolated_s;
  }
  jobs[5].remaining_isolated_s = 1;  // shortest, but too young to be considered
  PolicyContext context;
  context.gpus = 1;
  auto allox = MakePolicy("allox");
  auto first = allox->Allocate(context, jobs);
  std::vector<double> expected(10, 0.0);
  expected[1] = 1.0;
  EXPECT_EQ(first, expected);
  PolicyJob older = jobs[0];
  older.id = 10;
  older.elapsed_s = 5000;
  older.remaining_isolated_s = 1;
  jobs.push_back(older);
  auto second = allox->Allocate(context, jobs);
  EXPECT_EQ(second[1], 1.0);  // keeps its GPU although an older, shorter job is waiting
  EXPECT_EQ(second[10], 0.0);
}

TEST(Policies, UnknownNameListsTheValidOnes) {
  try {
    MakePolicy("best_policy");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("max_min_fairness"), std::string::npos);
  }
  EXPECT_EQ(MakePolicy("max_sum_throughput_perf")->name(), "max_sum_throughput");
}

}  // namespace
}  // namespace jigsaw

namespace jigsaw {
namespace {

TEST(Policies, PackingColocatesOnlyWhenMemoryFitsAndThroughputGains) {
  // LM (batch size 5) pairs well with itself; Transformer 128 + ResNet-50 128 exceed 16 GB.
  const ThroughputTable table = ThroughputTable::Parse("pairs.json", R"J({"v100": {
    "('LM (batch size 5)', 1)": {"null": 10.0, "('LM (batch size 5)', 1)": [8.0, 8.0]},
    "('Transformer (batch size 128)', 1)": {"null": 5.0,
        "('ResNet-50 (batch size 128)', 1)": [4.5, 4.5]},
    "('ResNet-50 (batch size 128)', 1)": {"null": 5.0,
        "('Transformer (batch size 128)', 1)": [4.5, 4.5]}}})J");
  JobSpec lm, transformer, resnet;
  lm.model = "LM", lm.job_type = "LM (batch size 5)", lm.batch_size = 5;
  transformer.model = "Transformer", transformer.job_type = "Transformer (batch size 128)";
  transformer.batch_size = 128;
  resnet.model = "ResNet-50", resnet.job_type = "ResNet-50 (batch size 128)";
  resnet.batch_size = 128;
  const JobSpec* specs[4] = {&lm, &lm, &transformer, &resnet};
  std::vector<PolicyJob> jobs(4);
  for (int j = 0; j < 4; ++j) {
    jobs[j].id = j;
    jobs[j].spec = specs[j];
    jobs[j].batch_size = specs[j]->batch_size;
    jobs[j].throughput = 1;
    jobs[j].elapsed_s = 100;
  }
  // Least served first: jobs 0 (LM) and 2 (Transformer) get the two GPUs, then 1 and 3 look
  // for partners.
  jobs[0].attained_s = 0, jobs[2].attained_s = 10, jobs[1].attained_s = 20;
  jobs[3].attained_s = 30;
  PolicyOptions options;
  options.throughputs = &table;
  options.colocation_base = "least_served";
  auto packing = MakePolicy("packing", options);
  PolicyContext context;
  context.gpus = 2;
  auto placements = packing->PlanPlacements(context, jobs);
  ASSERT_EQ(placements.size(), 2u);
  EXPECT_EQ(placements[0].job_id, 0);
  EXPECT_EQ(PartnerId(placements[0]), 1);  // LM + LM: 0.8 + 0.8 > 1.1, 3.4 GB
  EXPECT_DOUBLE_EQ(placements[0].rate, 0.8);
  EXPECT_DOUBLE_EQ(PartnerRate(placements[0]), 0.8);
  EXPECT_EQ(placements[1].job_id, 2);
  EXPECT_EQ(PartnerId(placements[1]), -1);  // 12.2 + 10.3 GB do not fit in 16 GB
  // A host that, slowed to 0.8, would outlast every job stays alone (the makespan's critical
  // path): 1000 s / 0.8 = 1250 s > 1100 s; with a 1300 s job around it may share.
  for (PolicyJob& job : jobs) job.remaining_isolated_s = 500;
  jobs[0].remaining_isolated_s = 1000, jobs[3].remaining_isolated_s = 1100;
  EXPECT_EQ(PartnerId(packing->PlanPlacements(context, jobs)[0]), -1);
  jobs[3].remaining_isolated_s = 1300;
  EXPECT_EQ(PartnerId(packing->PlanPlacements(context, jobs)[0]), 1);
}

}  // namespace
}  // namespace jigsaw

#include <filesystem>

#include "cluster/simulator.h"
#include "cluster/spb_cost_model.h"
#include "cluster/spb_options.h"
#include "core/error.h"
#include "core/output.h"
#include "model/job_spec.h"
#include "model/trace_generator.h"
#include "spb/statistical_efficiency.h"

namespace jigsaw {
namespace {

TEST(SpbOptions, FallbackStaircaseFreesComputeOnShallowWorkers) {
  auto options = FallbackSpbOptions("ResNet-50", 64, 4);
  ASSERT_EQ(options.size(), 2u);
  EXPECT_EQ(options[0].plan, "full");
  const SpbOption& staircase = options[1];
  EXPECT_EQ(staircase.plan, "staircase");
  // Depths 2, 4, 6, 8 of 8 blocks; a worker computes (1 + 2 d / L) / 3 of an iteration.
  ASSERT_EQ(staircase.worker_busy.size(), 4u);
  EXPECT_NEAR(staircase.worker_busy[0], 0.5, 1e-12);
  EXPECT_NEAR(staircase.worker_busy[1], 2.0 / 3, 1e-12);
  EXPECT_NEAR(staircase.worker_busy[3], 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(staircase.iteration_time, 1.0);  // the full-depth worker sets the pace
  EXPECT_LT(staircase.worker_memory[0], staircase.worker_memory[3]);
  EXPECT_DOUBLE_EQ(staircase.worker_memory[3], 1.0);
  EXPECT_LT(staircase.bytes, 1.0);
  EXPECT_EQ(FallbackSpbOptions("ResNet-50", 64, 1).size(), 1u);
  EXPECT_TRUE(FallbackSpbOptions("Unknown", 64, 4).empty());
  const double share = ActivationMemoryShare("ResNet-50", 128);
  EXPECT_GT(share, 0.3);
  EXPECT_LT(share, 0.9);
}

// A 4-GPU ResNet-50 host and a 1-GPU LM guest, the host less served (it gets the GPUs).
struct HostAndGuest {
  JobSpec host_spec, guest_spec;
  std::vector<PolicyJob> jobs;
  HostAndGuest(int host_gpus, int guest_gpus, const std::string& guest_model = "LM",
               int guest_batch = 20) {
    host_spec.model = "ResNet-50", host_spec.job_type = "ResNet-50 (batch size 64)";
    host_spec.batch_size = 64, host_spec.scale_factor = host_gpus;
    guest_spec.model = guest_model;
    guest_spec.job_type = MakeJobType(guest_model, guest_batch);
    guest_spec.batch_size = guest_batch, guest_spec.scale_factor = guest_gpus;
    jobs.resize(2);
    jobs[0].id = 0, jobs[0].spec = &host_spec, jobs[0].batch_size = 64;
    jobs[0].scale_factor = host_gpus;
    jobs[1].id = 1, jobs[1].spec = &guest_spec, jobs[1].batch_size = guest_batch;
    jobs[1].scale_factor = guest_gpus;
    for (PolicyJob& job : jobs) job.throughput = 1, job.elapsed_s = 100;
    jobs[1].attained_s = 50;
  }
};

TEST(Policies, JigsawPutsSmallGuestsOnTheIdleWorkersOfAnSpbHost) {
  HostAndGuest pair(4, 1);
  PolicyContext context;
  context.gpus = 4;
  PolicyOptions options;  // no throughput table: only SPB placements are possible
  options.colocation_base = "least_served";
  auto without = MakePolicy("jigsaw", options)->PlanPlacements(context, pair.jobs);
  ASSERT_EQ(without.size(), 1u);
  EXPECT_EQ(PartnerId(without[0]), -1);  // no SPB cost model: no SPB
  SpbCostModelOptions spb_options;
  spb_options.fixed_efficiency = 0;
  SpbCostModel unknown(spb_options);
  options.spb = &unknown;
  EXPECT_EQ(PartnerId(MakePolicy("jigsaw", options)->PlanPlacements(context, pair.jobs)[0]), -1);
  // Goodput 4 x 0.85 + 1 x 0.5 = 3.9 GPUs' worth: the guest adds less than the host loses.
  spb_options.fixed_efficiency = 0.85;
  SpbCostModel lossy(spb_options);
  options.spb = &lossy;
  EXPECT_EQ(PartnerId(MakePolicy("jigsaw", options)->PlanPlacements(context, pair.jobs)[0]), -1);
  // 4 x 1.0 + 0.5 = 4.5 gains 0.5, over 10% of the guest's GPU.
  spb_options.fixed_efficiency = 1.0;
  SpbCostModel spb(spb_options);
  options.spb = &spb;
  for (const char* name : {"jigsaw", "spb_only"}) {
    auto with = MakePolicy(name, options)->PlanPlacements(context, pair.jobs);
    ASSERT_EQ(with.size(), 1u);
    EXPECT_EQ(with[0].job_id, 0);
    EXPECT_EQ(PartnerId(with[0]), 1);
    EXPECT_DOUBLE_EQ(with[0].rate, 1.0);
    EXPECT_NEAR(PartnerRate(with[0]), 0.5, 1e-12);  // the shallowest worker idles half the time
  }

  EXPECT_EQ(PartnerId(MakePolicy("packing", options)->PlanPlacements(context, pair.jobs)[0]), -1);
}

TEST(SpbCostModel, MeasuredEfficiencyFileIsTheDefaultSource) {
  SpbCostModelOptions spb_options;
  spb_options.efficiency_file =
      std::string(JIGSAW_SOURCE_DIR) + "/data/spb_statistical_efficiency.json";
  SpbCostModel spb(spb_options);
  const std::vector<SpbOption>& options = spb.Options("ResNet-50", 64, 4);
  ASSERT_EQ(options.size(), 2u);
  const StatisticalEfficiencyTable table = ReadStatisticalEfficiency(spb_options.efficiency_file);
  const StatisticalEfficiency lenet =
      LookupStatisticalEfficiency(table, "lenet", ParseSpbPlan("staircase"), 4);
  ASSERT_TRUE(lenet.known);
  EXPECT_DOUBLE_EQ(options[1].statistical_efficiency, lenet.efficiency);
  EXPECT_NE(options[1].efficiency_source.find("proxy for ResNet-50"), std::string::npos);
  ASSERT_EQ(spb.Uses().size(), 1u);
  EXPECT_TRUE(spb.Uses()[0].proxy);
  EXPECT_EQ(spb.Uses()[0].model, "ResNet-50");
  spb_options.proxy_model = "never-measured";
  SpbCostModel none(spb_options);
  EXPECT_EQ(none.Options("ResNet-50", 64, 4).size(), 1u);  // no number is invented
}

TEST(SpbCostModel, ProfileFedOptionsFollowTheIterationEstimate) {
  // Four blocks, backward = 2 x forward, equal parameters; no comm section (compute only).
  ModelProfile profile;
  profile.model = "toy";
  profile.batch = 32;
  profile.input_shape = {1, 8, 8};
  for (int b = 0; b < 4; ++b) {
    BlockProfile block;
    block.name = "b" + std::to_string(b);
    block.forward_s = 0.001, block.backward_s = 0.002;
    block.backward_weight_s = 0.001, block.backward_input_s = 0.001;
    block.activation_bytes = 4096, block.parameter_bytes = 1 << 20;
    profile.blocks.push_back(block);
  }
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("jigsaw_spb_cost_model_profile_" + std::to_string(getpid()) + ".json"))
                               .string();
  WriteFileAtomically(path, ProfileToJson(profile).dump(2));
  SpbCostModelOptions spb_options;
  spb_options.profiles["ResNet-50"] = path;
  spb_options.fixed_efficiency = 0.8;
  SpbCostModel spb(spb_options);
  const std::vector<SpbOption>& options = spb.Options("ResNet-50", 64, 4);
  ASSERT_EQ(options.size(), 2u);
  EXPECT_NE(options[0].source.find(path), std::string::npos);
  const SpbOption& staircase = options[1];
  EXPECT_DOUBLE_EQ(staircase.statistical_efficiency, 0.8);
  // The full-depth worker still sets the pace; shallower workers compute less and send less.
  EXPECT_NEAR(staircase.iteration_time, 1.0, 1e-5);
  ASSERT_EQ(staircase.worker_busy.size(), 4u);
  EXPECT_LT(staircase.worker_busy[0], staircase.worker_busy[3]);
  EXPECT_NEAR(staircase.worker_busy[3], 1.0, 1e-5);
  // Depth 1 of 4: forward 4 ms + backward of the lowest trainable block (weights only) 1 ms.
  EXPECT_NEAR(staircase.worker_busy[0], (0.004 + 0.001) / (0.004 + 0.001 + 3 * 0.002), 1e-5);
  EXPECT_LT(staircase.worker_memory[0], 1.0);
  EXPECT_LT(staircase.bytes, 1.0);
  EXPECT_NEAR(spb.FullBytesPerWorker("ResNet-50", 64, 4), 2.0 * 3 / 4 * 4 * (1 << 20), 1.0);
  // The fallback for a model without a profile.
  EXPECT_EQ(spb.Options("ResNet-18", 32, 4)[1].source, "fallback");
  EXPECT_NEAR(spb.FullBytesPerWorker("ResNet-18", 32, 4), 1.5 * 4 * 11.17e6, 1.0);
  spb_options.profiles["ResNet-50"] = path + ".missing";
  EXPECT_THROW(SpbCostModel{spb_options}, InputError);
}

TEST(Policies, CoLocatedGangsSpanningNodesShareTheNics) {
  HostAndGuest pair(8, 5, "ResNet-18", 32);
  PolicyContext context;
  context.gpus = 8;
  SpbCostModelOptions spb_options;
  spb_options.fixed_efficiency = 1.0;
  SpbCostModel spb(spb_options);
  PolicyOptions options;
  options.colocation_base = "least_served";
  options.spb = &spb;
  options.gpus_per_node = 4;
  options.nic_gbps = 1e6;  // ample: no sharing
  auto ample = MakePolicy("spb_only", options)->PlanPlacements(context, pair.jobs);
  ASSERT_EQ(ample.size(), 1u);
  ASSERT_EQ(PartnerId(ample[0]), 1);
  EXPECT_DOUBLE_EQ(ample[0].rate, 1.0);
  // Depths 1..8 of 8 blocks: the guest's fifth GPU computes (1 + 2 x 5/8) / 3 = 0.75.
  EXPECT_NEAR(PartnerRate(ample[0]), 0.25, 1e-12);
  // A NIC slower than either job's egress: the pair shares it, both slow down by
  // max(h, g) / (h + g), h and g the host's and guest's egress at their co-located speeds.
  options.nic_gbps = 1e-6;
  auto shared = MakePolicy("spb_only", options)->PlanPlacements(context, pair.jobs);
  const double h =
      1.0 * spb.Options("ResNet-50", 64, 8)[1].bytes * spb.FullBytesPerWorker("ResNet-50", 64, 8);
  const double g = 0.25 * spb.FullBytesPerWorker("ResNet-18", 32, 5);
  const double share = std::max(h, g) / (h + g);
  if ((8 * share + 5 * 0.25 * share) / 8 > 1.1 && share >= 0.5) {
    ASSERT_EQ(PartnerId(shared[0]), 1);
    EXPECT_NEAR(shared[0].rate, share, 1e-9);
    EXPECT_NEAR(PartnerRate(shared[0]), 0.25 * share, 1e-9);
  } else {
    EXPECT_EQ(PartnerId(shared[0]), -1);  // sharing makes the pair not worth it
  }
  // Gangs within one node never touch the NIC.
  HostAndGuest small(4, 1);
  context.gpus = 4;
  auto local = MakePolicy("spb_only", options)->PlanPlacements(context, small.jobs);
  EXPECT_DOUBLE_EQ(local[0].rate, 1.0);
}

// jobs[0] is the least served (the host when only one fits); the others wait.
std::vector<PolicyJob> Jobs(const std::vector<const JobSpec*>& specs) {
  std::vector<PolicyJob> jobs(specs.size());
  for (size_t j = 0; j < specs.size(); ++j) {
    jobs[j].id = static_cast<int>(j);
    jobs[j].spec = specs[j];
    jobs[j].batch_size = specs[j]->batch_size;
    jobs[j].scale_factor = specs[j]->scale_factor;
    jobs[j].throughput = 1;
    jobs[j].elapsed_s = 100;
    jobs[j].attained_s = 10.0 * j;
    jobs[j].total_steps = 1000;
  }
  return jobs;
}

JobSpec Spec(const std::string& model, int batch, int gpus) {
  JobSpec spec;
  spec.model = model;
  spec.job_type = MakeJobType(model, batch);
  spec.batch_size = batch;
  spec.scale_factor = gpus;
  return spec;
}

TEST(Policies, JigsawPutsSeveralGuestsOnDisjointShallowWorkers) {
  const JobSpec host = Spec("ResNet-50", 64, 8), lm = Spec("LM", 20, 1);
  const std::vector<PolicyJob> jobs = Jobs({&host, &lm, &lm, &lm});
  SpbCostModelOptions spb_options;
  spb_options.fixed_efficiency = 1.0;
  SpbCostModel spb(spb_options);
  PolicyOptions options;
  options.colocation_base = "least_served";
  options.spb = &spb;
  PolicyContext context;
  context.gpus = 8;
  auto placements = MakePolicy("spb_only", options)->PlanPlacements(context, jobs);
  ASSERT_EQ(placements.size(), 1u);
  ASSERT_EQ(placements[0].guests.size(), 3u);
  // Depths 1..8 of 8 blocks: the three shallowest GPUs compute 5/12, 1/2 and 7/12 of an iteration.
  EXPECT_NEAR(placements[0].guests[0].rate, 7.0 / 12, 1e-12);
  EXPECT_NEAR(placements[0].guests[1].rate, 0.5, 1e-12);
  EXPECT_NEAR(placements[0].guests[2].rate, 5.0 / 12, 1e-12);
  EXPECT_DOUBLE_EQ(placements[0].rate, 1.0);
  options.colocation.max_guests = 1;
  EXPECT_EQ(MakePolicy("spb_only", options)->PlanPlacements(context, jobs)[0].guests.size(), 1u);
  // Time slicing that costs a quarter of each sharer's speed: the host drops to 0.75, losing
  // 2 GPUs' worth for a guest's 0.75 x 7/12.
  options.colocation.max_guests = 4;
  options.colocation.sharing_overhead = 0.25;
  EXPECT_TRUE(MakePolicy("spb_only", options)->PlanPlacements(context, jobs)[0].guests.empty());
  // Not before the host's warm-up at full backprop is done.
  options.colocation.sharing_overhead = 0;
  options.colocation.spb_warmup = 0.5;
  EXPECT_TRUE(MakePolicy("spb_only", options)->PlanPlacements(context, jobs)[0].guests.empty());
  std::vector<PolicyJob> warm = jobs;
  warm[0].steps_run = 600;
  EXPECT_EQ(MakePolicy("spb_only", options)->PlanPlacements(context, warm)[0].guests.size(), 3u);
}

TEST(Policies, JigsawInterleavesComplementaryStaircasePairs) {
  const JobSpec a = Spec("ResNet-50", 64, 4);
  const std::vector<PolicyJob> jobs = Jobs({&a, &a});
  SpbCostModelOptions spb_options;
  spb_options.fixed_efficiency = 1.0;
  SpbCostModel spb(spb_options);
  PolicyOptions options;
  options.colocation_base = "least_served";
  options.spb = &spb;
  options.colocation.spb_guests = false;
  PolicyContext context;
  context.gpus = 4;
  // Busy 1/2, 2/3, 5/6, 1 per worker: deep on shallow gives 3/2 per GPU, both at 2/3 speed.
  auto placements = MakePolicy("spb_only", options)->PlanPlacements(context, jobs);
  ASSERT_EQ(placements.size(), 1u);
  ASSERT_EQ(placements[0].guests.size(), 1u);
  EXPECT_NEAR(placements[0].rate, 2.0 / 3, 1e-12);
  EXPECT_NEAR(placements[0].guests[0].rate, 2.0 / 3, 1e-12);
  options.colocation.interleave = false;
  EXPECT_TRUE(MakePolicy("spb_only", options)->PlanPlacements(context, jobs)[0].guests.empty());
  // At an efficiency of 0.8 the pair makes 4 x 2 x 0.533 = 4.27 GPUs' worth: it gains 0.27,
  // under 10% of the guest's 4 GPUs.
  options.colocation.interleave = true;
  spb_options.fixed_efficiency = 0.8;
  SpbCostModel lossy(spb_options);
  options.spb = &lossy;
  EXPECT_TRUE(MakePolicy("spb_only", options)->PlanPlacements(context, jobs)[0].guests.empty());
}

TEST(Policies, SpbMemorySavingsAdmitGuestsThatWouldNotFitOtherwise) {
  const JobSpec host = Spec("ResNet-50", 128, 4), guest = Spec("ResNet-50", 64, 1);
  const std::vector<PolicyJob> jobs = Jobs({&host, &guest});
  SpbCostModelOptions spb_options;
  spb_options.fixed_efficiency = 1.0;
  SpbCostModel spb(spb_options);
  PolicyOptions options;
  options.colocation_base = "least_served";
  options.spb = &spb;
  // A GPU just too small for both at full backprop.
  options.colocation.gpu_memory_mb = WorkerMemoryMb(jobs[0]) + WorkerMemoryMb(jobs[1]) - 1;
  PolicyContext context;
  context.gpus = 4;
  EXPECT_EQ(MakePolicy("spb_only", options)->PlanPlacements(context, jobs)[0].guests.size(), 1u);
  options.colocation.spb_memory = false;
  EXPECT_TRUE(MakePolicy("spb_only", options)->PlanPlacements(context, jobs)[0].guests.empty());
}

TEST(Policies, PackingNormalisesPairRatesByTheirOwnTablesIsolatedThroughputs) {
  // Gavel measured LM alone at 10 it/s and 8 it/s beside another LM; a table that re-measured
  // LM alone at 4 it/s but kept Gavel's co-location entry would make sharing look free.
  const ThroughputTable gavel = ThroughputTable::Parse("gavel.json", R"J({"v100": {
    "('LM (batch size 5)', 1)": {"null": 10.0, "('LM (batch size 5)', 1)": [8.0, 8.0]}}})J");
  const ThroughputTable mixed = ThroughputTable::Parse("mixed.json", R"J({"v100": {
    "('LM (batch size 5)', 1)": {"null": 4.0, "('LM (batch size 5)', 1)": [8.0, 8.0]}}})J");
  EXPECT_EQ(CheckColocationEntries(mixed, "v100").faster_than_alone, 1);
  EXPECT_EQ(CheckColocationEntries(gavel, "v100").faster_than_alone, 0);
  const JobSpec lm = Spec("LM", 5, 1);
  const std::vector<PolicyJob> jobs = Jobs({&lm, &lm});
  PolicyOptions options;
  options.colocation_base = "least_served";
  options.throughputs = &mixed;
  PolicyContext context;
  context.gpus = 1;
  EXPECT_DOUBLE_EQ(MakePolicy("packing", options)->PlanPlacements(context, jobs)[0].rate, 1.0);
  options.colocation_throughputs = &gavel;
  auto placements = MakePolicy("packing", options)->PlanPlacements(context, jobs);
  EXPECT_DOUBLE_EQ(placements[0].rate, 0.8);
  EXPECT_DOUBLE_EQ(PartnerRate(placements[0]), 0.8);
}

TEST(Policies, JigsawOnAShockwaveBaseRunsShockwavesJobsAlone) {
  // The synthetic table has no co-location entries and no SPB model is given: nothing can share
  // GPUs, so jigsaw and its ablations are Shockwave's plan exactly.
  const ThroughputTable table = SyntheticThroughputTable();
  TraceGeneratorOptions generator;
  generator.jobs = 60;
  const Trace trace = GenerateTrace(generator, table);
  SimConfig config;
  config.gpus = 16;
  PolicyOptions options;
  options.throughputs = &table;
  auto shockwave = MakePolicy("shockwave", options);
  const SimResult reference = Simulator(trace, &table, shockwave.get(), config).Run();
  for (const char* name : {"packing", "jigsaw"}) {
    auto policy = MakePolicy(name, options);
    const SimResult result = Simulator(trace, &table, policy.get(), config).Run();
    ASSERT_EQ(result.jobs.size(), reference.jobs.size());
    for (size_t j = 0; j < result.jobs.size(); ++j) {
      EXPECT_EQ(result.jobs[j].finish_s, reference.jobs[j].finish_s) << name << " job " << j;
    }
  }
}

}  // namespace
}  // namespace jigsaw
