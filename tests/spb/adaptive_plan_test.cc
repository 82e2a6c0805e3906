#include "spb/adaptive_plan.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace jigsaw {
namespace {

AdaptiveOptions Options(AdaptiveStructure structure) {
  AdaptiveOptions o;
  o.warmup_iterations = 10;
  o.window = 5;
  o.freeze_below = 0.3;
  o.full_above = 0.7;
  o.patience = 2;
  o.min_trained_blocks = 1;
  o.structure = structure;
  return o;
}

TEST(SpbAdaptivePlan, ProbesAtTheWarmupEndAndEveryWindowAfter) {
  AdaptiveController c(Options(AdaptiveStructure::kFreeze), 4, 2);
  std::vector<int64_t> probes;
  for (int64_t i = 0; i < 30; ++i) {
    if (c.IsProbeIteration(i)) probes.push_back(i);
  }
  EXPECT_EQ(probes, (std::vector<int64_t>{9, 14, 19, 24, 29}));
  EXPECT_TRUE(c.IsWarmupEnd(9));
  EXPECT_FALSE(c.IsWarmupEnd(14));
  EXPECT_EQ(c.Depths(0), (std::vector<int>{4, 4}));  // full during the warm-up
}

TEST(SpbAdaptivePlan, FreezesTheLowestBlockWhenItsRunSlowedDownAndNeverUnfreezes) {
  AdaptiveOptions options = Options(AdaptiveStructure::kFreeze);
  options.span = 2;
  AdaptiveController c(options, 4, 2);
  AdaptiveDecision first = c.Observe(14, {1.0, 1.0, 1.0, 1.0});  // the references
  EXPECT_EQ(first.contributors, (std::vector<int>{2, 2, 2, 2}));
  // Velocities against the reference and against the top block's: block 1 slowed a lot, block 0
  // not; their mean (0.5) is above 0.3, and the frozen blocks must be a prefix: no freeze.
  c.Observe(19, {0.4, 0.1, 1.0, 0.5});
  AdaptiveDecision d = c.Observe(24, {0.4, 0.1, 1.0, 0.5});
  EXPECT_EQ(d.frozen_blocks, 0);
  EXPECT_NEAR(d.plasticity[0], 0.8, 1e-12);  // (0.4 / 1) / (0.5 / 1)
  // Blocks 0-1 below 0.3 on average once: not yet (patience 2); twice: block 0 freezes, one
  // block per decision.
  c.Observe(29, {0.1, 0.1, 1.0, 0.5});
  d = c.Observe(34, {0.1, 0.1, 1.0, 0.5});
  EXPECT_EQ(d.frozen_blocks, 1);
  EXPECT_EQ(d.contributors, (std::vector<int>{0, 2, 2, 2}));
  EXPECT_NE(d.reason.find("froze block 0"), std::string::npos) << d.reason;
  EXPECT_EQ(c.Depths(35), (std::vector<int>{3, 3}));
  // Block 1 is the candidate now, judged with block 2 (0.1 and 0.4 -> 0.25).
  c.Observe(39, {9.0, 0.05, 0.2, 0.5});
  d = c.Observe(44, {9.0, 0.05, 0.2, 0.5});
  EXPECT_EQ(d.contributors, (std::vector<int>{0, 0, 2, 2}));
  // Frozen blocks' signals are ignored (they stay frozen); the top block is never frozen.
  for (int64_t i = 49; i < 120; i += 5) d = c.Observe(i, {5.0, 5.0, 0.01, 1.0});
  EXPECT_EQ(d.contributors, (std::vector<int>{0, 0, 0, 2}));
}

TEST(SpbAdaptivePlan, PartialContributorsAreNestedAndRotate) {
  AdaptiveController c(Options(AdaptiveStructure::kRotating), 4, 4);
  c.Observe(14, {1.0, 1.0, 1.0, 1.0});
  // Block 0 half-plastic (p = 0.5 -> ceil(4 x 0.2 / 0.4) = 2), block 1 barely (p = 0.35 -> 1),
  // block 2 fully: block 1 is raised to block 0's 2 (nested sets), the top block always has 4.
  AdaptiveDecision d = c.Observe(19, {0.5, 0.35, 1.0, 1.0});
  EXPECT_EQ(d.contributors, (std::vector<int>{2, 2, 4, 4}));
  EXPECT_EQ(d.frozen_blocks, 0);
  // Positions rotate: the two deep roles move by one worker per iteration.
  EXPECT_EQ(c.Depths(0), (std::vector<int>{2, 2, 4, 4}));
  EXPECT_EQ(c.Depths(1), (std::vector<int>{2, 4, 4, 2}));
  // Staircase keeps them on the same workers.
  EXPECT_EQ(DepthsForContributors({2, 2, 4, 4}, 4, AdaptiveStructure::kStaircase, 1),
            (std::vector<int>{2, 2, 4, 4}));
}

TEST(SpbAdaptivePlan, StateRoundTripsAndOptionsAreChecked) {
  AdaptiveController c(Options(AdaptiveStructure::kFreeze), 3, 2);
  c.Observe(14, {1.0, 2.0, 3.0});
  c.Observe(19, {0.1, 2.0, 3.0});
  AdaptiveController restored(Options(AdaptiveStructure::kFreeze), 3, 2);
  restored.RestoreState(c.SaveState());
  EXPECT_EQ(restored.Observe(24, {0.1, 2.0, 3.0}).contributors,
            c.Observe(24, {0.1, 2.0, 3.0}).contributors);
  EXPECT_THROW(
      AdaptiveController(Options(AdaptiveStructure::kFreeze), 4, 2).RestoreState(c.SaveState()),
      std::invalid_argument);
  AdaptiveOptions bad = Options(AdaptiveStructure::kFreeze);
  bad.freeze_below = 0.8;
  EXPECT_THROW(ValidateAdaptiveOptions(bad), UsageError);
  EXPECT_THROW(ParseAdaptiveStructure("ladder"), UsageError);
}

}  // namespace
}  // namespace jigsaw
