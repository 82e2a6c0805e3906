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

TEST(SpbAdaptivePlan, FreezesAPrefixAfterPatienceAndNeverUnfreezes) {
  AdaptiveController c(Options(AdaptiveStructure::kFreeze), 4, 2);
  AdaptiveDecision first = c.Observe(14, {1.0, 1.0, 1.0, 1.0});  // the references
  EXPECT_EQ(first.contributors, (std::vector<int>{2, 2, 2, 2}));
  // Block 1 converged, block 0 not: no freeze (the frozen blocks must be a prefix).
  c.Observe(19, {0.9, 0.1, 1.0, 1.0});
  AdaptiveDecision d = c.Observe(24, {0.9, 0.1, 1.0, 1.0});
  EXPECT_EQ(d.frozen_blocks, 0);
  // Blocks 0 and 1 below 0.3 once: not yet (patience 2); twice: both freeze together.
  c.Observe(29, {0.2, 0.1, 1.0, 1.0});
  d = c.Observe(34, {0.2, 0.1, 1.0, 1.0});
  EXPECT_EQ(d.frozen_blocks, 2);
  EXPECT_EQ(d.contributors, (std::vector<int>{0, 0, 2, 2}));
  EXPECT_NE(d.reason.find("froze blocks 0..1"), std::string::npos) << d.reason;
  EXPECT_EQ(c.Depths(35), (std::vector<int>{2, 2}));
  // A frozen block's signal is ignored (it stays frozen); the top block is never frozen.
  for (int64_t i = 39; i < 80; i += 5) d = c.Observe(i, {5.0, 5.0, 0.0, 0.0});
  EXPECT_EQ(d.contributors, (std::vector<int>{0, 0, 0, 2}));
}

TEST(SpbAdaptivePlan, PartialContributorsAreNestedAndRotate) {
  AdaptiveController c(Options(AdaptiveStructure::kRotating), 4, 4);
  c.Observe(14, {1.0, 1.0, 1.0, 1.0});
  // Block 0 half-plastic (p = 0.5 -> ceil(4 x 0.2 / 0.4) = 2), block 1 barely (p = 0.35 -> 1),
  // block 2 fully: block 1 is raised to block 0's 2 (nested sets), the top block always has 4.
  AdaptiveDecision d = c.Observe(19, {0.5, 0.35, 1.0, 0.1});
  EXPECT_EQ(d.contributors, (std::vector<int>{2, 2, 4, 4}));
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
