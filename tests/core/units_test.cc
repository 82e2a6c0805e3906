// core/units.h: the one parser for durations, sizes and rates.
#include "core/units.h"

#include <gtest/gtest.h>

namespace jigsaw {
namespace {

TEST(Units, Durations) {
  int64_t ps = 0;
  EXPECT_TRUE(ParseDurationPs("1us", &ps));
  EXPECT_EQ(ps, 1000000);
  EXPECT_TRUE(ParseDurationPs("0.005ms", &ps));
  EXPECT_EQ(ps, 5000000);
  EXPECT_FALSE(ParseDurationPs("10", &ps));  // units are mandatory by default
  EXPECT_FALSE(ParseDurationPs("10 parsecs", &ps));
  double s = 0;
  EXPECT_TRUE(ParseDurationSeconds("2m", &s));
  EXPECT_DOUBLE_EQ(s, 120);
  EXPECT_TRUE(ParseDurationSeconds("1h", &s));
  EXPECT_DOUBLE_EQ(s, 3600);
  EXPECT_TRUE(ParseDurationSeconds("500ms", &s));
  EXPECT_DOUBLE_EQ(s, 0.5);
  EXPECT_FALSE(ParseDurationSeconds("1.5", &s));
  EXPECT_TRUE(ParseDurationSeconds("1.5", &s, /*bare_is_seconds=*/true));
  EXPECT_DOUBLE_EQ(s, 1.5);
  EXPECT_FALSE(ParseDurationSeconds("-1s", &s));
  EXPECT_FALSE(ParseDurationSeconds("nans", &s));
}

TEST(Units, SizesAndRates) {
  uint64_t value = 0;
  EXPECT_TRUE(ParseBytes("2MB", &value));
  EXPECT_EQ(value, 2000000u);
  EXPECT_TRUE(ParseBytes("1MiB", &value));
  EXPECT_EQ(value, 1048576u);
  EXPECT_TRUE(ParseBytes("1500", &value));
  EXPECT_EQ(value, 1500u);
  EXPECT_FALSE(ParseBytes("2XB", &value));
  EXPECT_TRUE(ParseRateBps("100Gbps", &value));
  EXPECT_EQ(value, 100000000000u);
  EXPECT_TRUE(ParseRateBps("50M", &value));
  EXPECT_EQ(value, 50000000u);
  EXPECT_FALSE(ParseRateBps("0bps", &value));
  EXPECT_FALSE(ParseRateBps("100", &value));
}

TEST(Units, RatiosArePercentagesOrBareNumbersWithinABound) {
  double ratio = 0;
  EXPECT_TRUE(ParseRatio("30%", 1, &ratio));
  EXPECT_DOUBLE_EQ(ratio, 0.3);
  EXPECT_TRUE(ParseRatio("0.3", 1, &ratio));
  EXPECT_DOUBLE_EQ(ratio, 0.3);
  EXPECT_TRUE(ParseRatio("400%", 100, &ratio));
  EXPECT_DOUBLE_EQ(ratio, 4.0);
  EXPECT_FALSE(ParseRatio("400%", 1, &ratio));
  EXPECT_FALSE(ParseRatio("0%", 1, &ratio));
  EXPECT_FALSE(ParseRatio("30 %", 1, &ratio));
  EXPECT_FALSE(ParseRatio("abc", 1, &ratio));
}

}  // namespace
}  // namespace jigsaw
