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

}  // namespace
}  // namespace jigsaw
