// Hit-rule calibration: the largest bound whose hits reach the target agreement.
#include "serve/calibration.h"

#include <gtest/gtest.h>

namespace jigsaw {
namespace {

TEST(CalibrateBound, TakesTheLargestBoundMeetingTheTarget) {
  // Sorted by score: agree x4, disagree, agree x5, disagree x2.
  std::vector<CalibrationPoint> points = {{0.1, true},  {0.2, true}, {0.3, true},  {0.4, true},
                                          {0.5, false}, {0.6, true}, {0.7, true},  {0.8, true},
                                          {0.9, true},  {1.0, true}, {1.1, false}, {1.2, false}};
  const auto strict = CalibrateBound(points, 1.0, 1);
  ASSERT_TRUE(strict);
  EXPECT_DOUBLE_EQ(strict->bound, 0.4);
  EXPECT_EQ(strict->hits, 4);
  EXPECT_DOUBLE_EQ(strict->agreement, 1.0);
  const auto loose = CalibrateBound(points, 0.9, 1);  // 9 of 10 agree up to 1.0
  ASSERT_TRUE(loose);
  EXPECT_DOUBLE_EQ(loose->bound, 1.0);
  EXPECT_EQ(loose->hits, 10);
  EXPECT_FALSE(CalibrateBound(points, 1.0, 5));  // 100% holds for 4 hits only
}

TEST(CalibrateBound, NeverSplitsTiesAndRefusesHopelessLayers) {
  std::vector<CalibrationPoint> tied = {{0.1, true}, {0.2, true}, {0.2, false}, {0.3, true}};
  const auto bound = CalibrateBound(tied, 1.0, 1);
  ASSERT_TRUE(bound);
  EXPECT_DOUBLE_EQ(bound->bound, 0.1);
  EXPECT_FALSE(CalibrateBound({{0.1, false}, {0.2, false}}, 0.5, 1));
  EXPECT_FALSE(CalibrateBound({}, 0.99, 1));
}

}  // namespace
}  // namespace jigsaw
