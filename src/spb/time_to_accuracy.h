// Time to accuracy of an SPB plan against full backpropagation, one seed at a time: the scoring
// behind the measured statistical efficiencies (docs/spb_statistical_efficiency.md, "Definition").
// Torch-free.
//
// A run's accuracy curve is its evaluations (iterations done, test accuracy), linear between
// them, starting from (0, 0.1). For a target accuracy (a late one: 99% of full backprop's final
// accuracy averaged over seeds) and a pair of runs of one seed (full, plan):
//   * kTarget: both reach the target, the plan after its first saving iteration W (the first
//     iteration in which some worker trained fewer than all blocks; a plan that never saves has
//     none). iteration_ratio = t_full / t_plan (iterations to the target); compute_ratio = the
//     busiest rank's compute time to the target, full's / the plan's; frozen_phase_efficiency =
//     max(0, (t_full - W) / (t_plan - W)): progress per iteration after W relative to full, if the
//     iterations before W count as full's (they are).
//   * kBeforeSaving: the plan reached the target before it saved anything (t_plan <= W): the
//     target says nothing about its savings, so the seed is scored as below: at the plan's final
//     accuracy A. That scores 1.0 only if the plan ends at or above full's final accuracy.
//   * kBelowTarget (the plan, or full, never reaches the target) and kBeforeSaving: t_full(A) =
//     the iterations full needs to reach A (all its iterations if it never does);
//     iteration_ratio = t_full(A) / the plan's iterations; compute_ratio = full's compute to
//     t_full(A) / the plan's whole compute; frozen_phase_efficiency = max(0, (t_full(A) - W) /
//     (T - W)) (T the plan's iterations), or NaN for a plan that never saves.
// Ratios above 1 mean the plan is ahead; callers average them over seeds (bench/spb_report.py).
#ifndef JIGSAW_SPB_TIME_TO_ACCURACY_H_
#define JIGSAW_SPB_TIME_TO_ACCURACY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace jigsaw {

struct RunCurve {
  std::vector<std::pair<double, double>> evals;  // (iterations done, test accuracy), ascending
  double final_accuracy = 0;
  int64_t iterations = 0;
  int64_t first_saving_iteration = -1;  // -1: every worker trained every block throughout
  // compute[i]: the busiest rank's compute time (forward + backward) summed over iterations
  // 0..i (max over ranks of each rank's running sum); size `iterations`.
  std::vector<double> compute;
};

// First iteration count at which the curve reaches `target` (linear between evaluations, from
// (0, 0.1)); none if it never does.
std::optional<double> IterationsTo(const RunCurve& curve, double target);

// The busiest rank's compute time after `iterations` (fractional: linear within an iteration).
double ComputeAfter(const RunCurve& curve, double iterations);

enum class ScoreRule { kTarget, kBeforeSaving, kBelowTarget };
const char* ScoreRuleName(ScoreRule rule);

struct SeedScore {
  ScoreRule rule = ScoreRule::kTarget;
  double iteration_ratio = 0;
  double compute_ratio = 0;
  double frozen_phase_efficiency = 0;  // NaN for a plan that never saves
  double full_iterations = 0;          // to the target (kTarget) or to the plan's final accuracy
  double plan_iterations = 0;          // to the target (kTarget) or all of them
};

SeedScore ScoreSeed(const RunCurve& full, const RunCurve& plan, double target);

// Reads a train run folder: evals.csv (iteration, test_accuracy), summary.json (test_accuracy,
// blocks, workers) and iterations.csv (rank, iteration, depth, forward_s, backward_s; or, with
// `profile_costs` non-empty, each iteration's cost taken from profile_costs[depth] instead of
// the measured seconds). Throws InputError (file:line).
RunCurve ReadRunCurve(const std::string& dir, const std::vector<double>& profile_costs = {});

}  // namespace jigsaw

#endif  // JIGSAW_SPB_TIME_TO_ACCURACY_H_
