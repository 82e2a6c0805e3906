// Participant slots per Auxo cohort (CohortSlots): the reference's equal split and the
// proportional option.
#include <gtest/gtest.h>

#include "fl/simulation.h"

namespace jigsaw {
namespace {

TEST(CohortSlots, EqualSplitIsParticipantsOverCohortsAtLeastOne) {
  EXPECT_EQ(CohortSlots(20, {10, 30, 60}, false), (std::vector<int>{6, 6, 6}));
  EXPECT_EQ(CohortSlots(20, {5, 5, 5, 5}, false), (std::vector<int>{5, 5, 5, 5}));
  EXPECT_EQ(CohortSlots(2, {5, 5, 5}, false), (std::vector<int>{1, 1, 1}));
}

TEST(CohortSlots, ProportionalSplitUsesLargestRemainders) {
  EXPECT_EQ(CohortSlots(20, {10, 30, 60}, true), (std::vector<int>{2, 6, 12}));
  // 20 x {5, 21, 79} / 105 = {0.95, 4, 15.05}: floors sum to 19, cohort 0 has the largest
  // remainder.
  EXPECT_EQ(CohortSlots(20, {5, 21, 79}, true), (std::vector<int>{1, 4, 15}));
  // Equal remainders: the lower cohort first.
  EXPECT_EQ(CohortSlots(5, {1, 1, 1, 1}, true), (std::vector<int>{2, 1, 1, 1}));
  EXPECT_EQ(CohortSlots(50, {105}, true), (std::vector<int>{50}));
}

TEST(CohortSlots, ProportionalGivesEveryCohortAtLeastOneSlot) {
  // An empty cohort takes one slot from the one with the most (the lower on ties).
  EXPECT_EQ(CohortSlots(20, {0, 50, 50}, true), (std::vector<int>{1, 9, 10}));
  // No affiliated clients at all: the equal split.
  EXPECT_EQ(CohortSlots(4, {0, 0}, true), (std::vector<int>{2, 2}));
}

}  // namespace
}  // namespace jigsaw
