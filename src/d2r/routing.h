// Shortest policy-compliant routing on the product graph (switch x automaton state), with a set of
// failed links.
//
// Product node p = x * Q + q (Q = policy.num_states()). Edge (x,q) -> (y, Step(q,y)) exists when
// the link x-y is alive and allowed and x, y are allowed nodes. A packet for destination d is
// delivered at (d, accepting); every other product node is transit.
//
// Routing rule shared by every scheme: from (x,q) towards d, the next hop is the lowest-index
// neighbour y with dist(y, Step(q,y)) = dist(x,q) - 1 (distances in hops). A breadth-first search
// from (x,q) that scans neighbours in index order gives every destination exactly this first hop
// (tests check the equivalence), which is why the data-plane BFS of D2R and the control-plane SPF
// of the baselines agree on routes.
//
// Link sets are interned (id 0 = no failure); tables are cached per (set, destination).
// ForgetFailures() drops everything but the failure-free tables between scenarios.
#ifndef JIGSAW_D2R_ROUTING_H_
#define JIGSAW_D2R_ROUTING_H_

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "d2r/policy.h"
#include "d2r/topology.h"

namespace jigsaw::d2r {

inline constexpr int32_t kUnreachable = INT32_MAX;

// A breadth-first search from one product node, level by level (the level-parallel data-plane
// BFS of D2R): entries[l] = adjacency entries read while expanding the product nodes at distance
// l; per target, the level whose expansion discovers it (-1: the root itself, -2: never) and the
// entries of that level read up to and including the discovering one; frontier[l] = product nodes
// expanded in level l.
struct LevelProfile {
  std::vector<int64_t> entries;
  std::vector<int64_t> frontier;
  std::vector<int32_t> target_level;
  std::vector<int64_t> target_rank;
};

// A breadth-first tree over the product graph rooted at one product node.
struct ForwardTree {
  std::vector<int32_t> parent;  // product node -> parent product node (-1: root or unreached)
  std::vector<int32_t> dist;    // hops from the root (kUnreachable if unreached)
  int64_t reached = 0;          // product nodes reached
  int64_t scanned = 0;          // adjacency entries read (one per neighbour of each reached node)
};

class Router {
 public:
  Router(const Topology& topology, const Policy& policy);

  const Topology& topology() const { return topology_; }
  const Policy& policy() const { return policy_; }
  int Q() const { return q_; }

  // Interns a set of failed links (any order, duplicates ignored); the empty set is id 0.
  int Intern(std::vector<int> links);
  const std::vector<int>& Links(int set) const { return sets_[set].links; }
  bool Dead(int set, int link) const { return sets_[set].dead[link]; }
  // Drops every set but the empty one and all tables and trees that depend on them.
  void ForgetFailures();

  // Hop distances from every product node to delivery at `dst` (kUnreachable when none).
  const std::vector<int32_t>& DistancesTo(int set, int dst);
  int32_t Distance(int set, int x, int q, int dst) { return DistancesTo(set, dst)[x * q_ + q]; }
  // The routing rule above for every product node (-1: unreachable or delivered), cached.
  const std::vector<int32_t>& NextHops(int set, int dst);
  // The routing rule above; -1 when (x,q) cannot reach dst or x == dst in the accepting state.
  int NextHop(int set, int x, int q, int dst) { return NextHops(set, dst)[x * q_ + q]; }
  // Whether the failure-free route of some product node towards dst uses one of `links`.
  bool RoutesUse(int dst, const std::vector<int>& links);
  // Follows NextHop from `src` to delivery; empty when unreachable.
  std::vector<int> Path(int set, int src, int dst);

  // BFS tree from (x,q) (cached per set and root).
  const ForwardTree& Tree(int set, int x, int q);
  // Tree(set, x, q).scanned without building the tree when the policy has one automaton state
  // (the BFS then reaches x's component of allowed nodes and links).
  int64_t Scanned(int set, int x, int q);
  // For each of `targets` (product nodes): the adjacency entries the BFS from (x,q) has read when
  // it discovers it (0 for the root itself), or -1 when it never does.
  std::vector<int64_t> DiscoveryScans(int set, int x, int q, const std::vector<int>& targets);
  // The same BFS from (x,q) as LevelProfile; scans neighbours in the same order, so the tree (and
  // each destination's first hop) is the one Tree() builds.
  LevelProfile Levels(int set, int x, int q, const std::vector<int>& targets);

 private:
  struct LinkSet {
    std::vector<int> links;
    std::vector<bool> dead;
    std::vector<std::unique_ptr<std::vector<int32_t>>> to;    // per destination, lazily
    std::vector<std::unique_ptr<std::vector<int32_t>>> next;  // per destination, lazily
    std::map<int, std::unique_ptr<ForwardTree>> trees;        // per root product node
    std::vector<int> component;                               // single-state policies, lazily
    std::vector<int64_t> component_scanned;
  };

  const Topology& topology_;
  const Policy& policy_;
  int q_;
  std::vector<LinkSet> sets_;
};

}  // namespace jigsaw::d2r

#endif  // JIGSAW_D2R_ROUTING_H_
