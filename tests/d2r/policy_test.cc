// Policy parsing, the waypoint automaton and path compliance (violations are detected).
#include "d2r/policy.h"

#include <gtest/gtest.h>

#include <climits>
#include <string>

#include "core/error.h"
#include "test_graphs.h"

namespace jigsaw::d2r {
namespace {

// 0 - 1 - 2 - 3 - 4 in a line plus a bypass 1 - 5 - 3.
Topology Line() { return MakeGraph(6, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {1, 5}, {5, 3}}); }

std::string ErrorOf(const std::string& text) {
  Topology t = Line();
  try {
    Policy::Parse(text, t, 1);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(Policy, ParsesTermsAndDescribesThem) {
  Topology t = Line();
  Policy p = Policy::Parse("waypoint:N2,n5+avoid:node:N4+avoid:link:N1-N2+stretch:1.5", t, 1);
  EXPECT_EQ(p.num_states(), 3);
  EXPECT_EQ(p.waypoints(), (std::vector<int>{2, 5}));
  EXPECT_FALSE(p.NodeAllowed(4));
  EXPECT_TRUE(p.NodeAllowed(3));
  EXPECT_FALSE(p.LinkAllowed(t.FindLink(1, 2)));
  EXPECT_EQ(p.HopBudget(4), 6);
  EXPECT_EQ(p.HopBudget(3), 4);  // floor(4.5)
  EXPECT_EQ(p.Describe(t), "waypoint:N2,N5+avoid:node:N4+avoid:link:N1-N2+stretch:1.50");
  Policy none = Policy::Parse("shortest", t, 1);
  EXPECT_TRUE(none.unconstrained());
  EXPECT_EQ(none.HopBudget(3), INT32_MAX);
  EXPECT_EQ(none.Describe(t), "shortest");
}

TEST(Policy, AutomatonAdvancesOnlyInOrder) {
  Topology t = Line();
  Policy p = Policy::Parse("waypoint:N2,N3", t, 1);
  EXPECT_EQ(p.Start(0), 0);
  EXPECT_EQ(p.Start(2), 1);    // starting at the first waypoint counts
  EXPECT_EQ(p.Step(0, 3), 0);  // N3 before N2 does not count
  EXPECT_EQ(p.Step(0, 2), 1);
  EXPECT_EQ(p.Step(1, 3), 2);
  EXPECT_EQ(p.Step(2, 2), 2);  // accepting is absorbing
}

TEST(Policy, RandomReferencesAreSeededAndAvoidWaypoints) {
  Topology t = Line();
  Policy a = Policy::Parse("waypoint:random+avoid:node:random", t, 42);
  Policy b = Policy::Parse("waypoint:random+avoid:node:random", t, 42);
  EXPECT_EQ(a.Describe(t), b.Describe(t));
  EXPECT_TRUE(a.NodeAllowed(a.waypoints()[0]));
}

TEST(Policy, BadTermsAreUsageErrors) {
  EXPECT_EQ(ErrorOf("via:N1"),
            "--policy term 'via:N1': expected shortest, waypoint:A[,B..], avoid:node:X, "
            "avoid:link:X-Y or stretch:F");
  EXPECT_EQ(ErrorOf("waypoint:Paris"),
            "--policy term 'waypoint:Paris': no node with id or label "
            "'Paris'");
  EXPECT_EQ(ErrorOf("stretch:0.5"),
            "--policy term 'stretch:0.5': expected a stretch factor >= 1, e.g. stretch:1.5");
  EXPECT_EQ(ErrorOf("avoid:link:N0-N4"),
            "--policy term 'avoid:link:N0-N4': no link between N0 and N4");
  EXPECT_EQ(ErrorOf(""), "--policy is empty; use 'shortest' for no constraint");
  EXPECT_NE(ErrorOf("waypoint:N1+avoid:node:N1").find("is also avoided"), std::string::npos);
}

TEST(Policy, ViolationsAreDetected) {
  Topology t = Line();
  Policy p = Policy::Parse("waypoint:N2+avoid:node:N5", t, 1);
  EXPECT_TRUE(PathCompliant(p, t, {0, 1, 2, 3, 4}, INT32_MAX));
  EXPECT_FALSE(PathCompliant(p, t, {0, 1, 5, 3, 4}, INT32_MAX));  // avoided node, no waypoint
  EXPECT_TRUE(PathCompliant(p, t, {0, 1, 2, 3}, 3));              // a path to N3
  EXPECT_FALSE(PathCompliant(p, t, {0, 1, 2, 3, 4}, 3));          // over the hop budget
  EXPECT_FALSE(PathCompliant(p, t, {0, 2}, INT32_MAX));           // not a link
  Policy order = Policy::Parse("waypoint:N3,N2", t, 1);
  EXPECT_FALSE(PathCompliant(order, t, {0, 1, 2, 3, 4}, INT32_MAX));  // wrong order
  EXPECT_TRUE(PathCompliant(order, t, {0, 1, 5, 3, 2, 3, 4}, INT32_MAX));
  Policy link = Policy::Parse("avoid:link:N2-N3", t, 1);
  EXPECT_FALSE(PathCompliant(link, t, {0, 1, 2, 3, 4}, INT32_MAX));
  EXPECT_TRUE(PathCompliant(link, t, {0, 1, 5, 3, 4}, INT32_MAX));
}

}  // namespace
}  // namespace jigsaw::d2r
