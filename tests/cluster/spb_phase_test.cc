// Phase plans in the scheduler (src/cluster/spb_phase_model.h), the interference model of guests
// in freed capacity (src/cluster/freed_capacity.h), their placements never exceeding GPU memory,
// the spb metrics in summary.json and bad phase-plan input on the command line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "cluster/freed_capacity.h"
#include "cluster/policies/colocation.h"
#include "cluster/policy.h"
#include "cluster/spb_cost_model.h"
#include "cluster/spb_options.h"
#include "cluster/spb_phase_model.h"
#include "core/error.h"
#include "model/job_spec.h"
#include "model/throughput_table.h"
#include "test_util/shell.h"

namespace jigsaw {
namespace {

// LeNet's plan: half the run at full backprop, then 3 of 5 blocks frozen (compute 0.4,
// activations 0.2, bytes 0.1) at efficiency 0.8 [0.7, 0.9].
std::string PlanFile() {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("jigsaw_phases_" + std::to_string(getpid()) + ".csv"))
                               .string();
  std::ofstream(path) << kPhasePlanFormatLine << "\n"
                      << kPhasePlanHeader << "\n"
                      << "lenet,4,32,adaptive,warmup,0.5,0,5,1,1;1;1;1,1;1;1;1,1,1,1,1,t\n"
                      << "lenet,4,32,adaptive,frozen,0.5,3,5,0.5,0.4;0.4;0.4;0.4,"
                         "0.2;0.2;0.2;0.2,0.1,0.8,0.7,0.9,t\n";
  return path;
}

TEST(SpbPhaseModel, AProxyPlanIsCostedWithTheJobsOwnShape) {
  SpbPhaseModelOptions options;
  options.file = PlanFile();
  const SpbPhaseModel model(options);
  const JobPhases* phases = model.Phases("ResNet-50", 64, 1);
  ASSERT_NE(phases, nullptr);
  ASSERT_EQ(phases->phases.size(), 2u);
  EXPECT_DOUBLE_EQ(phases->phases[0].end, 0.5);
  EXPECT_FALSE(phases->phases[0].saves);
  EXPECT_DOUBLE_EQ(phases->phases[0].efficiency, 1.0);
  const JobPhase& frozen = phases->phases[1];
  EXPECT_TRUE(frozen.saves);
  EXPECT_DOUBLE_EQ(frozen.frozen_share, 0.6);
  // Fallback shape, backward = 2 x forward: (1 + 2 x 0.4) / 3 of an iteration; compute-bound.
  EXPECT_NEAR(frozen.compute, 0.6, 1e-12);
  EXPECT_NEAR(frozen.iteration_time, 0.6, 1e-12);
  EXPECT_NEAR(frozen.memory, 1 - ActivationMemoryShare("ResNet-50", 64) * 0.6, 1e-12);
  EXPECT_NEAR(frozen.bytes, 0.4, 1e-12);
  EXPECT_DOUBLE_EQ(frozen.efficiency, 0.8);
  EXPECT_EQ(phases->Index(0.49), 0);
  EXPECT_EQ(phases->Index(0.5), 1);
  EXPECT_EQ(phases->Index(2.0), 1);
  ASSERT_EQ(model.Uses().size(), 1u);
  EXPECT_TRUE(model.Uses()[0].proxy);
  EXPECT_EQ(model.Uses()[0].cost_source, "fallback");
  EXPECT_EQ(model.Uses()[0].source, options.file + ":3");
  // A model with no memory profile and no profile has no cost shape: no phase plan.
  EXPECT_EQ(model.Phases("Unknown", 64, 1), nullptr);
  // The job's own plan is used as measured.
  EXPECT_NEAR(model.Phases("LeNet", 32, 4)->phases[1].compute, 0.4, 1e-12);
  for (const SpbPhaseUse& use : model.Uses()) EXPECT_EQ(use.proxy, use.model != "LeNet");
  std::filesystem::remove(options.file);
}

TEST(SpbPhaseModel, SensitivityOverridesChangeWhatTheyName) {
  SpbPhaseModelOptions options;
  options.file = PlanFile();
  options.warmup_fraction = 0.2;
  options.compute_bound = 0.5;
  options.bound = SpbPhaseModelOptions::Bound::kLow;
  options.frozen_share = 0.3;
  const SpbPhaseModel model(options);
  const JobPhases& phases = *model.Phases("ResNet-50", 64, 1);
  EXPECT_DOUBLE_EQ(phases.phases[0].end, 0.2);
  const JobPhase& frozen = phases.phases[1];
  EXPECT_NEAR(frozen.compute, (1 + 2 * 0.7) / 3, 1e-12);
  EXPECT_NEAR(frozen.iteration_time, 1 - 0.5 * (1 - frozen.compute), 1e-12);
  EXPECT_DOUBLE_EQ(frozen.efficiency, 0.7);
  options.fixed_efficiency = 0.95;
  EXPECT_DOUBLE_EQ(SpbPhaseModel(options).Phases("ResNet-50", 64, 1)->phases[1].efficiency, 0.95);
  options.compute_bound = 2;
  EXPECT_THROW(SpbPhaseModel{options}, UsageError);
  std::filesystem::remove(options.file);
}

TEST(FreedCapacity, CoRunsFlatOutOrPacesTheHostWhicheverGivesMore) {
  FreedCapacityModel model;
  // Host alone at 1/0.6 iterations per full-backprop iteration time, efficiency 0.8; a pair that
  // runs well together (0.7, 0.7): both flat out.
  FreedCapacityRates r = FreedCapacityCoRun(1 / 0.6, 0.8, 0.7, 0.7, model);
  EXPECT_DOUBLE_EQ(r.co_run_share, 1.0);
  EXPECT_NEAR(r.host_speed, 0.7 / 0.6, 1e-12);
  EXPECT_NEAR(r.guest_speed, 0.7, 1e-12);
  // A guest that gains little beside the host: the host keeps its full-backprop pace (speed 1)
  // and the guest runs alone in the freed share, tau = 1 / (x_h S) = 2/3 of the time together.
  r = FreedCapacityCoRun(1 / 0.6, 0.5, 0.9, 0.05, model);
  EXPECT_NEAR(r.co_run_share, 0.6 / 0.9, 1e-12);
  EXPECT_NEAR(r.host_speed, 1.0, 1e-12);
  EXPECT_NEAR(r.guest_speed, 1 - (0.6 / 0.9) * 0.95, 1e-12);
  // Plain time slicing gains nothing over the host alone (0.8 / 0.6 = 1.33).
  model.interference = FreedInterference::kTimeSlice;
  r = FreedCapacityCoRun(1 / 0.6, 0.8, 0.7, 0.7, model);
  EXPECT_LE(0.8 * r.host_speed + r.guest_speed, 0.8 / 0.6 + 1e-12);
  // Doubling the measured slowdowns.
  model.interference = FreedInterference::kGavel;
  model.interference_scale = 2;
  r = FreedCapacityCoRun(1 / 0.6, 0.8, 0.7, 0.7, model);
  EXPECT_NEAR(r.guest_speed, 0.4, 1e-12);
  EXPECT_THROW(ParseFreedInterference("--x", "mps"), UsageError);
}

// Gavel-like pair table: every type beside every other at 0.75 of its isolated throughput.
ThroughputTable PairTable(const std::vector<std::pair<std::string, int>>& types) {
  std::string json = R"({"v100": {)";
  bool first = true;
  for (int scale : {1, 2, 4}) {
    for (const auto& [model, batch] : types) {
      json += std::string(first ? "" : ",") + "\"('" + MakeJobType(model, batch) + "', " +
              std::to_string(scale) + ")\": {\"null\": 4";
      first = false;
      for (const auto& [other, other_batch] : types) {
        json += ", \"('" + MakeJobType(other, other_batch) + "', " + std::to_string(scale) +
                ")\": [3, 3]";
      }
      json += "}";
    }
  }
  return ThroughputTable::Parse("pairs.json", json + "}}");
}

TEST(SpbPhasePlacements, NoPlacementExceedsGpuMemory) {
  const std::vector<std::pair<std::string, int>> types = {
      {"ResNet-50", 128}, {"Transformer", 128}, {"CycleGAN", 4}, {"LM", 80}, {"ResNet-18", 64}};
  const ThroughputTable pairs = PairTable(types);
  std::vector<JobSpec> specs;
  for (const auto& [model, batch] : types) {
    JobSpec spec;
    spec.model = model, spec.job_type = MakeJobType(model, batch), spec.batch_size = batch;
    specs.push_back(spec);
  }
  SpbPhaseModelOptions phase_options;
  phase_options.file = PlanFile();
  const SpbPhaseModel phases(phase_options);
  SpbCostModelOptions spb_options;
  spb_options.fixed_efficiency = 0.9;
  const SpbCostModel spb(spb_options);
  std::mt19937_64 rng(7);
  int freed = 0, refused_by_memory = 0;
  for (int instance = 0; instance < 200; ++instance) {
    PolicyOptions options;
    options.colocation_base = "least_served";
    options.throughputs = &pairs;
    options.spb = &spb;
    options.spb_phases = &phases;
    options.colocation.critical_path_guard = false;
    options.colocation.gpu_memory_mb = std::uniform_real_distribution<double>(8e3, 24e3)(rng);
    std::vector<PolicyJob> jobs;
    for (int j = 0; j < 40; ++j) {
      PolicyJob job;
      job.id = j;
      job.spec = &specs[rng() % specs.size()];
      job.batch_size = job.spec->batch_size;
      job.scale_factor = 1 << (rng() % 3);
      job.throughput = 1;
      job.elapsed_s = 100;
      job.attained_s = static_cast<double>(rng() % 50);
      job.total_steps = 100;
      job.steps_run = static_cast<double>(rng() % 100);
      job.remaining_isolated_s = 100;
      jobs.push_back(job);
    }
    PolicyContext context;
    context.gpus = 16;
    for (const Policy::Placement& p :
         MakePolicy("jigsaw", options)->PlanPlacements(context, jobs)) {
      const PolicyJob& host = jobs[p.job_id];
      const JobPhases* plan = phases.Phases(host.spec->model, host.batch_size, host.scale_factor);
      const JobPhase& phase = plan->phases[plan->Index(host.steps_run / host.total_steps)];
      for (const Policy::Guest& g : p.guests) {
        const double guest = WorkerMemoryMb(jobs[g.job_id]);
        double host_memory = WorkerMemoryMb(host);
        if (g.spb.in_freed_capacity && p.spb.plan == Policy::SpbRoundPlan::kAdaptive) {
          host_memory *= phase.memory;
          ++freed;
        } else if (p.spb.plan == Policy::SpbRoundPlan::kStaircase) {
          host_memory *= spb.Options(host.spec->model, host.batch_size, host.scale_factor)[1]
                             .worker_memory.front();
        }
        EXPECT_LE(host_memory + guest, options.colocation.gpu_memory_mb)
            << "instance " << instance << " host " << p.job_id << " guest " << g.job_id;
      }
      refused_by_memory +=
          p.guests.empty() && phase.saves &&
          WorkerMemoryMb(host) * phase.memory + 1700 > options.colocation.gpu_memory_mb;
    }
  }
  EXPECT_GT(freed, 100);             // guests in freed capacity were placed
  EXPECT_GT(refused_by_memory, 10);  // and memory kept some hosts without one
  std::filesystem::remove(phase_options.file);
}

TEST(SpbPhaseSim, SummaryCountsPlansAndFreedCapacityAndBadPlansExitTwo) {
  const auto dir = test_util::FreshTempDir("jigsaw_", "spb_phase_sim");
  const std::string plans = PlanFile();
  const std::string sim = std::string(JIGSAW_BINARY) + " sim --quiet --jobs 40 --gpus 8 --seed 3 ";
  auto result = test_util::RunShell(sim + "--policy jigsaw --spb-phases " + plans + " --out " +
                                    (dir / "run").string() + " 2>&1");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto summary = nlohmann::json::parse(test_util::Slurp(dir / "run" / "summary.json"));
  ASSERT_TRUE(summary.contains("spb")) << summary.dump(2);
  const auto& spb = summary["spb"];
  EXPECT_GT(spb["job_rounds"]["adaptive"].get<long long>(), 0) << spb.dump(2);
  EXPECT_GT(spb["job_rounds_adaptive_frozen"].get<long long>(), 0) << spb.dump(2);
  EXPECT_GT(spb["gpu_s_freed"].get<double>(), 0) << spb.dump(2);
  EXPECT_TRUE(spb.contains("guest_gpu_s_in_freed_capacity"));
  ASSERT_TRUE(summary.contains("spb_phase_plans"));
  EXPECT_TRUE(summary["spb_phase_plans"][0]["proxy"].get<bool>());
  EXPECT_NE(result.output.find("PROXY phase plan"), std::string::npos) << result.output;
  // Other policies' summaries carry no spb object.
  result = test_util::RunShell(sim + "--policy shockwave --out " + (dir / "sw").string() + " 2>&1");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_FALSE(
      nlohmann::json::parse(test_util::Slurp(dir / "sw" / "summary.json")).contains("spb"));
  // A plan whose phases do not sum to 1: exit 2 naming file:line and what was expected.
  std::ofstream(dir / "bad.csv") << kPhasePlanFormatLine << "\n"
                                 << kPhasePlanHeader << "\n"
                                 << "lenet,1,32,adaptive,warmup,0.5,0,5,1,1,1,1,1,1,1,t\n";
  result = test_util::RunShell(sim + "--policy jigsaw --spb-phases " + (dir / "bad.csv").string() +
                               " --out " + (dir / "bad").string() + " 2>&1");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("bad.csv:3: expected the fractions"), std::string::npos)
      << result.output;
  std::filesystem::remove(plans);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace jigsaw
