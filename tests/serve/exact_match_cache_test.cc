// The exact-match response cache: hits only on identical inputs at layer 0, LRU eviction within
// its capacity, memory accounting.
#include "serve/exact_match_cache.h"

#include <gtest/gtest.h>

#include <vector>

namespace jigsaw {
namespace {

std::vector<float> Sample(float seed, int size = 12) {
  std::vector<float> values(size);
  for (int i = 0; i < size; ++i) values[i] = seed + 0.25f * i;
  return values;
}

TEST(ExactMatchCache, HitsOnlyOnTheIdenticalInputAtLayerZero) {
  ExactMatchCache cache(4);
  EXPECT_EQ(cache.layers(), std::vector<int>({0}));
  const std::vector<float> a = Sample(1), logits = {0.1f, 0.9f};
  EXPECT_FALSE(cache.Lookup(0, a));
  cache.Insert(0, a, 1, logits);
  const auto hit = cache.Lookup(0, a);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->label, 1);
  EXPECT_EQ(hit->scores, logits);
  std::vector<float> close = a;
  close[5] += 1e-6f;
  EXPECT_FALSE(cache.Lookup(0, close));
  EXPECT_FALSE(cache.Lookup(0, Sample(1, 11)));  // a prefix is not the input
  EXPECT_FALSE(cache.Lookup(1, a));              // other layers are not its business
  cache.Insert(2, close, 0, logits);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(ExactMatchCache, EvictsTheLeastRecentlyUsedAndAccountsMemory) {
  ExactMatchCache cache(2);
  const std::vector<float> logits = {1, 0};
  cache.Insert(0, Sample(1), 0, logits);
  const size_t one = cache.MemoryBytes();
  EXPECT_GE(one, 12 * sizeof(float));
  cache.Insert(0, Sample(2), 0, logits);
  EXPECT_EQ(cache.MemoryBytes(), 2 * one);
  ASSERT_TRUE(cache.Lookup(0, Sample(1)));  // now 2 is the least recently used
  cache.Insert(0, Sample(3), 0, logits);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.MemoryBytes(), 2 * one);
  EXPECT_TRUE(cache.Lookup(0, Sample(1)));
  EXPECT_FALSE(cache.Lookup(0, Sample(2)));
  EXPECT_TRUE(cache.Lookup(0, Sample(3)));
  cache.Insert(0, Sample(3), 1, logits);  // already there: no duplicate, no relabel
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Lookup(0, Sample(3))->label, 0);
}

}  // namespace
}  // namespace jigsaw
