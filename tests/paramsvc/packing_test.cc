#include "paramsvc/packing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numeric>

#include "core/rng.h"

namespace jigsaw::paramsvc {
namespace {

std::vector<double> RandomDemands(Rng& rng, int n, double max) {
  std::vector<double> demands;
  for (int i = 0; i < n; ++i) demands.push_back(rng.Uniform(0.001, max));
  return demands;
}

TEST(Packing, FirstFitDecreasingKeepsItsInvariants) {
  Rng rng(14);
  for (int trial = 0; trial < 300; ++trial) {
    const double capacity = 0.8;
    const std::vector<double> demands =
        RandomDemands(rng, 1 + static_cast<int>(rng.UniformInt(60)), trial % 3 == 0 ? 1.2 : 0.6);
    const std::vector<int> bins = FirstFitDecreasing(demands, capacity);
    ASSERT_EQ(bins.size(), demands.size());
    const int count = BinCount(bins);
    std::map<int, double> load;
    std::map<int, int> items;
    for (size_t i = 0; i < bins.size(); ++i) {
      ASSERT_GE(bins[i], 0);  // every item placed, exactly once (one entry each)
      load[bins[i]] += demands[i];
      ++items[bins[i]];
    }
    EXPECT_EQ(static_cast<int>(load.size()), count);  // no empty bin
    int at_most_half = 0;
    for (const auto& [bin, l] : load) {
      if (items[bin] > 1) {
        EXPECT_LE(l, capacity + 1e-12) << "bin " << bin;
      }
      if (l <= capacity / 2) ++at_most_half;
    }
    EXPECT_LE(at_most_half, 1);
    const double total = std::accumulate(demands.begin(), demands.end(), 0.0);
    int oversized = 0;
    for (double d : demands) oversized += d > capacity;
    if (oversized == 0) {
      EXPECT_LE(count, static_cast<int>(std::ceil(2 * total / capacity)) + 1);
      EXPECT_GE(count, static_cast<int>(std::ceil(total / capacity - 1e-9)));
    }
  }
}

TEST(Packing, FirstFitDecreasingIsWithinItsBoundOfOptimal) {
  Rng rng(7);
  for (int trial = 0; trial < 150; ++trial) {
    const std::vector<double> demands =
        RandomDemands(rng, 2 + static_cast<int>(rng.UniformInt(9)), 0.7);
    const int ffd = BinCount(FirstFitDecreasing(demands, 0.8));
    const int opt = OptimalBinCount(demands, 0.8);
    EXPECT_LE(opt, ffd);
    EXPECT_LE(ffd, 11.0 / 9.0 * opt + 6.0 / 9.0 + 1e-9) << "trial " << trial;
  }
}

TEST(Packing, AKnownInstance) {
  // Into bins of 1.0, FFD makes {0.5, 0.5} {0.4, 0.4} {0.3, 0.3}; 2.4 of demand needs 3 anyway.
  const std::vector<double> demands = {0.3, 0.5, 0.4, 0.5, 0.4, 0.3};
  const std::vector<int> bins = FirstFitDecreasing(demands, 1.0);
  EXPECT_EQ(bins[1], 0);  // the largest first, into the first bin
  EXPECT_EQ(bins[3], 0);
  EXPECT_EQ(BinCount(bins), 3);
  EXPECT_EQ(OptimalBinCount(demands, 1.0), 3);
  EXPECT_EQ(FirstFit({0.5, 0.2}, 0.4, 0.7), 1);
  EXPECT_EQ(FirstFit({0.5, 0.4}, 0.4, 0.7), -1);
  EXPECT_THROW(FirstFitDecreasing({0.1}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace jigsaw::paramsvc
