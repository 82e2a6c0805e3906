#include "spb/balanced_exchange.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "spb/spb_plan.h"

namespace jigsaw {
namespace {

using Sets = std::vector<std::vector<int>>;

TEST(SpbBalancedExchange, BucketsGroupAdjacentBlocksWithTheSameContributors) {
  // Staircase over 4 workers and 4 blocks: every block has its own contributor set.
  Sets contributors = BlockContributors({1, 2, 3, 4}, 4);
  std::vector<ExchangeBucket> buckets = PlanBuckets(contributors, {400, 400, 400, 400}, 1 << 20);
  ASSERT_EQ(buckets.size(), 4u);
  EXPECT_EQ(buckets[0].blocks, (std::vector<int>{3}));
  EXPECT_EQ(buckets[0].contributors, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(buckets[3].contributors, (std::vector<int>{3}));
  // Full: one bucket while the cap allows, split where it does not.
  Sets everyone = BlockContributors({4, 4}, 4);
  EXPECT_EQ(PlanBuckets(everyone, {400, 400, 400, 400}, 1600).size(), 1u);
  std::vector<ExchangeBucket> capped = PlanBuckets(everyone, {400, 400, 400, 400}, 800);
  ASSERT_EQ(capped.size(), 2u);
  EXPECT_EQ(capped[0].blocks, (std::vector<int>{3, 2}));
  EXPECT_EQ(capped[1].blocks, (std::vector<int>{1, 0}));
  EXPECT_EQ(capped[1].bytes, 800);
}

TEST(SpbBalancedExchange, FrozenBlocksFormNoBucketAndCostNoBytes) {
  Sets contributors = BlockContributors({2, 2, 2}, 4);  // blocks 0 and 1 frozen everywhere
  std::vector<ExchangeBucket> buckets = PlanBuckets(contributors, {1000, 2000, 40, 80}, 1 << 20);
  ASSERT_EQ(buckets.size(), 1u);
  EXPECT_EQ(buckets[0].blocks, (std::vector<int>{3, 2}));
  EXPECT_EQ(buckets[0].bytes, 120);
}

TEST(SpbBalancedExchange, BytesPerWorkerNeverExceedFullsAndNonContributorsSendHalf) {
  const int workers = 4;
  ExchangeBucket all{{0}, {0, 1, 2, 3}, 4000};
  ExchangeBucket one{{0}, {3}, 4000};
  // Ring all-reduce: 2 (N-1)/N x B per worker.
  EXPECT_DOUBLE_EQ(BalancedBytesSent(all, 0, workers), 2 * 3.0 / 4 * 4000);
  EXPECT_DOUBLE_EQ(BalancedBytesSent(one, 3, workers), 2 * 3.0 / 4 * 4000);
  EXPECT_DOUBLE_EQ(BalancedBytesSent(one, 0, workers), 3.0 / 4 * 4000);
  // Received: the other contributors' shards plus the all-gather.
  EXPECT_DOUBLE_EQ(BalancedBytesReceived(all, 0, workers), (3 + 3) * 1000.0);
  EXPECT_DOUBLE_EQ(BalancedBytesReceived(one, 3, workers), (0 + 3) * 1000.0);
  EXPECT_DOUBLE_EQ(BalancedBytesReceived(one, 0, workers), (1 + 3) * 1000.0);
  // Shards are padded to whole floats per worker: 1001 floats over 4 workers = 251 each.
  ExchangeBucket odd{{0}, {0, 1, 2, 3}, 4004};
  EXPECT_EQ(ShardElements(1001, 4), 251);
  EXPECT_DOUBLE_EQ(BalancedBytesSent(odd, 1, workers), 2 * 3 * 251 * 4.0);
  EXPECT_DOUBLE_EQ(BalancedBytesSent(all, 0, 1), 0);
}

TEST(SpbBalancedExchange, ScaleRules) {
  EXPECT_EQ(ParseSpbScale("contributors"), SpbScale::kContributors);
  EXPECT_EQ(ParseSpbScale("world"), SpbScale::kWorld);
  EXPECT_EQ(ParseSpbScale("lr"), SpbScale::kLr);
  EXPECT_THROW(ParseSpbScale("mean"), UsageError);
  EXPECT_DOUBLE_EQ(GradientDivisor(SpbScale::kContributors, 1, 4), 1);
  EXPECT_DOUBLE_EQ(GradientDivisor(SpbScale::kWorld, 1, 4), 4);
  EXPECT_DOUBLE_EQ(GradientDivisor(SpbScale::kLr, 2, 4), 2);
  EXPECT_DOUBLE_EQ(LearningRateFactor(SpbScale::kLr, 2, 4), 0.5);
  EXPECT_DOUBLE_EQ(LearningRateFactor(SpbScale::kWorld, 2, 4), 1);
  // world and lr take the same expected step: sum/N at lr == (sum/s) at lr x s/N.
  for (int s = 1; s <= 4; ++s) {
    EXPECT_DOUBLE_EQ(
        LearningRateFactor(SpbScale::kWorld, s, 4) / GradientDivisor(SpbScale::kWorld, s, 4),
        LearningRateFactor(SpbScale::kLr, s, 4) / GradientDivisor(SpbScale::kLr, s, 4));
  }
}

}  // namespace
}  // namespace jigsaw
