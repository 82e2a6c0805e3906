// The late-target scoring of SPB plans (src/spb/time_to_accuracy.h): a plan scores by the time it
// needs to a late target, in iterations and in the busiest rank's compute, and a plan that
// reaches the target before it saved anything is scored at its final accuracy, not 1.0.
#include "spb/time_to_accuracy.h"

#include <gtest/gtest.h>

#include <cmath>

namespace jigsaw {
namespace {

// A run of `iterations` whose accuracy rises linearly from 0.1 at 0 to `final_accuracy` at the
// end (evaluated every 10 iterations), each iteration costing `cost` (then `saving_cost` from
// `first_saving` on).
RunCurve Linear(int iterations, double final_accuracy, int first_saving = -1, double cost = 1,
                double saving_cost = 1) {
  RunCurve c;
  c.iterations = iterations;
  c.final_accuracy = final_accuracy;
  c.first_saving_iteration = first_saving;
  for (int it = 10; it <= iterations; it += 10) {
    c.evals.push_back({it, 0.1 + (final_accuracy - 0.1) * it / iterations});
  }
  double total = 0;
  for (int i = 0; i < iterations; ++i) {
    total += first_saving >= 0 && i >= first_saving ? saving_cost : cost;
    c.compute.push_back(total);
  }
  return c;
}

TEST(TimeToAccuracy, InterpolatesBetweenEvaluationsFromTheStart) {
  const RunCurve c = Linear(100, 0.9);
  EXPECT_NEAR(*IterationsTo(c, 0.5), 50, 1e-9);
  EXPECT_NEAR(*IterationsTo(c, 0.9), 100, 1e-9);
  EXPECT_FALSE(IterationsTo(c, 0.95).has_value());
  EXPECT_NEAR(ComputeAfter(c, 2.5), 2.5, 1e-12);
  EXPECT_NEAR(ComputeAfter(c, 1000), 100, 1e-12);
}

TEST(TimeToAccuracy, APlanReachingTheTargetAfterItSavedIsScoredByItsTimeToIt) {
  const RunCurve full = Linear(100, 0.9);
  // Saves from iteration 40 (half the compute per iteration), slower to accuracy: reaches 0.85
  // of its 0.85 final at 100, where full needs (0.85 - 0.1) / 0.8 x 100 = 93.75.
  const RunCurve plan = Linear(100, 0.85, 40, 1, 0.5);
  const SeedScore s = ScoreSeed(full, plan, 0.85);
  EXPECT_EQ(s.rule, ScoreRule::kTarget);
  EXPECT_NEAR(s.iteration_ratio, 93.75 / 100, 1e-9);
  // Compute to the target: full 93.75, the plan 40 + 60 x 0.5 = 70.
  EXPECT_NEAR(s.compute_ratio, 93.75 / 70, 1e-9);
  // After the first saving iteration the plan progressed (93.75 - 40) / (100 - 40) as fast.
  EXPECT_NEAR(s.frozen_phase_efficiency, 53.75 / 60, 1e-9);
}

TEST(TimeToAccuracy, APlanThatReachesTheTargetDuringItsWarmupIsNotScoredOne) {
  const RunCurve full = Linear(100, 0.9);
  // Reaches the early target 0.5 at iteration 50, before it saves anything (from 60), then
  // ends at 0.86, below full's 0.9.
  RunCurve plan = Linear(100, 0.9, 60);
  plan.evals.back().second = 0.86;
  plan.final_accuracy = 0.86;
  const SeedScore s = ScoreSeed(full, plan, 0.5);
  EXPECT_EQ(s.rule, ScoreRule::kBeforeSaving);
  // Scored at its final accuracy: full reaches 0.86 at (0.86 - 0.1) / 0.8 x 100 = 95.
  EXPECT_NEAR(s.iteration_ratio, 0.95, 1e-9);
  EXPECT_LT(s.iteration_ratio, 1.0);
  EXPECT_NEAR(s.frozen_phase_efficiency, (95.0 - 60) / (100 - 60), 1e-9);
  // A later target sees the savings (the plan crosses 0.85 at 100 after saving from 60).
  EXPECT_EQ(ScoreSeed(full, plan, 0.85).rule, ScoreRule::kTarget);
}

TEST(TimeToAccuracy, APlanBelowTheTargetIsScoredAtItsFinalAccuracy) {
  const RunCurve full = Linear(100, 0.9);
  const RunCurve plan = Linear(100, 0.7, 20, 1, 0.25);
  const SeedScore s = ScoreSeed(full, plan, 0.89);
  EXPECT_EQ(s.rule, ScoreRule::kBelowTarget);
  EXPECT_NEAR(s.full_iterations, 75, 1e-9);  // full reaches 0.7 at 75
  EXPECT_NEAR(s.iteration_ratio, 0.75, 1e-9);
  EXPECT_NEAR(s.compute_ratio, 75 / (20 + 80 * 0.25), 1e-9);
  EXPECT_NEAR(s.frozen_phase_efficiency, (75.0 - 20) / 80, 1e-9);
  // A plan that never saves has no frozen phase.
  EXPECT_TRUE(std::isnan(ScoreSeed(full, full, 0.85).frozen_phase_efficiency));
  EXPECT_NEAR(ScoreSeed(full, full, 0.85).iteration_ratio, 1.0, 1e-12);
}

}  // namespace
}  // namespace jigsaw
