#include "core/stats.h"

#include <gtest/gtest.h>

namespace jigsaw {
namespace {

TEST(Stats, Means) {
  std::vector<double> v = {1, 2, 4};
  EXPECT_DOUBLE_EQ(Mean(v), 7.0 / 3);
  EXPECT_NEAR(GeometricMean(v), 2.0, 1e-12);
  EXPECT_NEAR(HarmonicMean(v), 3.0 / (1 + 0.5 + 0.25), 1e-12);
  EXPECT_DOUBLE_EQ(Max(v), 4);
  EXPECT_DOUBLE_EQ(Percentile(v, 50), 2);
  EXPECT_DOUBLE_EQ(FractionAbove(v, 1.5), 2.0 / 3);
  EXPECT_DOUBLE_EQ(Mean({}), 0);
}

// Percentile and SampleQuantile sit at the same rank, q x (n - 1): one interpolates, the other
// takes the nearest sample.
TEST(Stats, PercentileAndSampleQuantileShareTheirRank) {
  const std::vector<double> v = {10, 20, 30, 40, 50};  // ranks 0..4
  EXPECT_DOUBLE_EQ(Percentile(v, 0), 10);
  EXPECT_DOUBLE_EQ(Percentile(v, 100), 50);
  EXPECT_DOUBLE_EQ(Percentile(v, 60), 34);  // rank 2.4
  EXPECT_DOUBLE_EQ(SampleQuantile(v, 0.6), 30);
  EXPECT_DOUBLE_EQ(SampleQuantile(v, 0.625), 40);  // rank 2.5 rounds up
  EXPECT_DOUBLE_EQ(SampleQuantile(v, 0.99), 50);
  EXPECT_DOUBLE_EQ(SampleQuantile(v, 0), 10);
  EXPECT_DOUBLE_EQ(SampleQuantile({}, 0.5), 0);
  EXPECT_DOUBLE_EQ(SampleQuantile({7}, 0.99), 7);
}

}  // namespace
}  // namespace jigsaw
