// Product-graph routing against an independent reference: the shortest compliant walk found by
// layered reachability over walk lengths (no product graph, no BFS queue), checked with
// PathCompliant, on random small graphs with random policies and failures.
#include "d2r/routing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/error.h"
#include "test_graphs.h"

namespace jigsaw::d2r {
namespace {

// Reference: the shortest compliant walk by layered reachability over (node, number of waypoints
// visited in order), one layer per walk length, reconstructed and checked with PathCompliant.
// Returns the walk, empty when none of length <= max_length exists.
std::vector<int> ReferenceShortest(const Topology& t, const std::vector<int>& waypoints,
                                   const std::vector<bool>& avoid_node,
                                   const std::vector<bool>& avoid_link,
                                   const std::vector<bool>& dead, int src, int dst,
                                   int max_length) {
  const int n = t.num_nodes(), k = static_cast<int>(waypoints.size());
  auto progress = [&](int p, int v) { return p < k && waypoints[p] == v ? p + 1 : p; };
  if (avoid_node[src] || avoid_node[dst]) return {};
  // layers[L][v][p] = predecessor (node * (k+1) + progress) on a walk of length L, -2 unreached.
  std::vector<std::vector<int>> layers;
  std::vector<int> first(n * (k + 1), -2);
  first[src * (k + 1) + progress(0, src)] = -1;
  layers.push_back(first);
  for (int length = 1; length <= max_length; ++length) {
    std::vector<int> next(n * (k + 1), -2);
    const std::vector<int>& previous = layers.back();
    for (int u = 0; u < n; ++u) {
      for (int p = 0; p <= k; ++p) {
        if (previous[u * (k + 1) + p] == -2) continue;
        for (const Adjacent& adjacent : t.adjacency[u]) {
          const int v = adjacent.node;
          if (dead[adjacent.link] || avoid_link[adjacent.link] || avoid_node[v]) continue;
          const int state = v * (k + 1) + progress(p, v);
          if (next[state] == -2) next[state] = u * (k + 1) + p;
        }
      }
    }
    layers.push_back(next);
    if (next[dst * (k + 1) + k] != -2) {
      std::vector<int> walk;
      int state = dst * (k + 1) + k;
      for (int l = length; l >= 0; --l) {
        walk.insert(walk.begin(), state / (k + 1));
        state = layers[l][state];
      }
      return walk;
    }
  }
  return {};
}

struct Case {
  Topology topology;
  std::string policy;
  std::vector<int> failed;
};

Case RandomCase(Rng* rng) {
  Case c;
  const int n = 4 + static_cast<int>(rng->UniformInt(4));
  c.topology = RandomGraph(n, 0.3, rng);
  std::vector<std::string> terms;
  const int waypoints = static_cast<int>(rng->UniformInt(3));
  std::vector<int> used;
  if (waypoints > 0) {
    std::string term = "waypoint:";
    for (int i = 0; i < waypoints; ++i) {
      int w = static_cast<int>(rng->UniformInt(n));
      used.push_back(w);
      if (i > 0) term += ',';
      term += c.topology.nodes[w].id;
    }
    terms.push_back(term);
  }
  if (rng->Uniform() < 0.5) {
    int x = static_cast<int>(rng->UniformInt(n));
    if (std::find(used.begin(), used.end(), x) == used.end()) {
      terms.push_back("avoid:node:" + c.topology.nodes[x].id);
    }
  }
  if (rng->Uniform() < 0.3) {
    const Link& link = c.topology.links[rng->UniformInt(c.topology.links.size())];
    terms.push_back("avoid:link:" + c.topology.nodes[link.a].id + "-" +
                    c.topology.nodes[link.b].id);
  }
  if (rng->Uniform() < 0.3) terms.push_back("stretch:2");
  for (const std::string& term : terms) {
    if (!c.policy.empty()) c.policy += '+';
    c.policy += term;
  }
  if (c.policy.empty()) c.policy = "shortest";
  const int failures = static_cast<int>(rng->UniformInt(3));
  for (int i = 0; i < failures; ++i) {
    c.failed.push_back(static_cast<int>(rng->UniformInt(c.topology.links.size())));
  }
  return c;
}

TEST(Routing, ShortestCompliantPathMatchesWalkEnumeration) {
  Rng rng(7);
  int compared = 0, unreachable = 0;
  for (int trial = 0; trial < 150; ++trial) {
    Case c = RandomCase(&rng);
    SCOPED_TRACE("trial " + std::to_string(trial) + " policy " + c.policy);
    const Topology& t = c.topology;
    Policy policy = Policy::Parse(c.policy, t, 1);
    Policy plain_policy(t);
    Router router(t, policy), plain(t, plain_policy);
    const int set = router.Intern(c.failed);
    std::vector<bool> dead(t.links.size(), false);
    for (int l : c.failed) dead[l] = true;
    std::vector<bool> avoid_node(t.nodes.size()), avoid_link(t.links.size());
    for (int x = 0; x < t.num_nodes(); ++x) avoid_node[x] = !policy.NodeAllowed(x);
    for (int l = 0; l < t.num_links(); ++l) avoid_link[l] = !policy.LinkAllowed(l);
    for (int src = 0; src < t.num_nodes(); ++src) {
      for (int dst = 0; dst < t.num_nodes(); ++dst) {
        if (src == dst) continue;
        const int budget = policy.HopBudget(plain.Distance(0, src, 0, dst));
        const std::vector<int> walk = ReferenceShortest(
            t, policy.waypoints(), avoid_node, avoid_link, dead, src, dst, 4 * t.num_nodes());
        const int reference = walk.empty() || static_cast<int>(walk.size()) - 1 > budget
                                  ? -1
                                  : static_cast<int>(walk.size()) - 1;
        if (reference >= 0) {
          EXPECT_TRUE(PathCompliant(policy, t, walk, budget));
        }
        const int32_t distance = policy.NodeAllowed(src)
                                     ? router.Distance(set, src, policy.Start(src), dst)
                                     : kUnreachable;
        const bool within_budget = distance != kUnreachable && distance <= budget;
        if (reference < 0) {
          EXPECT_FALSE(within_budget) << src << "->" << dst;
          ++unreachable;
          continue;
        }
        ASSERT_TRUE(within_budget) << src << "->" << dst;
        EXPECT_EQ(distance, reference) << src << "->" << dst;
        std::vector<int> path = router.Path(set, src, dst);
        ASSERT_EQ(static_cast<int>(path.size()) - 1, reference);
        EXPECT_TRUE(PathCompliant(policy, t, path, budget));
        for (size_t i = 1; i < path.size(); ++i) {
          EXPECT_FALSE(dead[t.FindLink(path[i - 1], path[i])]);
        }
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 1000);
  EXPECT_GT(unreachable, 50);  // the cases include "no compliant path"
}

// The data-plane BFS (neighbours scanned in index order) gives every destination the same first
// hop as the routing rule, so D2R and the baselines agree on routes.
TEST(Routing, BreadthFirstTreeFirstHopIsTheRoutingRule) {
  Rng rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    Case c = RandomCase(&rng);
    const Topology& t = c.topology;
    Policy policy = Policy::Parse(c.policy, t, 1);
    Router router(t, policy);
    const int set = router.Intern(c.failed);
    const int q_count = router.Q();
    for (int x = 0; x < t.num_nodes(); ++x) {
      for (int q = 0; q < q_count; ++q) {
        const ForwardTree& tree = router.Tree(set, x, q);
        for (int dst = 0; dst < t.num_nodes(); ++dst) {
          const int target = dst * q_count + policy.accepting();
          const int next = router.NextHop(set, x, q, dst);
          if (target == x * q_count + q) continue;
          if (tree.dist[target] == kUnreachable) {
            EXPECT_EQ(next, -1);
            continue;
          }
          EXPECT_EQ(tree.dist[target], router.Distance(set, x, q, dst));
          int p = target;
          while (tree.parent[p] != x * q_count + q) p = tree.parent[p];
          EXPECT_EQ(p / q_count, next) << "trial " << trial << " x " << x << " dst " << dst;
        }
        EXPECT_EQ(router.Scanned(set, x, q), tree.scanned);
        // The level-by-level BFS reads the same entries and discovers each node at distance d
        // while expanding level d - 1.
        std::vector<int> all(t.num_nodes() * q_count);
        for (size_t p = 0; p < all.size(); ++p) all[p] = static_cast<int>(p);
        const LevelProfile levels = router.Levels(set, x, q, all);
        int64_t read = 0;
        for (int64_t entries : levels.entries) read += entries;
        EXPECT_EQ(read, tree.scanned);
        for (size_t p = 0; p < all.size(); ++p) {
          const int32_t expected = tree.dist[p] == kUnreachable ? -2 : tree.dist[p] - 1;
          EXPECT_EQ(levels.target_level[p], expected);
          if (expected >= 0) {
            EXPECT_GE(levels.target_rank[p], 1);
            EXPECT_LE(levels.target_rank[p], levels.entries[expected]);
          }
        }
      }
    }
  }
}

// Two properties of the breadth-first tree that D2R's hold test and rollback rely on, for a failure
// set S and S' = S plus one more link f, over random graphs and policies:
//  * a destination whose path in tree(S) avoids f has the same path in tree(S'): the labels of an
//    older tree answer "is the route intact" exactly for it;
//  * the levels a level-by-level BFS for S expands before the first one that discovers a node
//    across f are those of the BFS for S' (same entries read, same nodes found at the same rank),
//    and so is the frontier of that level: a BFS that learns of f after crossing it may roll back
//    to that level instead of restarting.
TEST(Routing, OneMoreFailureLeavesUntouchedPathsAndEarlierLevelsAlone) {
  Rng rng(23);
  int kept = 0, rolled = 0;
  for (int trial = 0; trial < 60; ++trial) {
    Case c = RandomCase(&rng);
    const Topology& t = c.topology;
    Policy policy = Policy::Parse(c.policy, t, 1);
    Router router(t, policy);
    const int f = static_cast<int>(rng.UniformInt(t.links.size()));
    std::vector<int> more = c.failed;
    more.push_back(f);
    const int s = router.Intern(c.failed), s2 = router.Intern(more);
    const int q_count = router.Q();
    std::vector<int> all(t.num_nodes() * q_count);
    for (size_t p = 0; p < all.size(); ++p) all[p] = static_cast<int>(p);
    for (int x = 0; x < t.num_nodes(); ++x) {
      for (int q = 0; q < q_count; ++q) {
        const ForwardTree& tree = router.Tree(s, x, q);
        const ForwardTree& tree2 = router.Tree(s2, x, q);
        int crossing = INT32_MAX;  // first level that discovers a node across f
        for (int p = 0; p < static_cast<int>(all.size()); ++p) {
          bool crosses = false;
          for (int a = p; tree.parent[a] >= 0; a = tree.parent[a]) {
            crosses = crosses || t.FindLink(tree.parent[a] / q_count, a / q_count) == f;
          }
          if (tree.parent[p] >= 0 && t.FindLink(tree.parent[p] / q_count, p / q_count) == f) {
            crossing = std::min(crossing, tree.dist[p] - 1);
          }
          if (crosses || tree.dist[p] == kUnreachable) continue;
          for (int a = p; a >= 0; a = tree.parent[a]) {
            ASSERT_EQ(tree2.parent[a], tree.parent[a]) << "trial " << trial;
          }
          ++kept;
        }
        if (crossing == INT32_MAX) continue;
        const LevelProfile levels = router.Levels(s, x, q, all);
        const LevelProfile levels2 = router.Levels(s2, x, q, all);
        for (int l = 0; l <= crossing; ++l) {
          EXPECT_EQ(levels.entries[l], levels2.entries[l]) << "trial " << trial;
          EXPECT_EQ(levels.frontier[l], levels2.frontier[l]) << "trial " << trial;
        }
        for (size_t p = 0; p < all.size(); ++p) {
          if (levels.target_level[p] < -1 || levels.target_level[p] >= crossing) continue;
          EXPECT_EQ(levels2.target_level[p], levels.target_level[p]) << "trial " << trial;
          EXPECT_EQ(levels2.target_rank[p], levels.target_rank[p]) << "trial " << trial;
        }
        ++rolled;
      }
    }
  }
  EXPECT_GT(kept, 1000);
  EXPECT_GT(rolled, 100);
}

TEST(Routing, NoCompliantPathIsReportedAsSuch) {
  // 0 - 1 - 2 - 3: avoiding 1 cuts 0 off; a waypoint that is avoided is rejected.
  Topology t = MakeGraph(4, {{0, 1}, {1, 2}, {2, 3}});
  Policy policy = Policy::Parse("avoid:node:N1", t, 1);
  Router router(t, policy);
  EXPECT_EQ(router.Distance(0, 0, policy.Start(0), 3), kUnreachable);
  EXPECT_TRUE(router.Path(0, 0, 3).empty());
  EXPECT_EQ(router.NextHop(0, 0, policy.Start(0), 3), -1);
  EXPECT_EQ(router.Path(0, 2, 3), (std::vector<int>{2, 3}));
  // A failure that leaves no path.
  Policy none(t);
  Router plain(t, none);
  const int set = plain.Intern({t.FindLink(2, 3)});
  EXPECT_EQ(plain.Distance(set, 0, 0, 3), kUnreachable);
  EXPECT_EQ(plain.Distance(set, 0, 0, 2), 2);
  EXPECT_THROW(Policy::Parse("waypoint:N1+avoid:node:N1", t, 1), UsageError);
}

TEST(Routing, WaypointPathsMayRevisitTheDestination) {
  // Star-ish: 0 - 1 - 2, waypoint 2, destination 1: the packet passes 1, visits 2, comes back.
  Topology t = MakeGraph(3, {{0, 1}, {1, 2}});
  Policy policy = Policy::Parse("waypoint:N2", t, 1);
  Router router(t, policy);
  EXPECT_EQ(router.Path(0, 0, 1), (std::vector<int>{0, 1, 2, 1}));
  EXPECT_TRUE(PathCompliant(policy, t, {0, 1, 2, 1}, 100));
  EXPECT_FALSE(PathCompliant(policy, t, {0, 1}, 100));
}

}  // namespace
}  // namespace jigsaw::d2r
