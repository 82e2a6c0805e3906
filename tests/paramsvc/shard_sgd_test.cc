#include "paramsvc/shard_sgd.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/rng.h"

namespace jigsaw::paramsvc {
namespace {

bool BitEqual(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<std::vector<float>> Gradients(int workers, size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<std::vector<float>> g(workers, std::vector<float>(n));
  for (auto& v : g) {
    for (float& x : v) x = static_cast<float>(rng.Uniform(-1, 1)) * 1e-3f;
  }
  return g;
}

TEST(ShardSgd, ResultDoesNotDependOnArrivalOrder) {
  const int workers = 5;
  const size_t n = 257;
  std::vector<float> init(n);
  for (size_t i = 0; i < n; ++i) init[i] = 0.01f * static_cast<float>(i % 17);
  ShardSgd in_order(workers, 0.1f, 0.9f), shuffled(workers, 0.1f, 0.9f);
  in_order.SetParameters(init);
  shuffled.SetParameters(init);
  Rng rng(3);
  for (uint64_t step = 0; step < 20; ++step) {
    const auto g = Gradients(workers, n, 100 + step);
    for (int r = 0; r < workers; ++r) {
      EXPECT_EQ(in_order.Push(r, step, g[r]), r == workers - 1);
    }
    std::vector<int> order(workers);
    std::iota(order.begin(), order.end(), 0);
    for (int i = workers - 1; i > 0; --i) std::swap(order[i], order[rng.UniformInt(i + 1)]);
    for (int k = 0; k < workers; ++k) {
      EXPECT_EQ(shuffled.Push(order[k], step, g[order[k]]), k == workers - 1);
    }
    ASSERT_TRUE(BitEqual(in_order.parameters(), shuffled.parameters())) << "step " << step;
  }
  EXPECT_EQ(shuffled.version(), 20u);
}

TEST(ShardSgd, ExportAndRestoreContinueBitForBit) {
  ShardSgd a(3, 0.05f, 0.5f);
  a.SetParameters(std::vector<float>(64, 0.5f));
  for (uint64_t step = 0; step < 10; ++step) {
    const auto g = Gradients(3, 64, step);
    for (int r = 0; r < 3; ++r) a.Push(r, step, g[r]);
    if (step == 4) {
      ShardSgd b(3, 0.05f, 0.5f);
      b.Restore(a.Export());
      for (uint64_t s = 5; s < 10; ++s) {
        const auto h = Gradients(3, 64, s);
        for (int r = 2; r >= 0; --r) b.Push(r, s, h[r]);
      }
      ShardSgd c = a;
      for (uint64_t s = 5; s < 10; ++s) {
        const auto h = Gradients(3, 64, s);
        for (int r = 0; r < 3; ++r) c.Push(r, s, h[r]);
      }
      EXPECT_TRUE(BitEqual(b.parameters(), c.parameters()));
      EXPECT_EQ(b.version(), 10u);
    }
  }
}

TEST(ShardSgd, RefusesMisuse) {
  ShardSgd sgd(2, 0.1f, 0);
  EXPECT_THROW(sgd.Push(0, 0, {1}), std::invalid_argument);  // not initialized
  sgd.SetParameters({1, 2});
  EXPECT_THROW(sgd.Push(2, 0, {1, 1}), std::invalid_argument);  // rank
  EXPECT_THROW(sgd.Push(0, 1, {1, 1}), std::invalid_argument);  // step ahead
  EXPECT_THROW(sgd.Push(0, 0, {1}), std::invalid_argument);     // size
  EXPECT_FALSE(sgd.Push(1, 0, {1, 1}));
  EXPECT_THROW(sgd.Push(1, 0, {1, 1}), std::invalid_argument);  // twice
  EXPECT_THROW(sgd.Export(), std::invalid_argument);            // mid-step
  EXPECT_TRUE(sgd.Push(0, 0, {1, 1}));
  EXPECT_FLOAT_EQ(sgd.parameters()[0], 0.9f);
}

}  // namespace
}  // namespace jigsaw::paramsvc
