#include "spb/spb_plan.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "spb/cost_model.h"

namespace jigsaw {
namespace {

using Sets = std::vector<std::vector<int>>;

TEST(RuntimeSpbPlan, ParsesEveryKind) {
  EXPECT_EQ(ParseSpbPlan("full").kind, SpbPlanKind::kFull);
  EXPECT_EQ(ParseSpbPlan("staircase").kind, SpbPlanKind::kStaircase);
  EXPECT_EQ(ParseSpbPlan("rotating").kind, SpbPlanKind::kRotating);
  SpbPlan freeze = ParseSpbPlan("freeze:2");
  EXPECT_EQ(freeze.kind, SpbPlanKind::kFreeze);
  EXPECT_EQ(freeze.freeze_depth, 2);
  EXPECT_EQ(ParseSpbPlan("4,3,2,1").depths, (std::vector<int>{4, 3, 2, 1}));
  EXPECT_EQ(ParseSpbPlan("depths:1,2").depths, (std::vector<int>{1, 2}));
}

TEST(RuntimeSpbPlan, RejectsBadPlansWithClearMessages) {
  for (const char* bad : {"", "stair", "freeze:", "freeze:x", "freeze:-1", "1,,2", "1,2,", "3;4"}) {
    try {
      ParseSpbPlan(bad);
      FAIL() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--spb '" + std::string(bad) + "'"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(WorkerDepths(ParseSpbPlan("freeze:5"), 4, 2, 0), UsageError);
  EXPECT_THROW(WorkerDepths(ParseSpbPlan("1,2,3"), 4, 2, 0), UsageError);
  EXPECT_THROW(WorkerDepths(ParseSpbPlan("1,5"), 4, 2, 0), UsageError);
}

TEST(RuntimeSpbPlan, StaircaseDepthsCoverEveryBlock) {
  EXPECT_EQ(WorkerDepths(ParseSpbPlan("staircase"), 4, 4, 0), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(WorkerDepths(ParseSpbPlan("staircase"), 5, 4, 0), (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(WorkerDepths(ParseSpbPlan("staircase"), 3, 4, 0), (std::vector<int>{1, 2, 3, 3}));
  for (int blocks = 1; blocks <= 9; ++blocks) {
    for (int workers = 1; workers <= 8; ++workers) {
      std::vector<int> depths = WorkerDepths(ParseSpbPlan("staircase"), blocks, workers, 0);
      EXPECT_EQ(depths.back(), blocks);
      for (const auto& set : BlockContributors(depths, blocks)) EXPECT_FALSE(set.empty());
    }
  }
}

TEST(RuntimeSpbPlan, RotatingShiftsTheStaircaseEveryIteration) {
  SpbPlan plan = ParseSpbPlan("rotating");
  EXPECT_EQ(WorkerDepths(plan, 4, 4, 0), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(WorkerDepths(plan, 4, 4, 1), (std::vector<int>{2, 3, 4, 1}));
  EXPECT_EQ(WorkerDepths(plan, 4, 4, 5), (std::vector<int>{2, 3, 4, 1}));
  EXPECT_EQ(PlanPeriod(plan, 4), 4);
  EXPECT_EQ(WorkerDepths(ParseSpbPlan("full"), 4, 3, 7), (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(WorkerDepths(ParseSpbPlan("freeze:1"), 4, 3, 7), (std::vector<int>{1, 1, 1}));
}

TEST(RuntimeSpbPlan, ContributorsAreTheWorkersWhoseDepthCoversTheBlock) {
  EXPECT_EQ(BlockContributors({1, 2, 3, 4}, 4), (Sets{{3}, {2, 3}, {1, 2, 3}, {0, 1, 2, 3}}));
  EXPECT_EQ(BlockContributors({0, 1}, 3), (Sets{{}, {}, {1}}));
}

TEST(RuntimeSpbPlan, CollectivesAverageOverContributorsThenReachEveryone) {
  std::vector<Collective> c = PlanCollectives(BlockContributors({1, 2, 2}, 3), 3);
  // Blocks 2: {0,1,2}; block 1: {1,2}; block 0: nobody.
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].kind, Collective::Kind::kAllreduce);
  EXPECT_EQ(c[0].members, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(c[0].blocks, (std::vector<int>{2}));
  EXPECT_EQ(c[1].kind, Collective::Kind::kAllreduce);
  EXPECT_EQ(c[1].members, (std::vector<int>{1, 2}));
  EXPECT_EQ(c[2].kind, Collective::Kind::kBroadcast);
  EXPECT_EQ(c[2].members, (std::vector<int>{0, 1}));
  EXPECT_EQ(c[2].root, 1);
  EXPECT_EQ(c[2].blocks, (std::vector<int>{1}));
  // A single contributor needs no allreduce, only the broadcast.
  std::vector<Collective> single = PlanCollectives(BlockContributors({1, 2}, 2), 2);
  ASSERT_EQ(single.size(), 2u);
  EXPECT_EQ(single[1].kind, Collective::Kind::kBroadcast);
  EXPECT_EQ(single[1].root, 1);
  EXPECT_EQ(single[1].blocks, (std::vector<int>{0}));
}

TEST(RuntimeSpbPlan, GroupsCoverEveryIterationOfThePeriod) {
  EXPECT_EQ(PlanGroups(ParseSpbPlan("full"), 4, 2), (Sets{{0, 1}}));
  EXPECT_EQ(PlanGroups(ParseSpbPlan("staircase"), 4, 2), (Sets{{0, 1}}));
  Sets rotating = PlanGroups(ParseSpbPlan("rotating"), 4, 3);
  EXPECT_EQ(rotating, (Sets{{0, 1}, {0, 1, 2}, {0, 2}, {1, 2}}));
  EXPECT_TRUE(PlanGroups(ParseSpbPlan("freeze:2"), 4, 1).empty());
}

TEST(RuntimeSpbPlan, ByteEstimates) {
  Collective ring{Collective::Kind::kAllreduce, {0, 1, 2, 3}, 0, {0}};
  EXPECT_DOUBLE_EQ(EstimatedBytesSent(ring, 2, 1000), 1500);
  Collective tree{Collective::Kind::kBroadcast, {0, 3}, 3, {0}};
  EXPECT_DOUBLE_EQ(EstimatedBytesSent(tree, 3, 1000), 500);
  EXPECT_DOUBLE_EQ(EstimatedBytesSent(tree, 1, 1000), 0);
}

TEST(RuntimeCostModel, PredictsBackwardOfTheTrainableSuffix) {
  ModelProfile profile;
  profile.batch = 10;
  for (int b = 0; b < 3; ++b) {
    BlockProfile block;
    block.backward_weight_s = 1.0 * (b + 1);
    block.backward_input_s = 0.5;
    block.backward_s = block.backward_weight_s + 0.25;
    block.parameter_bytes = 100;
    profile.blocks.push_back(block);
  }
  EXPECT_DOUBLE_EQ(PredictBackwardS(profile, 3, 10), 1 + 2.25 + 3.25);
  EXPECT_DOUBLE_EQ(PredictBackwardS(profile, 1, 20), 2 * 3);
  EXPECT_DOUBLE_EQ(PredictBackwardS(profile, 0, 10), 0);
  std::vector<Collective> c = PlanCollectives(BlockContributors({3, 3}, 3), 2);
  EXPECT_DOUBLE_EQ(PredictBytesSent(profile, c, 0), 300);
}

}  // namespace
}  // namespace jigsaw
