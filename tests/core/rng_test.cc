#include "core/rng.h"

#include <gtest/gtest.h>

#include <cmath>

namespace jigsaw {
namespace {

TEST(Rng, SameSeedSameSequence) {
  Rng a(7), b(7), c(8);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    uint64_t x = a.NextU64();
    EXPECT_EQ(x, b.NextU64());
    differs |= x != c.NextU64();
  }
  EXPECT_TRUE(differs);
}

TEST(Rng, KnownFirstValueIsPlatformIndependent) {
  // Pinned so a change of generator (which would change every seeded output) is noticed.
  Rng rng(0);
  EXPECT_EQ(rng.NextU64(), 11091344671253066420ULL);
}

TEST(Rng, DistributionsHaveTheRightMoments) {
  Rng rng(1);
  const int n = 200000;
  double sum_u = 0, sum_e = 0;
  std::vector<int> counts(3);
  for (int i = 0; i < n; ++i) {
    double u = rng.Uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum_u += u;
    sum_e += rng.Exponential(40.0);
    counts[rng.WeightedIndex({0.6, 0.3, 0.1})]++;
  }
  EXPECT_NEAR(sum_u / n, 0.5, 0.01);
  EXPECT_NEAR(sum_e / n, 40.0, 0.5);
  EXPECT_NEAR(counts[0] / double(n), 0.6, 0.01);
  EXPECT_NEAR(counts[2] / double(n), 0.1, 0.01);
  EXPECT_LT(rng.UniformInt(5), 5u);
}

}  // namespace
}  // namespace jigsaw
