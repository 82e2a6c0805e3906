#include "model/adaptation.h"

#include <gtest/gtest.h>

namespace jigsaw {
namespace {

TEST(Adaptation, EpochArithmetic) {
  EXPECT_EQ(IterationsPerEpoch("ResNet-18", 32), 1563);
  EXPECT_EQ(IterationsPerEpoch("Recommendation", 4096), 29);
  EXPECT_EQ(EpochsSpanned("ResNet-18", 32, 1563), 1);
  EXPECT_EQ(EpochsSpanned("ResNet-18", 32, 1564), 2);
  EXPECT_EQ(DatasetSize("Unknown"), 0);
}

TEST(Adaptation, GnsScheduleFollowsTheTableAndCaps) {
  EXPECT_EQ(GnsBatchSize("ResNet-18", 16, 1, 30), 16);
  EXPECT_EQ(GnsBatchSize("ResNet-18", 16, 1, 31), 32);
  EXPECT_EQ(GnsBatchSize("ResNet-18", 16, 1, 45), 64);
  EXPECT_EQ(GnsBatchSize("ResNet-18", 16, 1, 60), 128);
  EXPECT_EQ(GnsBatchSize("ResNet-18", 16, 1, 500), 256);
  EXPECT_EQ(GnsBatchSize("LM", 5, 1, 100), 80);
  EXPECT_EQ(GnsBatchSize("ResNet-18", 16, 8, 500), 16);    // no schedule for 8 GPUs
  EXPECT_EQ(GnsBatchSize("Transformer", 16, 1, 500), 16);  // never adapts
}

TEST(Adaptation, AccordionRegimes) {
  EXPECT_TRUE(InAccordionCriticalRegime("ResNet-18", 32, 9));
  EXPECT_FALSE(InAccordionCriticalRegime("ResNet-18", 32, 10));
  EXPECT_TRUE(InAccordionCriticalRegime("ResNet-18", 256, 15));
  EXPECT_TRUE(InAccordionCriticalRegime("ResNet-18", 32, 155));
  EXPECT_TRUE(InAccordionCriticalRegime("ResNet-50", 64, 35));
  EXPECT_FALSE(InAccordionCriticalRegime("ResNet-50", 64, 45));
  EXPECT_TRUE(InAccordionCriticalRegime("Recommendation", 2048, 39));
  EXPECT_FALSE(InAccordionCriticalRegime("Recommendation", 4096, 10));
}

TEST(Adaptation, ProfileScheduleKeepsTheFirstThirtyPercentSmall) {
  auto schedule = BatchSizeSchedule(AdaptationMode::kAccordion, "LM", 10, 1, 100);
  ASSERT_EQ(schedule.size(), 100u);
  EXPECT_EQ(schedule[20], 10);  // not critical, but within the first 30%
  EXPECT_EQ(schedule[30], 10);  // 30 > 0.3 * 100 is false
  EXPECT_EQ(schedule[31], 80);
  auto fixed = BatchSizeSchedule(AdaptationMode::kStatic, "LM", 10, 1, 5);
  EXPECT_EQ(fixed, (std::vector<int>(5, 10)));
}

}  // namespace
}  // namespace jigsaw
