#include "paramsvc/elasticity.h"

#include <gtest/gtest.h>

namespace jigsaw::paramsvc {
namespace {

using Kind = ElasticityDecision::Kind;

// Feeds a scripted utilization series and returns the decisions (the pool follows them).
std::vector<std::pair<int, Kind>> Replay(const std::vector<double>& load, int pool,
                                         const ElasticityOptions& options) {
  ElasticityController controller(options);
  std::vector<std::pair<int, Kind>> decisions;
  for (size_t i = 0; i < load.size(); ++i) {
    const ElasticityDecision d = controller.Observe(load[i] / pool, pool);
    EXPECT_FALSE(d.reason.empty());
    if (d.kind == ElasticityDecision::kAdd) ++pool;
    if (d.kind == ElasticityDecision::kRemove) --pool;
    if (d.kind != ElasticityDecision::kKeep) decisions.push_back({static_cast<int>(i), d.kind});
  }
  return decisions;
}

TEST(Elasticity, HysteresisOnAScriptedLoad) {
  ElasticityOptions options;
  options.high = 0.8;
  options.low = 0.3;
  options.sustain = 3;
  options.min_aggregators = 1;
  options.max_aggregators = 4;
  // Cores in use over time: a burst to 1.9 cores, a plateau, a drop to 0.2.
  const std::vector<double> load = {0.5, 0.9, 0.95, 0.9,  // one pool: 0.9 > 0.8 three times
                                    1.9, 1.9, 1.9,  1.9,  // two: 0.95 three times -> three
                                    1.9, 1.9, 1.9,  1.9,  // three: 0.63 stays
                                    0.2, 0.2, 0.2,  0.2, 0.2, 0.2, 0.2, 0.2, 0.2};
  const auto decisions = Replay(load, 1, options);
  ASSERT_EQ(decisions.size(), 4u);
  EXPECT_EQ(decisions[0], std::make_pair(3, ElasticityDecision::kAdd));
  EXPECT_EQ(decisions[1], std::make_pair(6, ElasticityDecision::kAdd));
  EXPECT_EQ(decisions[2], std::make_pair(14, ElasticityDecision::kRemove));  // 0.07 x3
  EXPECT_EQ(decisions[3], std::make_pair(17, ElasticityDecision::kRemove));  // 0.1 x3
  // Then one aggregator at 0.2: the minimum, no further removal.
}

TEST(Elasticity, NoFlappingAroundOneMark) {
  ElasticityOptions options;
  options.sustain = 2;
  // Alternating just above and just below the high mark never sustains.
  std::vector<double> load;
  for (int i = 0; i < 40; ++i) load.push_back(i % 2 ? 0.85 : 0.75);
  EXPECT_TRUE(Replay(load, 1, options).empty());
}

TEST(Elasticity, RemovalThatWouldCrossTheHighMarkIsRefused) {
  ElasticityOptions options;
  options.high = 0.5;
  options.low = 0.3;
  options.sustain = 1;
  ElasticityController controller(options);
  // Two aggregators at 0.29 each: one alone would run at 0.58 > 0.5.
  const ElasticityDecision d = controller.Observe(0.29, 2);
  EXPECT_EQ(d.kind, ElasticityDecision::kKeep);
  EXPECT_NE(d.reason.find("above the high mark"), std::string::npos);
}

TEST(Elasticity, BoundsAndBadMarks) {
  ElasticityOptions options;
  options.sustain = 1;
  options.max_aggregators = 2;
  ElasticityController controller(options);
  EXPECT_EQ(controller.Observe(0.95, 2).kind, ElasticityDecision::kKeep);  // at the maximum
  options.low = 0.9;
  EXPECT_THROW(ElasticityController{options}, std::invalid_argument);
}

}  // namespace
}  // namespace jigsaw::paramsvc
