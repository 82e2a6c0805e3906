#include "fl/partition.h"

#include <gtest/gtest.h>

#include <set>

#include "fl/population.h"

namespace jigsaw {
namespace {

TEST(Partition, DirichletAssignsEverySampleOnceAndSkewsLabels) {
  std::vector<int> labels;
  for (int i = 0; i < 5000; ++i) labels.push_back(i % 10);
  const auto parts = DirichletPartition(labels, 10, 20, 0.1, 3);
  std::multiset<int> seen;
  for (const auto& part : parts) seen.insert(part.begin(), part.end());
  EXPECT_EQ(seen.size(), labels.size());
  EXPECT_EQ(std::set<int>(seen.begin(), seen.end()).size(), labels.size());
  // With alpha = 0.1 a typical client is dominated by few classes.
  int dominated = 0;
  for (const auto& part : parts) {
    std::vector<int> count(10, 0);
    for (int i : part) ++count[labels[i]];
    const int top = *std::max_element(count.begin(), count.end());
    if (!part.empty() && top >= 0.5 * part.size()) ++dominated;
  }
  EXPECT_GE(dominated, 10);
}

TEST(Partition, DirichletMeanShareIsUniform) {
  Rng rng(5);
  std::vector<double> sum(4, 0.0);
  for (int i = 0; i < 4000; ++i) {
    const auto d = SampleDirichlet(4, 0.5, rng);
    for (int k = 0; k < 4; ++k) sum[k] += d[k];
  }
  for (double s : sum) EXPECT_NEAR(s / 4000, 0.25, 0.02);
}

TEST(Partition, PermutationGroupsRelabelPerGroup) {
  std::vector<int> train, test;
  for (int i = 0; i < 1000; ++i) train.push_back(i % 10);
  for (int i = 0; i < 200; ++i) test.push_back(i % 10);
  const GroupedClients g = PermutationGroups(train, test, 10, 8, 4, 50, 10, 9);
  ASSERT_EQ(g.group.size(), 8u);
  EXPECT_EQ(g.group[5], 1);
  for (int y = 0; y < 10; ++y) EXPECT_EQ(g.permutation[0][y], y);
  for (int a = 0; a < 4; ++a) {
    EXPECT_EQ(std::set<int>(g.permutation[a].begin(), g.permutation[a].end()).size(), 10u);
    for (int b = 0; b < a; ++b) EXPECT_NE(g.permutation[a], g.permutation[b]);
  }
  for (int c = 0; c < 8; ++c) {
    ASSERT_EQ(g.train_index[c].size(), 50u);
    for (size_t s = 0; s < 50; ++s) {
      EXPECT_EQ(g.train_label[c][s], g.permutation[g.group[c]][train[g.train_index[c][s]]]);
    }
  }
}

TEST(Population, OvercommitDropsTheSlowest) {
  PopulationOptions options;
  options.overcommit = 1.5;
  ClientPopulation population(100, options, 4);
  std::vector<int> candidates;
  std::vector<double> work;
  for (int c = 0; c < 100; ++c) {
    candidates.push_back(c);
    work.push_back(1.0);
  }
  const Selection s = population.Select(candidates, work, 10);
  EXPECT_EQ(s.kept.size(), 10u);
  EXPECT_EQ(s.dropped.size(), 5u);
  // Every kept client's finish time is at most the round time; every dropped one's at least
  // (jitter is within [0.8, 1.2] so compare the speeds with that slack).
  double slowest_kept = 1e9;
  for (int c : s.kept) slowest_kept = std::min(slowest_kept, population.speed(c));
  for (int c : s.dropped) EXPECT_LE(population.speed(c), slowest_kept * 1.2 / 0.8);
  EXPECT_GT(s.round_time, 0.0);
}

TEST(Population, AvailabilityMatchesItsStationaryShare) {
  PopulationOptions options;
  options.availability = 0.3;
  options.session_rounds = 5;
  ClientPopulation population(2000, options, 6);
  double online = 0;
  for (int round = 0; round < 50; ++round) {
    population.Advance();
    online += population.Online().size();
  }
  EXPECT_NEAR(online / 50 / 2000, 0.3, 0.03);
}

}  // namespace
}  // namespace jigsaw
