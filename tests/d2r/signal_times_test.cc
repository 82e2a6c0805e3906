#include "d2r/signal_times.h"

#include <gtest/gtest.h>

#include <vector>

#include "test_graphs.h"

namespace jigsaw::d2r {
namespace {

constexpr net::Time kDelay = 100 * net::kMicrosecond;

// A square 0-1-2-3-0 with a tail 2-4: two equal routes from 0 to 2.
Topology Square() { return MakeGraph(5, {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {2, 4}}, kDelay); }

TEST(SignalTimes, HopsCostTheirDelayPlusThePerHopTime) {
  const Topology t = Square();
  const net::Time hop = 5 * net::kMicrosecond;
  const std::vector<net::Time> at = SignalTimes(t, {0}, 7, hop);
  EXPECT_EQ(at[0], 7);
  EXPECT_EQ(at[1], 7 + hop + kDelay);
  EXPECT_EQ(at[3], 7 + hop + kDelay);
  EXPECT_EQ(at[2], 7 + 2 * (hop + kDelay));
  EXPECT_EQ(at[4], 7 + 3 * (hop + kDelay));
}

TEST(SignalTimes, SeveralSourcesTakeTheNearest) {
  const Topology t = Square();
  const std::vector<net::Time> at = SignalTimes(t, {0, 4}, 0, 0);
  EXPECT_EQ(at[2], kDelay);
  EXPECT_EQ(at[1], kDelay);
  EXPECT_EQ(at[3], kDelay);
}

TEST(SignalTimes, FailedLinksAndNodesAreNotCrossed) {
  const Topology t = Square();
  std::vector<bool> link_failed(t.links.size(), false);
  std::vector<bool> node_failed(t.nodes.size(), false);
  link_failed[t.FindLink(0, 1)] = true;
  std::vector<net::Time> at = SignalTimes(t, {0}, 0, 0, &link_failed, &node_failed);
  EXPECT_EQ(at[1], 3 * kDelay);  // 0-3-2-1
  node_failed[2] = true;
  at = SignalTimes(t, {0}, 0, 0, &link_failed, &node_failed);
  EXPECT_EQ(at[1], net::kNever);
  EXPECT_EQ(at[2], net::kNever);
  EXPECT_EQ(at[4], net::kNever);
  EXPECT_EQ(at[3], kDelay);
}

}  // namespace
}  // namespace jigsaw::d2r
