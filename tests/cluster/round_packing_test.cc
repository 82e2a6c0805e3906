// RoundPacking: the bit-mask representation (up to 64 rounds) makes exactly the choices of the
// plain per-round arrays, on random sequences of copies, including reuse after Reset.
#include "cluster/policies/round_packing.h"

#include <gtest/gtest.h>

#include <random>

namespace jigsaw {
namespace {

TEST(RoundPacking, PutsACopyIntoTheEarliestRoundWithTheMostRoomTheJobIsNotIn) {
  RoundPacking packing(3, 4, 2);
  EXPECT_TRUE(packing.Add(0, 3));   // round 0: 1 free
  EXPECT_TRUE(packing.Add(1, 2));   // round 1: 2 free
  EXPECT_TRUE(packing.Add(1, 2));   // not round 1: round 2, 2 free
  EXPECT_TRUE(packing.Add(0, 2));   // not round 0: round 1 (earliest of 1 and 2), 0 free
  EXPECT_FALSE(packing.Add(0, 3));  // round 2 has 2 free
  EXPECT_EQ(packing.count(0), 2);
  EXPECT_EQ(packing.count(1), 2);
  EXPECT_EQ(packing.total_free(), 3);
  EXPECT_EQ(packing.schedule(), (std::vector<std::vector<int>>{{0}, {0, 1}, {1}}));
}

TEST(RoundPacking, BitMasksChooseAsThePlainArraysOnRandomSequences) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> unit(0, 1);
  RoundPacking masks(1, 1, 1), arrays(1, 1, 1, /*bit_masks=*/false);
  for (int instance = 0; instance < 600; ++instance) {
    // Shapes repeat now and then, so that Reset's reuse of the storage is covered too.
    const int horizon = instance % 3 == 0 ? 64 : 1 + static_cast<int>(unit(rng) * 64);
    const int capacity = 1 + static_cast<int>(unit(rng) * (instance % 2 == 0 ? 8 : 300));
    const size_t jobs = 1 + static_cast<size_t>(unit(rng) * 60);
    for (int repeat = 0; repeat < 2; ++repeat) {
      masks.Reset(horizon, capacity, jobs);
      arrays.Reset(horizon, capacity, jobs);
      const int adds = static_cast<int>(unit(rng) * 4 * horizon * jobs);
      for (int a = 0; a < adds; ++a) {
        const size_t job = static_cast<size_t>(unit(rng) * jobs);
        const int gpus = unit(rng) < 0.5 ? 1 : 1 + static_cast<int>(unit(rng) * capacity);
        ASSERT_EQ(masks.Add(job, gpus), arrays.Add(job, gpus))
            << "instance " << instance << " add " << a;
      }
      for (size_t job = 0; job < jobs; ++job) EXPECT_EQ(masks.count(job), arrays.count(job));
      EXPECT_EQ(masks.total_free(), arrays.total_free());
      EXPECT_EQ(masks.schedule(), arrays.schedule()) << "instance " << instance;
    }
  }
}

}  // namespace
}  // namespace jigsaw
