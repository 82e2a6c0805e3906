#include "fl/cohort_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>

#include "fl/blobs.h"

namespace jigsaw {
namespace {

// Two tight groups of 4 in a cohort of 8: the first round's 2-means puts each group on one side.
TEST(CohortTable, FirstRoundBipartitionsBy2Means) {
  CohortTable table(8, CohortOptions{});
  const std::vector<int> clients = {0, 1, 2, 3, 4, 5, 6, 7};
  Rows rows;
  for (int i = 0; i < 8; ++i) rows.push_back({i < 4 ? 1.0f : -1.0f, 0.01f * i});
  table.UpdateSides(0, clients, rows, true);
  const int side_a = table.PreferredSide(0, 0);
  ASSERT_NE(side_a, 2);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(table.PreferredSide(i, 0), i < 4 ? side_a : 1 - side_a) << i;
    EXPECT_DOUBLE_EQ(table.entry(i, 0).side[table.PreferredSide(i, 0)], 1.5);
    EXPECT_DOUBLE_EQ(table.entry(i, 0).side[1 - table.PreferredSide(i, 0)], -0.5);
    EXPECT_EQ(table.entry(i, 0).train_times, 1);
  }
}

// Later rounds: unlabelled clients take the side of their nearest labelled neighbour.
TEST(CohortTable, LaterRoundsLabelBy1NearestNeighbour) {
  CohortTable table(10, CohortOptions{});
  Rows first;
  for (int i = 0; i < 4; ++i) first.push_back({i < 2 ? 1.0f : -1.0f, 0.0f});
  table.UpdateSides(0, {0, 1, 2, 3}, first, true);
  const int side_of_0 = table.PreferredSide(0, 0);
  // Clients 4 (near 0/1) and 5 (near 2/3) are new; 0 and 2 are labelled.
  table.UpdateSides(0, {0, 2, 4, 5}, {{1, 0}, {-1, 0}, {0.9f, 0.1f}, {-0.8f, 0}}, true);
  EXPECT_EQ(table.PreferredSide(4, 0), side_of_0);
  EXPECT_EQ(table.PreferredSide(5, 0), 1 - side_of_0);
  // Labelled clients are not relabelled by 1-NN.
  EXPECT_EQ(table.entry(0, 0).train_times, 1);
  EXPECT_EQ(table.entry(4, 0).train_times, 1);
  EXPECT_EQ(table.epoch(0), 2);
}

// Only one side present: the n/4 nearest neighbours of the labelled client inherit its side.
TEST(CohortTable, OneSidedRoundSpreadsToQuarterNearest) {
  CohortTable table(12, CohortOptions{});
  table.UpdateSides(0, {0, 1}, {{1, 0}, {-1, 0}}, true);
  const int side_of_0 = table.PreferredSide(0, 0);
  // Round of 8 with only client 0 labelled: its 2 nearest (itself and client 2) gain its side.
  table.UpdateSides(0, {0, 2, 3, 4, 5, 6, 7, 8},
                    {{1, 0}, {0.95f, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}}, true);
  EXPECT_EQ(table.PreferredSide(2, 0), side_of_0);
  EXPECT_DOUBLE_EQ(table.entry(0, 0).side[side_of_0], 2.5);
  for (int c = 3; c <= 8; ++c) EXPECT_EQ(table.PreferredSide(c, 0), 2) << c;
}

// Inter-cohort reward: R0 - R0 / (mean + std) * d, scaled by the known share; negative rewards
// reset the sides.
TEST(CohortTable, MainRewardFollowsDistanceToKnownCentroid) {
  CohortOptions options;
  options.split_epochs = {1};
  CohortTable table(4, options);
  table.UpdateSides(0, {0, 1, 2, 3}, {{1, 0}, {1, 0}, {-1, 0}, {-1, 0}}, true);
  ASSERT_TRUE(table.ShouldSplit(0));
  table.Grow(0);
  ASSERT_EQ(table.num_cohorts(), 2);
  // After the split each client has R = 2 on its side's cohort, 1 on the other.
  const int home0 = table.GreedyCohort(0);
  EXPECT_DOUBLE_EQ(table.entry(0, home0).reward, 2.0);
  EXPECT_DOUBLE_EQ(table.entry(0, 1 - home0).reward, 1.0);
  EXPECT_EQ(table.GreedyCohort(1), home0);
  EXPECT_NE(table.GreedyCohort(2), home0);
  // Clients 0 and 1 known in home0 (trained, R > 1); 2 is not. Centered rows: 0 and 1 at the
  // centroid (distance 0), client 2 at distance 3.
  const Rows centered = {{0, 0}, {0, 0}, {3, 0}};
  ASSERT_TRUE(table.UpdateRewards(home0, {0, 1, 2}, centered));
  // mean d = 1, std = sqrt(2), slope = 5 / (1 + sqrt 2), known share 2/3.
  const double slope = 5.0 / (1.0 + std::sqrt(2.0));
  EXPECT_NEAR(table.entry(0, home0).reward, 2.0 + 5.0 * 2 / 3, 1e-9);
  const double reward2 = (5.0 - slope * 3.0) * 2 / 3;
  ASSERT_LT(reward2, 0);
  EXPECT_NEAR(table.entry(2, home0).reward, 1.0 + reward2, 1e-9);
  EXPECT_DOUBLE_EQ(table.entry(2, home0).side[0], table.entry(2, home0).side[1]);
  EXPECT_EQ(table.entry(2, home0).train_times, 1);  // reset, then counted
}

TEST(CohortTable, NoMainRewardsWithOneCohortOrTooFewKnown) {
  CohortTable table(3, CohortOptions{});
  EXPECT_FALSE(table.UpdateRewards(0, {0, 1, 2}, {{1, 0}, {0, 1}, {2, 2}}));
  EXPECT_DOUBLE_EQ(table.entry(0, 0).reward, 1.0);
}

// Adaptive split test: enough affiliated clients, both sides above the known-client bar, and the
// size ratio rule after the first split.
TEST(CohortTable, AdaptiveSplitNeedsBothSidesAboveKnownClients) {
  CohortOptions options;
  options.known_clients = 3;
  options.min_cohort_clients = 8;
  CohortTable table(10, options);
  EXPECT_FALSE(table.ShouldSplit(0));  // nobody prefers a side
  Rows rows;
  for (int i = 0; i < 10; ++i) rows.push_back({i < 4 ? 1.0f : -1.0f, 0});
  std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  table.UpdateSides(0, all, rows, true);  // sides of 4 and 6 clients: both > 3
  EXPECT_TRUE(table.ShouldSplit(0));
  options.known_clients = 4;  // 4 is not > 4
  CohortTable strict(10, options);
  strict.UpdateSides(0, all, rows, true);
  EXPECT_FALSE(strict.ShouldSplit(0));
}

TEST(CohortTable, FixedSplitEpochsAndChildrenInheritTheEpoch) {
  CohortOptions options;
  options.split_epochs = {2, 4};
  CohortTable table(6, options);
  Rows rows = {{1, 0}, {1, 0.1f}, {1, 0.2f}, {-1, 0}, {-1, 0.1f}, {-1, 0.2f}};
  std::vector<int> all = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ(table.Update(0, all, rows, rows), -1);
  EXPECT_EQ(table.Update(0, all, rows, rows), 1);
  EXPECT_EQ(table.num_cohorts(), 2);
  EXPECT_EQ(table.epoch(1), 2);
}

TEST(CohortTable, NewClientsExploreTrainedClientsAreGreedy) {
  CohortOptions options;
  options.epsilon = 0.0;
  CohortTable table(2, options);
  table.Grow(0);  // two cohorts, nobody trained
  table.mutable_entry(0, 1).reward = 3.0;
  table.mutable_entry(0, 1).train_times = 1;
  for (int i = 0; i < 20; ++i) EXPECT_EQ(table.ChooseCohort(0), 1);
  std::vector<int> seen(2, 0);
  for (int i = 0; i < 200; ++i) ++seen[table.ChooseCohort(1)];
  EXPECT_GT(seen[0], 0);
  EXPECT_GT(seen[1], 0);
}

TEST(CohortTable, SignatureIsTheLastTenthOfOldMinusNew) {
  std::vector<float> old_w(20, 1.0f), new_w(20, 0.0f);
  new_w[19] = 3.0f;
  EXPECT_EQ(UpdateSignature(old_w, new_w), (std::vector<float>{1.0f, -2.0f}));
}

// Two cohorts (the first split is exempt from the gate), cohort 0's 10 clients known; sides drawn
// on `rows` by the first-round 2-means.
CohortTable KnownSecondCohortTable(const CohortOptions& options, const Rows& rows) {
  CohortTable table(10, options);
  table.Grow(0);
  for (int c = 0; c < 10; ++c) {
    table.mutable_entry(c, 0).reward = 2.0;
    table.mutable_entry(c, 0).train_times = 1;
  }
  const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  table.UpdateSides(0, all, rows, true);
  table.UpdateSeparation(0, all, rows);
  return table;
}

// The separation gate (not in the reference): halves of one even spread of points (separation
// 5 / sqrt(2) = 3.54) do not split under a bar of 3.6, two clusters 10 apart do; without the gate
// (bar 0, the reference) the halves split too.
TEST(CohortTable, SeparationGateSplitsClustersNotHalvesOfOne) {
  Rows line, clusters;
  for (int i = 0; i < 10; ++i) {
    line.push_back({static_cast<float>(i), 0.0f});
    clusters.push_back({(i < 5 ? 0.0f : 10.0f) + 0.1f * (i % 5), 0.0f});
  }
  CohortOptions options;
  options.known_clients = 1;
  options.min_cohort_clients = 4;
  options.min_side_separation = 3.6;
  const CohortTable halves = KnownSecondCohortTable(options, line);
  ASSERT_NE(halves.PreferredSide(0, 0), 2);
  EXPECT_EQ(halves.PreferredSide(0, 0), 1 - halves.PreferredSide(9, 0));
  EXPECT_NEAR(halves.side_separation(0), 5.0 / std::sqrt(2.0), 1e-6);
  EXPECT_FALSE(halves.ShouldSplit(0));
  const CohortTable apart = KnownSecondCohortTable(options, clusters);
  EXPECT_GT(apart.side_separation(0), 50.0);
  EXPECT_TRUE(apart.ShouldSplit(0));
  options.min_side_separation = 0.0;
  EXPECT_TRUE(KnownSecondCohortTable(options, line).ShouldSplit(0));
}

// gate_first_split (not in the reference): the separation gate also holds back the first split.
// One cohort, halves of an even line (separation 3.54 < 3.6): the default waives the gate there
// and splits; with the option it does not; two clusters 10 apart split either way.
TEST(CohortTable, GateFirstSplitHoldsBackHalvesOfOneClusterAtTheFirstSplit) {
  Rows line, clusters;
  for (int i = 0; i < 10; ++i) {
    line.push_back({static_cast<float>(i), 0.0f});
    clusters.push_back({(i < 5 ? 0.0f : 10.0f) + 0.1f * (i % 5), 0.0f});
  }
  const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  for (const bool gate_first : {false, true}) {
    CohortOptions options;
    options.known_clients = 1;
    options.min_cohort_clients = 4;
    options.min_side_separation = 3.6;
    options.gate_first_split = gate_first;
    CohortTable halves(10, options);
    halves.UpdateSides(0, all, line, true);
    halves.UpdateSeparation(0, all, line);
    ASSERT_EQ(halves.num_cohorts(), 1);
    EXPECT_NEAR(halves.side_separation(0), 5.0 / std::sqrt(2.0), 1e-6);
    EXPECT_EQ(halves.ShouldSplit(0), !gate_first) << gate_first;
    CohortTable apart(10, options);
    apart.UpdateSides(0, all, clusters, true);
    apart.UpdateSeparation(0, all, clusters);
    EXPECT_TRUE(apart.ShouldSplit(0)) << gate_first;
  }
}

// median_rewards (not in the reference): the main rewards' centre is the coordinate-wise upper
// median of the known clients' centered signatures. Known clients 0-2 near the origin, 3-4 (a
// minority fragment) 10 away: centre (0, 1) instead of the mean (4, 0.8); the majority's rewards
// rise and the fragment's fall below zero (its sides are reset), where the mean rewards both.
TEST(CohortTable, MedianRewardsMeasureDistancesToTheKnownClientsMedian) {
  const Rows centered = {{0, 0}, {0, 1}, {0, 2}, {10, 0}, {10, 1}, {4, 9}};
  const std::vector<int> clients = {0, 1, 2, 3, 4, 5};
  const auto expected = [&](double cx, double cy) {
    std::vector<double> d;
    for (const auto& row : centered) d.push_back(std::hypot(row[0] - cx, row[1] - cy));
    double mean = 0, var = 0;
    for (double x : d) mean += x / d.size();
    for (double x : d) var += (x - mean) * (x - mean) / d.size();
    const double slope = 5.0 / (mean + std::sqrt(var));
    std::vector<double> reward;
    for (double x : d) reward.push_back((5.0 - slope * x) * 5.0 / 6.0);  // 5 of 6 known
    return reward;
  };
  for (const bool median : {false, true}) {
    CohortOptions options;
    options.median_rewards = median;
    CohortTable table(6, options);
    table.Grow(0);
    for (int c = 0; c < 5; ++c) {  // known in cohort 0; client 5 is not
      table.mutable_entry(c, 0).reward = 2.0;
      table.mutable_entry(c, 0).side[0] = 1.5;
      table.mutable_entry(c, 0).side[1] = 0.5;
      table.mutable_entry(c, 0).train_times = 1;
    }
    ASSERT_TRUE(table.UpdateRewards(0, clients, centered));
    const std::vector<double> reward = median ? expected(0.0, 1.0) : expected(4.0, 0.8);
    for (int c = 0; c < 6; ++c) {
      EXPECT_NEAR(table.entry(c, 0).reward, (c < 5 ? 2.0 : 1.0) + reward[c], 1e-5)
          << "median " << median << " client " << c;
    }
    for (int c = 3; c < 5; ++c) {
      if (median) {
        EXPECT_LT(reward[c], 0) << c;
        EXPECT_EQ(table.PreferredSide(c, 0), 2) << c;  // sides reset
      } else {
        EXPECT_GT(reward[c], 0) << c;
        EXPECT_EQ(table.PreferredSide(c, 0), 0) << c;
      }
    }
  }
}

// pooled_sides (not in the reference): the first sides are drawn over the stored signatures of
// the cohort's known clients once there are more than the size bar (known_clients 3 here).
// Round 1 sees clients 0 (0, 0) and 1 (2, 0) of one cluster; round 2 sees them again with 2
// (0.8, 0) of it and 3 (20, 0) of another. One-round draws cut the cluster (0 against 1; 1-NN
// then gives 2 the side of 0 and 3 the side of 1); the pooled draw waits for round 2 and puts 0,
// 1 and 2 against 3, and the separation starts from the pool's. A re-bipartition draws from one
// round again.
TEST(CohortTable, PooledSidesDrawOverTheKnownClientsStoredSignatures) {
  const Rows first = {{0, 0}, {2, 0}};
  const Rows second = {{0, 0}, {2, 0}, {0.8f, 0}, {20, 0}};
  for (const bool pooled : {false, true}) {
    CohortOptions options;
    options.known_clients = 3;
    options.pooled_sides = pooled;
    CohortTable table(5, options);
    table.UpdateSides(0, {0, 1}, first, true);
    if (pooled) {
      for (int c = 0; c < 5; ++c) EXPECT_EQ(table.PreferredSide(c, 0), 2) << c;
    } else {
      EXPECT_EQ(table.PreferredSide(0, 0), 1 - table.PreferredSide(1, 0));
    }
    table.UpdateSides(0, {0, 1, 2, 3}, second, true);
    const int side_of_0 = table.PreferredSide(0, 0);
    ASSERT_NE(side_of_0, 2) << pooled;
    EXPECT_EQ(table.PreferredSide(1, 0), pooled ? side_of_0 : 1 - side_of_0) << pooled;
    EXPECT_EQ(table.PreferredSide(2, 0), side_of_0) << pooled;
    EXPECT_EQ(table.PreferredSide(3, 0), 1 - side_of_0) << pooled;
    EXPECT_EQ(table.PreferredSide(4, 0), 2) << pooled;  // never seen
    for (int c = 0; c < 4; ++c) {
      EXPECT_EQ(table.entry(c, 0).train_times, 1) << pooled << " " << c;
      EXPECT_DOUBLE_EQ(table.entry(c, 0).side[table.PreferredSide(c, 0)], 1.5) << c;
    }
    if (!pooled) continue;
    const std::vector<int> labels = {side_of_0, side_of_0, side_of_0, 1 - side_of_0};
    EXPECT_DOUBLE_EQ(table.side_separation(0), ProjectedSeparation(second, labels));
    table.ForgetSides(0);
    table.UpdateSides(0, {0, 1}, first, true);  // one round: cuts the cluster again
    EXPECT_EQ(table.PreferredSide(0, 0), 1 - table.PreferredSide(1, 0));
    EXPECT_EQ(table.PreferredSide(3, 0), 2);
  }
}

// The side-size ratio bar after the first split: sides of 3 and 7 clients (ratio 0.43; a cohort
// of three equal groups cut 1-vs-2 gives about 0.5) fail the reference's (0.5, 2) and pass (1/3,
// 3).
TEST(CohortTable, SideRatioBarDecidesAOneVersusTwoSplit) {
  Rows rows;
  for (int i = 0; i < 10; ++i) rows.push_back({i < 3 ? 0.0f : 10.0f + 0.1f * i, 0.0f});
  CohortOptions options;
  options.known_clients = 1;
  options.min_cohort_clients = 4;
  const CohortTable reference = KnownSecondCohortTable(options, rows);
  ASSERT_NE(reference.PreferredSide(0, 0), 2);
  EXPECT_EQ(reference.PreferredSide(0, 0), reference.PreferredSide(2, 0));
  EXPECT_NE(reference.PreferredSide(0, 0), reference.PreferredSide(3, 0));
  EXPECT_FALSE(reference.ShouldSplit(0));
  options.max_side_ratio = 3.0;
  EXPECT_TRUE(KnownSecondCohortTable(options, rows).ShouldSplit(0));
}

// The running separation: first value as is, then 0.9 * old + 0.1 * new; rounds with one side
// missing leave it unchanged.
TEST(CohortTable, SeparationIsARunningMeanOverRounds) {
  Rows line;
  for (int i = 0; i < 10; ++i) line.push_back({static_cast<float>(i), 0.0f});
  CohortOptions options;
  CohortTable table = KnownSecondCohortTable(options, line);
  const double first = table.side_separation(0);
  EXPECT_EQ(table.side_separation(1), -1.0);
  // The same clients, their points squeezed to half the spread within each side: separation is
  // unchanged in scale (ratio), so squeeze only one side's spread.
  Rows squeezed = line;
  for (int i = 0; i < 10; ++i) squeezed[i][0] = i < 5 ? 2.0f + 0.5f * (i - 2) : line[i][0];
  const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<int> side;
  for (int c : all) side.push_back(table.PreferredSide(c, 0));
  const double second = ProjectedSeparation(squeezed, side);
  table.UpdateSeparation(0, all, squeezed);
  EXPECT_NEAR(table.side_separation(0), 0.9 * first + 0.1 * second, 1e-9);
  table.UpdateSeparation(0, {0, 1, 2, 3, 4}, Rows(line.begin(), line.begin() + 5));  // one side
  EXPECT_NEAR(table.side_separation(0), 0.9 * first + 0.1 * second, 1e-9);
}

// Re-bipartition (not in the reference): sides that have not split rebipartition_epochs cohort
// epochs after they were drawn are forgotten (R/2 each) and drawn again in the next round.
TEST(CohortTable, StaleSidesAreForgottenAndRedrawn) {
  Rows rows;
  for (int i = 0; i < 10; ++i) rows.push_back({i < 5 ? 1.0f : -1.0f, 0.01f * i});
  const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  for (const int epochs : {0, 2}) {
    CohortOptions options;
    options.known_clients = 100;  // never splits
    options.rebipartition_epochs = epochs;
    CohortTable table(10, options);
    table.Update(0, all, rows, rows);  // epoch 1: sides drawn
    table.Update(0, all, rows, rows);  // epoch 2
    for (int c : all) EXPECT_NE(table.PreferredSide(c, 0), 2) << c;
    table.Update(0, all, rows, rows);  // epoch 3: 3 - 1 >= 2
    for (int c : all) {
      if (epochs == 0) {
        EXPECT_NE(table.PreferredSide(c, 0), 2) << c;
      } else {
        EXPECT_EQ(table.PreferredSide(c, 0), 2) << c;
        EXPECT_EQ(table.entry(c, 0).side[0], table.entry(c, 0).reward / 2);
      }
    }
    table.Update(0, all, rows, rows);  // epoch 4: drawn again by 2-means
    for (int c : all) EXPECT_NE(table.PreferredSide(c, 0), 2) << c;
    EXPECT_EQ(table.PreferredSide(0, 0), 1 - table.PreferredSide(9, 0));
  }
}

// The playground's cohort options (known_clt 150, min_clt 100 / 0.9) shared by the blob tests.
CohortOptions PlaygroundOptions() {
  CohortOptions options;
  options.known_clients = 150;
  options.min_cohort_clients = 111;
  return options;
}

// bench/fl.sh's "added" rules: the separation gate (3) and re-bipartition after 50 cohort epochs.
CohortOptions AddedRules() {
  CohortOptions options = PlaygroundOptions();
  options.min_side_separation = 3.0;
  options.rebipartition_epochs = 50;
  return options;
}

// bench/fl.sh's "robust" rules: added + the median reward centre + the gate at the first split.
CohortOptions RobustRules() {
  CohortOptions options = AddedRules();
  options.median_rewards = true;
  options.gate_first_split = true;
  return options;
}

void ExpectFourBlobs(const BlobDiscoveryResult& result, uint64_t seed) {
  EXPECT_EQ(result.cohorts, 4) << "seed " << seed;
  EXPECT_GE(result.ari, 0.9) << "seed " << seed;
  EXPECT_GE(result.purity, 0.9) << "seed " << seed;
}

BlobPopulation PlaygroundDraw(uint64_t seed) {
  return MakeBlobs(1000, 4, 2.0, 2, 10.0, 100 + seed);
}

// On each draw (the cohort seed is the draw) `before` stays below ARI 0.9 and `after` finds the
// four blobs.
void ExpectRulesRecoverDraws(std::initializer_list<uint64_t> seeds, CohortOptions before,
                             CohortOptions after) {
  for (uint64_t seed : seeds) {
    const BlobPopulation population = PlaygroundDraw(seed);
    before.seed = seed;
    after.seed = seed;
    EXPECT_LT(RunBlobDiscovery(population, before, 800, 50, seed).ari, 0.9) << "seed " << seed;
    ExpectFourBlobs(RunBlobDiscovery(population, after, 800, 50, seed), seed);
  }
}

// FedScale's playground: 1,000 clients in 4 Gaussian blobs (std 2, centres >= 10 apart), 50
// sampled per epoch, 800 epochs, known_clt 150, min_clt 100 / 0.9. The reference algorithm is
// not robust on every draw (bench/fl.sh reports the share of 20 seeds that reach ARI 0.9, about
// half); these seeds are draws where it recovers the blobs, kept as a deterministic regression
// test of the whole discovery loop.
TEST(BlobDiscovery, RecoversFourBlobs) {
  for (uint64_t seed : {2u, 3u, 5u}) {
    CohortOptions options = PlaygroundOptions();
    options.seed = seed;
    ExpectFourBlobs(RunBlobDiscovery(PlaygroundDraw(seed), options, 800, 50, seed), seed);
  }
}

// With the separation gate (3) and re-bipartition after 50 cohort epochs, seeds on which the
// reference rules fail (bench/fl.sh: ARI 0.36-0.71, 2, 3 or 5 cohorts) recover the four blobs.
TEST(BlobDiscovery, SeparationGateAndRebipartitionRecoverBlobsTheReferenceMisses) {
  ExpectRulesRecoverDraws({1u, 4u, 6u, 9u, 14u}, PlaygroundOptions(), AddedRules());
}

// Draws on which an early split cut a blob and the fragment stayed in another blob's
// cohort under the added rules (ARI 0.60-0.84); with the median reward centre and the gate on the
// first split as well, the fragment is pushed out and the four blobs are found (bench/fl.sh's
// "robust" rules; they do not fix every draw: docs/results/fl.md).
TEST(BlobDiscovery, MedianRewardsRecoverDrawsWithAFragmentLeftByAnEarlySplit) {
  ExpectRulesRecoverDraws({25u, 42u, 104u}, AddedRules(), RobustRules());
}

// Draws the robust rules leave below ARI 0.9 (a blob cut by sides drawn from one
// round, 3 cohorts at the end: ARI 0.61-0.68); with the first sides of every cohort drawn
// over its known clients' stored signatures as well, the four blobs are found (bench/fl.sh's
// "pooled" rules; they do not fix every draw and break a few others: docs/results/fl.md).
TEST(BlobDiscovery, PooledSidesRecoverDrawsWhereOneRoundsSidesCutABlob) {
  CohortOptions pooled = RobustRules();
  pooled.pooled_sides = true;
  ExpectRulesRecoverDraws({23u, 44u, 123u}, RobustRules(), pooled);
}

// A client undecided at a split (client 4: never seen) has no train count in either half, so,
// as in the reference, its label is its current affiliation, redrawn uniformly on every
// affiliation; labelled clients keep their greedy cohort (epsilon 0).
TEST(CohortTable, UntrainedClientIsAssignedItsAffiliation) {
  CohortOptions options;
  options.split_epochs = {1};
  options.epsilon = 0.0;
  options.min_participants = 4;
  CohortTable table(5, options);
  ASSERT_EQ(table.Update(0, {0, 1, 2, 3}, {{1, 0}, {1, 0}, {-1, 0}, {-1, 0}},
                         {{1, 0}, {1, 0}, {-1, 0}, {-1, 0}}),
            1);
  EXPECT_FALSE(table.HasTrained(4));
  const int home0 = table.GreedyCohort(0);
  const std::vector<int> expected_trained = {home0, home0, 1 - home0, 1 - home0};
  bool seen[2] = {false, false};
  for (int draw = 0; draw < 40; ++draw) {
    table.AffiliateAll();
    const std::vector<int> assigned = table.Assignments();
    EXPECT_EQ(std::vector<int>(assigned.begin(), assigned.begin() + 4), expected_trained);
    EXPECT_EQ(assigned[4], table.affiliation(4));
    seen[assigned[4]] = true;
  }
  EXPECT_TRUE(seen[0] && seen[1]);
  EXPECT_EQ(table.GreedyCohort(4), 0);  // tied rewards: the greedy label would always be 0
}

}  // namespace
}  // namespace jigsaw
