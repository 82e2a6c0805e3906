// RepeatedSum must give exactly what the plain loop gives, tie-breaking cases included.
#include "core/repeated_sum.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace jigsaw {
namespace {

double Loop(double sum, double term, long long count) {
  for (long long i = 0; i < count; ++i) sum += term;
  return sum;
}

TEST(RepeatedSum, MatchesThePlainLoopBitForBit) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int trial = 0; trial < 4000; ++trial) {
    const double start =
        trial % 5 == 0 ? 0.0 : std::ldexp(unit(rng), static_cast<int>(rng() % 40) - 10);
    double term = std::ldexp(unit(rng), static_cast<int>(rng() % 30) - 15);
    if (trial % 3 == 0) term = std::round(term * 64) / 64 + 1;  // short mantissas, as durations
    if (trial % 7 == 0 && start > 0) {
      // Exactly half an ulp of the start (plus a whole number of ulps): ties all the way.
      int exponent = 0;
      std::frexp(start, &exponent);
      term = std::ldexp(1.0, exponent - 54) * static_cast<double>(1 + 2 * (rng() % 5));
    }
    const long long count = static_cast<long long>(rng() % 20000);
    const double expected = Loop(start, term, count);
    EXPECT_EQ(RepeatedSum(start, term, count), expected)
        << "start " << start << " term " << term << " count " << count;
  }
}

TEST(RepeatedSum, HandlesIntegersFixedPointsAndTheFallback) {
  EXPECT_EQ(RepeatedSum(0, 3, 1000000), 3e6);
  EXPECT_EQ(RepeatedSum(5, 1, 0), 5);
  EXPECT_EQ(RepeatedSum(5, 1, -3), 5);
  // A term below half an ulp of a large sum leaves it unchanged, as the loop does.
  EXPECT_EQ(RepeatedSum(0x1p60, 1, 100000), Loop(0x1p60, 1, 100000));
  EXPECT_EQ(RepeatedSum(0x1p53, 1, 7), 0x1p53);
  // Outside the fast path (a negative term) the plain loop runs.
  EXPECT_EQ(RepeatedSum(10, -0.1, 50), Loop(10, -0.1, 50));
  EXPECT_EQ(RepeatedSum(1e6, 0.1, 123457), Loop(1e6, 0.1, 123457));
}

}  // namespace
}  // namespace jigsaw
