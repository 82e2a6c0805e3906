// `jigsaw phase-plan`: a train run folder (or several seeds of one configuration) and the model's
// profile -> the scheduler's phase plan (src/spb/run_phase_plan.h), merged into a phase-plan
// file that `jigsaw sim --spb-phases` reads.
// `jigsaw spb-efficiency`: full and plan run folders, seed by seed -> each seed's time to a late
// target accuracy in iterations and in the busiest rank's compute (src/spb/time_to_accuracy.h),
// as JSON on stdout (bench/spb_report.py averages them).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/commands.h"
#include "core/data_files.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/output.h"
#include "spb/cost_model.h"
#include "spb/phase_plan.h"
#include "spb/run_phase_plan.h"
#include "spb/time_to_accuracy.h"

namespace jigsaw {
namespace {

struct PhasePlanCommandOptions {
  RunPhasePlanOptions run;
  std::string out;
};

int RunPhasePlanCommand(const PhasePlanCommandOptions& options) {
  const SpbPhasePlan plan = PhasePlanFromRuns(options.run);
  std::vector<SpbPhasePlan> plans;
  if (std::filesystem::exists(options.out)) plans = ReadSpbPhasePlans(options.out).plans;
  MergeSpbPhasePlan(plan, &plans);
  WriteFileAtomically(options.out, FormatSpbPhasePlans(plans));
  for (const SpbPhase& p : plan.phases) {
    std::fprintf(stderr,
                 "phase-plan: %s %s: %.3f of the run, %d of %d blocks frozen, compute %.3f, "
                 "iteration %.3f, activations %.3f, bytes %.3f, efficiency %.3f [%.3f, %.3f]\n",
                 plan.model.c_str(), p.name.c_str(), p.fraction, p.frozen_blocks, p.blocks,
                 p.MaxCompute(), p.iteration_time, p.MaxActivation(), p.bytes, p.efficiency,
                 p.efficiency_low, p.efficiency_high);
  }
  std::fprintf(stderr, "phase-plan: wrote %s\n", options.out.c_str());
  return 0;
}

struct SpbEfficiencyOptions {
  std::vector<std::string> full, plan;  // run folders, one per seed, in the same order
  double target_fraction = 0.99;        // of full's final accuracy averaged over the seeds
  double target = 0;                    // > 0: an absolute target instead
  std::string profile;                  // "": measured compute; else profiled per depth
  void Validate() const {
    if (full.empty() || full.size() != plan.size()) {
      throw UsageError("--full and --plan: give one run folder of each per seed, as many of each");
    }
    RequireOptionInRange("--target-fraction", target_fraction, 0.01, 1);
    RequireOptionInRange("--target", target, 0, 1);
  }
};

// Per depth, a worker's compute from the profile: every block's forward + the depth's backward.
std::vector<double> ProfiledCosts(const std::string& path) {
  if (path.empty()) return {};
  const ModelProfile profile = ReadProfile(path);
  double forward = 0;
  for (const BlockProfile& b : profile.blocks) forward += b.forward_s;
  std::vector<double> costs;
  for (size_t d = 0; d <= profile.blocks.size(); ++d) {
    costs.push_back(forward + PredictBackwardS(profile, static_cast<int>(d), profile.batch));
  }
  return costs;
}

int RunSpbEfficiencyCommand(const SpbEfficiencyOptions& options) {
  options.Validate();
  const std::vector<double> costs = ProfiledCosts(options.profile);
  std::vector<RunCurve> full, plan;
  double mean_final = 0;
  for (size_t i = 0; i < options.full.size(); ++i) {
    full.push_back(ReadRunCurve(options.full[i], costs));
    plan.push_back(ReadRunCurve(options.plan[i], costs));
    mean_final += full.back().final_accuracy / static_cast<double>(options.full.size());
  }
  const double target = options.target > 0 ? options.target : options.target_fraction * mean_final;
  Json out;
  out["target"] = target;
  out["full_mean_final_accuracy"] = mean_final;
  out["compute"] = options.profile.empty() ? "measured" : "profiled " + options.profile;
  Json seeds = Json::array();
  for (size_t i = 0; i < full.size(); ++i) {
    const SeedScore s = ScoreSeed(full[i], plan[i], target);
    Json seed = {{"full", options.full[i]},
                 {"plan", options.plan[i]},
                 {"rule", ScoreRuleName(s.rule)},
                 {"scored_at_target", s.rule == ScoreRule::kTarget},
                 {"iteration_ratio", s.iteration_ratio},
                 {"compute_ratio", s.compute_ratio},
                 {"full_iterations", s.full_iterations},
                 {"plan_iterations", s.plan_iterations},
                 {"first_saving_iteration", plan[i].first_saving_iteration},
                 {"plan_final_accuracy", plan[i].final_accuracy},
                 {"full_final_accuracy", full[i].final_accuracy}};
    seed["frozen_phase_efficiency"] =
        std::isnan(s.frozen_phase_efficiency) ? Json(nullptr) : Json(s.frozen_phase_efficiency);
    seeds.push_back(seed);
  }
  out["seeds"] = seeds;
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}

}  // namespace

void AddSpbCommands(CLI::App& app, CommandAction* action) {
  auto efficiency = std::make_shared<SpbEfficiencyOptions>();
  CLI::App* score = app.add_subcommand(
      "spb-efficiency",
      "Time to a late target accuracy of an SPB plan against full backpropagation, seed by seed "
      "(iterations and the busiest rank's compute), as JSON on stdout");
  score->add_option("--full", efficiency->full,
                    "full-backprop run folder (repeat: one per seed; at least one)");
  score->add_option("--plan", efficiency->plan, "the plan's run folder, same seed order");
  score
      ->add_option("--target-fraction", efficiency->target_fraction,
                   "target = this x full's final test accuracy averaged over the seeds")
      ->capture_default_str();
  score->add_option("--target", efficiency->target, "an absolute target accuracy instead (0: off)")
      ->capture_default_str();
  score->add_option("--profile", efficiency->profile,
                    "score compute as profiled work per depth (jigsaw profile output) instead of "
                    "the measured seconds");
  score->callback([efficiency, action] {
    *action = [efficiency] { return RunSpbEfficiencyCommand(*efficiency); };
  });

  auto options = std::make_shared<PhasePlanCommandOptions>();
  options->run.efficiency_file = DataFile("spb_statistical_efficiency.json");
  CLI::App* command = app.add_subcommand(
      "phase-plan",
      "Turn `jigsaw train --spb adaptive` run folders and the model's `jigsaw profile` output "
      "into the scheduler's phase plan (merged into --phase-plans; read by jigsaw sim "
      "--spb-phases)");
  command->add_option("--run", options->run.runs,
                      "train run folder (repeatable: seeds of one configuration; at least one)");
  command->add_option("--profile", options->run.profile, "the model's jigsaw profile output")
      ->required();
  command
      ->add_option("--efficiency-file", options->run.efficiency_file,
                   "measured efficiencies (frozen_phase_efficiency of the adaptive entry)")
      ->capture_default_str();
  command->add_option("--phase-plans", options->out, "phase-plan file to write or merge into")
      ->required();
  command->callback(
      [options, action] { *action = [options] { return RunPhasePlanCommand(*options); }; });
}

}  // namespace jigsaw
