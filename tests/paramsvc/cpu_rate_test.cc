#include "paramsvc/cpu_rate.h"

#include <gtest/gtest.h>

namespace jigsaw::paramsvc {
namespace {

TEST(CpuRateMeter, FirstSampleIsTheBaselineThenRatesPerWindow) {
  CpuRateMeter meter;
  EXPECT_FALSE(meter.Sample(10.0, 1.0, 0.025));
  EXPECT_TRUE(meter.has_baseline());
  EXPECT_EQ(meter.rate(), 0.0);
  EXPECT_TRUE(meter.Sample(10.05, 1.01, 0.025));
  EXPECT_NEAR(meter.rate(), 0.2, 1e-12);
  EXPECT_TRUE(meter.Sample(10.10, 1.06, 0.025));
  EXPECT_NEAR(meter.rate(), 1.0, 1e-12);
}

// Two reports 0.1 ms apart with a 4 ms CPU tick between them read as 40 cores under the old
// rule; the short window is skipped and folded into the next one.
TEST(CpuRateMeter, ShortWindowsAreFoldedIntoTheNextOne) {
  CpuRateMeter meter;
  meter.Sample(0.0, 0.0, 0.025);
  EXPECT_TRUE(meter.Sample(0.0499, 0.004, 0.025));
  EXPECT_NEAR(meter.rate(), 0.004 / 0.0499, 1e-12);
  EXPECT_FALSE(meter.Sample(0.05, 0.008, 0.025));  // 0.1 ms later: not a window
  EXPECT_NEAR(meter.rate(), 0.004 / 0.0499, 1e-12);
  EXPECT_TRUE(meter.Sample(0.0999, 0.012, 0.025));  // measured from 0.0499
  EXPECT_NEAR(meter.rate(), 0.008 / 0.05, 1e-12);
  EXPECT_FALSE(meter.Sample(0.0999, 0.02, 0.025));  // same wall time
  EXPECT_FALSE(meter.Sample(0.09, 0.02, 0.025));    // wall clock went back
}

TEST(CpuRateMeter, ResetStartsANewBaselineAndACounterGoingBackReadsZero) {
  CpuRateMeter meter;
  meter.Sample(0.0, 5.0, 0.025);
  EXPECT_TRUE(meter.Sample(0.1, 5.05, 0.025));
  EXPECT_NEAR(meter.rate(), 0.5, 1e-12);
  meter.Reset();
  EXPECT_FALSE(meter.has_baseline());
  EXPECT_FALSE(meter.Sample(0.2, 0.01, 0.025));  // another process's counter: baseline only
  EXPECT_NEAR(meter.rate(), 0.5, 1e-12);
  EXPECT_TRUE(meter.Sample(0.3, 0.03, 0.025));
  EXPECT_NEAR(meter.rate(), 0.2, 1e-12);
  EXPECT_TRUE(meter.Sample(0.4, 0.0, 0.025));  // counter went back without a Reset
  EXPECT_EQ(meter.rate(), 0.0);
}

}  // namespace
}  // namespace jigsaw::paramsvc
