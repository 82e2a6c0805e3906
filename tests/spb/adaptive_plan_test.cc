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
  AdaptiveController c(options, 6, 2);
  AdaptiveDecision first = c.Observe(14, {2, 2, 2, 2, 2, 2});  // the references
  EXPECT_EQ(first.contributors, (std::vector<int>{2, 2, 2, 2, 2, 2}));
  // Every block at half its reference velocity: the median removes the common slowdown.
  AdaptiveDecision d = c.Observe(19, {1, 1, 1, 1, 1, 1});
  EXPECT_EQ(d.plasticity, (std::vector<double>{1, 1, 1, 1, 1, 1}));
  // Block 1 slowed a lot, block 0 not: their mean (0.5) is above 0.3, and the frozen blocks must
  // be a prefix: no freeze.
  c.Observe(24, {1.8, 0.2, 2, 2, 2, 2});
  d = c.Observe(29, {1.8, 0.2, 2, 2, 2, 2});
  EXPECT_EQ(d.frozen_blocks, 0);
  EXPECT_NEAR(d.plasticity[0], 0.9, 1e-12);
  // Blocks 0-1 below 0.3 of the median once: not yet (patience 2); twice: block 0 freezes, one
  // block per decision.
  c.Observe(34, {0.2, 0.2, 2, 2, 2, 2});
  d = c.Observe(39, {0.2, 0.2, 2, 2, 2, 2});
  EXPECT_EQ(d.frozen_blocks, 1);
  EXPECT_EQ(d.contributors, (std::vector<int>{0, 2, 2, 2, 2, 2}));
  EXPECT_NE(d.reason.find("froze block 0"), std::string::npos) << d.reason;
  EXPECT_EQ(c.Depths(40), (std::vector<int>{5, 5}));
  // Block 1 is the candidate now, judged with block 2; block 0's signal is ignored.
  c.Observe(44, {99, 0.2, 0.2, 2, 2, 2});
  d = c.Observe(49, {99, 0.2, 0.2, 2, 2, 2});
  EXPECT_EQ(d.contributors, (std::vector<int>{0, 0, 2, 2, 2, 2}));
  // Frozen blocks stay frozen whatever their signal; the top block is never frozen.
  for (int64_t i = 54; i < 200; i += 5) d = c.Observe(i, {99, 99, 0.1, 0.1, 0.1, 4});
  EXPECT_EQ(d.contributors.back(), 2);
  EXPECT_EQ(d.contributors[0], 0);
  EXPECT_EQ(d.contributors[1], 0);
}

TEST(SpbAdaptivePlan, CoherenceFreezesTheSettledPrefixFromTheFirstWindow) {
  AdaptiveOptions options = Options(AdaptiveStructure::kFreeze);
  options.signal = AdaptiveSignal::kCoherence;
  options.freeze_below = 0.5;
  options.patience = 1;
  options.span = 1;
  options.min_trained_blocks = 2;
  AdaptiveController c(options, 5, 4);
  // No reference window: block 0 wanders (0.2) at the first decision and freezes at once.
  AdaptiveDecision d = c.Observe(14, {0.2, 0.9, 0.3, 0.9, 0.9});
  EXPECT_EQ(d.contributors, (std::vector<int>{0, 4, 4, 4, 4}));
  EXPECT_EQ(d.plasticity, (std::vector<double>{0.2, 0.9, 0.3, 0.9, 0.9}));
  EXPECT_NE(d.reason.find("froze blocks 0-0: coherence (mean over 1 blocks) below 0.50"),
            std::string::npos)
      << d.reason;
  // Block 1 still goes one way (0.9): no freeze, although block 2 above it has settled (the
  // frozen blocks stay a prefix).
  d = c.Observe(19, {0.1, 0.9, 0.1, 0.9, 0.9});
  EXPECT_EQ(d.frozen_blocks, 1);
  EXPECT_NE(d.reason.find("no new freeze: block 1 settled for 0 of 1 windows"), std::string::npos)
      << d.reason;
  // Block 1 settles: it and the settled block 2 above it freeze together.
  d = c.Observe(24, {0.9, 0.45, 0.4, 0.9, 0.9});
  EXPECT_EQ(d.contributors, (std::vector<int>{0, 0, 0, 4, 4}));
  EXPECT_NE(d.reason.find("froze blocks 1-2"), std::string::npos) << d.reason;
  EXPECT_EQ(c.Depths(30), (std::vector<int>{2, 2, 2, 2}));  // every worker the same depth
  // The top min_trained_blocks never freeze, whatever their coherence; frozen blocks stay frozen.
  for (int64_t i = 29; i < 100; i += 5) d = c.Observe(i, {1, 1, 1, 0.01, 0.01});
  EXPECT_EQ(d.contributors, (std::vector<int>{0, 0, 0, 4, 4}));
  EXPECT_NE(d.reason.find("only the top blocks are trained"), std::string::npos) << d.reason;
}

TEST(SpbAdaptivePlan, CoherenceWaitsForPatienceAndAveragesItsSpan) {
  AdaptiveOptions options = Options(AdaptiveStructure::kFreeze);
  options.signal = AdaptiveSignal::kCoherence;
  options.freeze_below = 0.5;
  options.patience = 2;
  options.span = 2;
  AdaptiveController c(options, 4, 2);
  // Block 0 is judged on the mean of blocks 0-1: (0.2 + 0.9) / 2 = 0.55, not below.
  EXPECT_EQ(c.Observe(14, {0.2, 0.9, 0.1, 0.1}).frozen_blocks, 0);
  // 0.45 once (patience 2), then above again: the count restarts.
  EXPECT_EQ(c.Observe(19, {0.2, 0.7, 1, 1}).frozen_blocks, 0);
  EXPECT_EQ(c.Observe(24, {0.2, 0.9, 1, 1}).frozen_blocks, 0);
  EXPECT_EQ(c.Observe(29, {0.2, 0.7, 1, 1}).frozen_blocks, 0);
  AdaptiveDecision d = c.Observe(34, {0.3, 0.6, 1, 1});
  EXPECT_EQ(d.frozen_blocks, 1);
  EXPECT_EQ(d.contributors, (std::vector<int>{0, 2, 2, 2}));
  // Block 1 (mean of blocks 1-2) and block 2 (alone: the span stops below the top block) settle
  // together; after two windows both freeze, the top block stays (min_trained_blocks 1).
  EXPECT_EQ(c.Observe(39, {1, 0.1, 0.2, 0.01}).frozen_blocks, 1);
  d = c.Observe(44, {1, 0.1, 0.2, 0.01});
  EXPECT_EQ(d.contributors, (std::vector<int>{0, 0, 0, 2}));
}

TEST(SpbAdaptivePlan, CoherenceNeedsTheFreezeStructure) {
  AdaptiveOptions options = Options(AdaptiveStructure::kRotating);
  options.signal = AdaptiveSignal::kCoherence;
  EXPECT_THROW(ValidateAdaptiveOptions(options), UsageError);
  EXPECT_EQ(ParseAdaptiveSignal("coherence"), AdaptiveSignal::kCoherence);
  EXPECT_EQ(ParseAdaptiveSignal("plasticity"), AdaptiveSignal::kPlasticity);
  EXPECT_THROW(ParseAdaptiveSignal("velocity"), UsageError);
}

TEST(SpbAdaptivePlan, PartialContributorsAreNestedAndRotate) {
  AdaptiveController c(Options(AdaptiveStructure::kRotating), 5, 4);
  c.Observe(14, {1, 1, 1, 1, 1});
  // Median 1. Block 0 half-plastic (p = 0.5 -> ceil(4 x 0.2 / 0.4) = 2), block 1 barely
  // (p = 0.35 -> 1), the others fully: block 1 is raised to block 0's 2 (nested sets); the top
  // block always has 4.
  AdaptiveDecision d = c.Observe(19, {0.5, 0.35, 1, 1, 1});
  EXPECT_EQ(d.contributors, (std::vector<int>{2, 2, 4, 4, 4}));
  EXPECT_EQ(d.frozen_blocks, 0);
  // Positions rotate: the two deep roles move by one worker per iteration.
  EXPECT_EQ(c.Depths(0), (std::vector<int>{3, 3, 5, 5}));
  EXPECT_EQ(c.Depths(1), (std::vector<int>{3, 5, 5, 3}));
  // Staircase keeps them on the same workers.
  EXPECT_EQ(DepthsForContributors({2, 2, 4, 4, 4}, 4, AdaptiveStructure::kStaircase, 1),
            (std::vector<int>{3, 3, 5, 5}));
}

TEST(SpbAdaptivePlan, FewerContributorsDoNotLookLikeConvergenceUnderTheWorldScale) {
  AdaptiveOptions options = Options(AdaptiveStructure::kRotating);
  options.steps_scale_with_contributors = true;
  AdaptiveController c(options, 5, 4);
  c.Observe(14, {1, 1, 1, 1, 1});
  AdaptiveDecision d = c.Observe(19, {0.5, 0.5, 1, 1, 1});
  ASSERT_EQ(d.contributors, (std::vector<int>{2, 2, 4, 4, 4}));
  // Blocks 0 and 1 now step at 2/4 of full's rate: moving half as fast is what they should do,
  // so their plasticity stays 0.5 (not 0.25) and they keep 2 contributors rather than freezing.
  d = c.Observe(24, {0.25, 0.25, 1, 1, 1});
  EXPECT_DOUBLE_EQ(d.plasticity[0], 0.5);
  EXPECT_EQ(d.contributors, (std::vector<int>{2, 2, 4, 4, 4}));
  // Without the normalisation the same velocities read as a block that converged.
  AdaptiveController raw(Options(AdaptiveStructure::kRotating), 5, 4);
  raw.Observe(14, {1, 1, 1, 1, 1});
  raw.Observe(19, {0.5, 0.5, 1, 1, 1});
  EXPECT_DOUBLE_EQ(raw.Observe(24, {0.25, 0.25, 1, 1, 1}).plasticity[0], 0.25);
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
