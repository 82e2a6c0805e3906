#include "fl/cluster_math.h"

#include <gtest/gtest.h>

#include <cmath>

namespace jigsaw {
namespace {

TEST(ClusterMath, AdjustedRandIndexKnownValues) {
  EXPECT_DOUBLE_EQ(AdjustedRandIndex({0, 0, 1, 1}, {5, 5, 7, 7}), 1.0);  // relabelling
  // scikit-learn: adjusted_rand_score([0,0,1,1],[0,0,1,2]) = 0.5714285714285715
  EXPECT_NEAR(AdjustedRandIndex({0, 0, 1, 1}, {0, 0, 1, 2}), 0.5714285714285715, 1e-12);
  // adjusted_rand_score([0,0,1,2],[0,0,1,1]) is symmetric.
  EXPECT_NEAR(AdjustedRandIndex({0, 0, 1, 2}, {0, 0, 1, 1}), 0.5714285714285715, 1e-12);
  // adjusted_rand_score([0,0,0,0],[0,1,2,3]) = 0
  EXPECT_NEAR(AdjustedRandIndex({0, 0, 0, 0}, {0, 1, 2, 3}), 0.0, 1e-12);
}

TEST(ClusterMath, Purity) {
  EXPECT_DOUBLE_EQ(Purity({0, 0, 1, 1}, {3, 3, 4, 4}), 1.0);
  EXPECT_DOUBLE_EQ(Purity({0, 0, 0, 1}, {3, 4, 4, 4}), 0.75);
}

TEST(ClusterMath, TwoMeansSeparatesTwoGroups) {
  Rows rows = {{0, 0}, {0.1f, 0}, {0, 0.2f}, {5, 5}, {5.1f, 5}, {5, 4.9f}};
  const std::vector<int> labels = TwoMeans(rows, 7);
  EXPECT_EQ(labels[0], labels[1]);
  EXPECT_EQ(labels[0], labels[2]);
  EXPECT_EQ(labels[3], labels[4]);
  EXPECT_EQ(labels[3], labels[5]);
  EXPECT_NE(labels[0], labels[3]);
}

TEST(ClusterMath, CenterNormalizeAndNearest) {
  const Rows centered = CenterRows({{1, 2}, {3, 4}});
  EXPECT_EQ(centered, (Rows{{-1, -1}, {1, 1}}));
  const Rows normalized = NormalizeRows({{3, 4}, {0, 0}});
  EXPECT_FLOAT_EQ(normalized[0][0], 0.6f);
  EXPECT_FLOAT_EQ(normalized[1][0], 0.0f);
  EXPECT_EQ(NearestRows({{0, 0}, {10, 0}, {1, 0}}, {0.2f, 0}, 2), (std::vector<int>{0, 2}));
}

TEST(ClusterMath, ProjectedSeparation) {
  // Centroids 10 apart, each group's projected spread 0.1: 100. Label 2 is ignored.
  EXPECT_NEAR(
      ProjectedSeparation({{0, 5}, {0.2f, 5}, {10, 5}, {10.2f, 5}, {50, 50}}, {0, 0, 1, 1, 2}),
      100.0, 1e-3);
  // The halves of 0..9: centroids 2 and 7, variance 2 each: 5 / sqrt(2).
  Rows line;
  for (int i = 0; i < 10; ++i) line.push_back({static_cast<float>(i)});
  EXPECT_NEAR(ProjectedSeparation(line, {0, 0, 0, 0, 0, 1, 1, 1, 1, 1}), 5.0 / std::sqrt(2.0),
              1e-6);
  EXPECT_EQ(ProjectedSeparation(line, {0, 1, 1, 1, 1, 1, 1, 1, 1, 1}), 0.0);  // one row on a side
  EXPECT_EQ(ProjectedSeparation({{0}, {0}, {3}, {3}}, {0, 0, 1, 1}), 1e9);    // no spread
}

}  // namespace
}  // namespace jigsaw
