// Synchronous-SGD aggregation: averaging over all workers, the SGD and momentum update, and the
// misuse the server must reject.
#include "ps/aggregator.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace jigsaw::ps {
namespace {

TEST(SyncSgdAggregator, AveragesOverAllWorkersThenSteps) {
  SyncSgdAggregator aggregator(3, 0.5f, 0.0f);
  aggregator.SetParameters({1.0f, 2.0f});
  EXPECT_FALSE(aggregator.Push(0, 0, {3.0f, 0.0f}));
  EXPECT_FALSE(aggregator.Push(2, 0, {0.0f, 6.0f}));
  EXPECT_EQ(aggregator.version(), 0u);  // not until the last worker pushed
  EXPECT_EQ(aggregator.parameters()[0], 1.0f);
  EXPECT_TRUE(aggregator.Push(1, 0, {6.0f, 3.0f}));
  EXPECT_EQ(aggregator.version(), 1u);
  // mean gradient (3, 3); p -= 0.5 * g
  EXPECT_FLOAT_EQ(aggregator.parameters()[0], -0.5f);
  EXPECT_FLOAT_EQ(aggregator.parameters()[1], 0.5f);
  // the next step starts from a clean sum
  EXPECT_FALSE(aggregator.Push(0, 1, {1.0f, 1.0f}));
  EXPECT_FALSE(aggregator.Push(1, 1, {1.0f, 1.0f}));
  EXPECT_TRUE(aggregator.Push(2, 1, {1.0f, 1.0f}));
  EXPECT_FLOAT_EQ(aggregator.parameters()[0], -1.0f);
  EXPECT_EQ(aggregator.version(), 2u);
}

TEST(SyncSgdAggregator, Momentum) {
  SyncSgdAggregator aggregator(1, 0.1f, 0.9f);
  aggregator.SetParameters({0.0f});
  aggregator.Push(0, 0, {1.0f});  // v = 1, p = -0.1
  aggregator.Push(0, 1, {1.0f});  // v = 1.9, p = -0.29
  EXPECT_NEAR(aggregator.parameters()[0], -0.29f, 1e-6);
}

TEST(SyncSgdAggregator, RejectsMisuse) {
  SyncSgdAggregator aggregator(2, 0.1f, 0.0f);
  EXPECT_THROW(aggregator.Push(0, 0, {1.0f}), std::invalid_argument);  // not initialized
  aggregator.SetParameters({0.0f, 0.0f});
  EXPECT_THROW(aggregator.Push(0, 0, {1.0f}), std::invalid_argument);        // wrong length
  EXPECT_THROW(aggregator.Push(2, 0, {1.0f, 1.0f}), std::invalid_argument);  // rank
  EXPECT_THROW(aggregator.Push(0, 1, {1.0f, 1.0f}), std::invalid_argument);  // runs ahead
  aggregator.Push(0, 0, {1.0f, 1.0f});
  try {
    aggregator.Push(0, 0, {1.0f, 1.0f});
    FAIL() << "a second push was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("twice"), std::string::npos);
  }
  EXPECT_THROW(SyncSgdAggregator(0, 0.1f, 0.0f), std::invalid_argument);
}

}  // namespace
}  // namespace jigsaw::ps
