// Routing policies and their automaton.
//
// A policy is a conjunction of constraints on a flow's path, written as terms joined by '+':
//   shortest                 no constraint (paths are still shortest among compliant ones)
//   waypoint:A[,B..]         traverse A, then B, ... in that order
//   avoid:node:X             never traverse X (nor start or end there)
//   avoid:link:X-Y           never use the link X-Y
//   stretch:F                at most floor(F x the failure-free unconstrained shortest hop count)
// A node reference is an input node id, a label naming one node, or "random" (drawn with the
// seed; avoided nodes are drawn among non-waypoints).
//
// Waypoints compile to a deterministic automaton with states 0..k (k = number of waypoints):
// entering node y in state q moves to q+1 when y is waypoint q. A packet carries its state; it is
// delivered at its destination only in the accepting state k (a destination switch forwards a
// packet that has not yet been through its waypoints). Routing runs on the product graph
// (switch x automaton state). Avoidance prunes product nodes and edges; the stretch bound is
// checked against the hop count a packet carries.
#ifndef JIGSAW_D2R_POLICY_H_
#define JIGSAW_D2R_POLICY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "d2r/topology.h"

namespace jigsaw::d2r {

class Policy {
 public:
  // The unconstrained policy on `topology`.
  explicit Policy(const Topology& topology);

  int num_states() const { return static_cast<int>(waypoints_.size()) + 1; }
  int accepting() const { return static_cast<int>(waypoints_.size()); }
  // The state after entering node y in state q.
  int Step(int q, int y) const { return q < accepting() && waypoints_[q] == y ? q + 1 : q; }
  // The state of a packet that starts at `source`.
  int Start(int source) const { return Step(0, source); }
  bool NodeAllowed(int x) const { return !avoid_node_[x]; }
  bool LinkAllowed(int link) const { return !avoid_link_[link]; }
  // 0 when there is no stretch bound.
  double stretch() const { return stretch_; }
  // Hop budget for a flow whose failure-free unconstrained shortest path has `hops` hops
  // (INT32_MAX without a stretch bound).
  int HopBudget(int hops) const;
  bool unconstrained() const {
    return waypoints_.empty() && stretch_ == 0 && avoided_nodes_ == 0 && avoided_links_ == 0;
  }

  const std::vector<int>& waypoints() const { return waypoints_; }
  // Canonical text with resolved node names, e.g. "waypoint:Chicago+avoid:node:Denver".
  std::string Describe(const Topology& topology) const;

  // Parses the syntax above; throws UsageError naming the bad term.
  static Policy Parse(const std::string& text, const Topology& topology, uint64_t seed);

 private:
  std::vector<int> waypoints_;
  std::vector<bool> avoid_node_;
  std::vector<bool> avoid_link_;
  int avoided_nodes_ = 0;
  int avoided_links_ = 0;
  double stretch_ = 0;
};

// Walks a node sequence through the policy: true when it is a compliant path from path.front()
// to path.back() (right links, no avoided element, accepting at the end, within `hop_budget`).
bool PathCompliant(const Policy& policy, const Topology& topology, const std::vector<int>& path,
                   int hop_budget);

}  // namespace jigsaw::d2r

#endif  // JIGSAW_D2R_POLICY_H_
