// The three baselines D2R is compared with. All route by the same rule (routing.h) once they have
// reacted; they differ in when each switch's table changes and, for LFA, in what it does before.
//
// ControllerScheme: a central SDN controller per connected component, at the node minimising the
// largest control latency (shortest-delay path, switch latency per hop) to its switches. The
// control channel is in band by default (Timing::in_band_control: over the links and switches
// that survive the failures, like D2R's notices; a switch cut off from its controller keeps its
// old rules), or an out-of-band network along the failure-free shortest-delay paths that the
// failures do not touch. Each detector notifies it; from the
// first notice of a failure the controller recomputes all routes (Timing::controller_compute),
// then sends every switch its changed rules, which the switch installs one after the other
// (Timing::rule_install each). Failures learnt during a computation start another round when it
// ends. Policy-aware: it installs the product-graph routes.
//
// LinkStateScheme: a link-state IGP. Each detector originates an LSA after
// Timing::lsa_generation; routers re-flood it after Timing::flood_per_hop (plus the link delay).
// A router runs SPF Timing::spf_delay after the first LSA it has not yet used (later LSAs that
// arrive before the run are included; ones that arrive after wait for the next run, which starts no
// earlier than the end of the previous FIB update), SPF takes spf_base + spf_per_node x nodes, then
// changed FIB entries are written serially (Timing::fib_per_entry). Generous to the baseline: its
// SPF is policy-aware (a constrained SPF on the product graph), so its final routes comply.
//
// LfaScheme: loop-free alternates (RFC 5286) precomputed on the IGP metric (unconstrained hop
// counts, failure-free graph), on top of the link-state IGP. When a switch's route points at a
// port it has seen fail, from detection + Timing::lfa_switchover it forwards to the backup next
// hop for that destination: a neighbour n != primary p with D(n,d) < D(n,x) + D(x,d),
// node-protecting ones (D(n,d) < D(n,p) + D(p,d)) preferred, then the nearest, then the lowest
// index. Without an LFA the packets are lost until the IGP converges. LFAs ignore the policy and
// the other failures, so they may violate the policy, loop (dropped by TTL) or hit a second
// failure. A packet an LFA sent into a node the policy avoids follows that node's unconstrained IGP
// routes.
#ifndef JIGSAW_D2R_BASELINES_H_
#define JIGSAW_D2R_BASELINES_H_

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "d2r/install_plan.h"
#include "d2r/scheme.h"

namespace jigsaw::d2r {

// Where the controller of each component sits and how far each switch is from it.
struct ControlPlacement {
  std::vector<int> controller;     // per component
  std::vector<net::Time> latency;  // per switch, one way to its component's controller
};
ControlPlacement PlaceControllers(const Topology& topology, const Timing& timing);

class ControllerScheme : public Scheme {
 public:
  ControllerScheme(ScenarioContext& context, const ControlPlacement& placement);

  const char* name() const override { return "controller"; }
  Decision Decide(int x, const Packet& packet, net::Time t, net::Time* next_change) override;
  net::Time LastChange() const override { return plan_.last_write(); }
  Json Totals() const override;
  Json PerSwitch() const override;

 private:
  ScenarioContext& context_;
  const ControlPlacement& placement_;
  std::vector<net::Time> latency_;  // per switch in this scenario (kNever: cut off in band)
  InstallPlan plan_;
  int computations_ = 0;
};

class LinkStateScheme : public Scheme {
 public:
  explicit LinkStateScheme(ScenarioContext& context);

  const char* name() const override { return "link_state"; }
  Decision Decide(int x, const Packet& packet, net::Time t, net::Time* next_change) override;
  net::Time LastChange() const override { return plan_.last_write(); }
  Json Totals() const override;
  Json PerSwitch() const override;

  // For a packet at a node the policy avoids (only an LFA sends one there): the node's
  // unconstrained IGP route, on the failures its latest SPF run knew.
  Decision PlainDecide(int x, const Packet& packet, net::Time t, net::Time* next_change);

 private:
  ScenarioContext& context_;
  InstallPlan plan_;
  std::vector<net::Time> first_lsa_;  // per router
  int64_t spf_runs_ = 0;
  int64_t lsas_processed_ = 0;
};

class LfaScheme : public Scheme {
 public:
  // Uses `igp` (which must outlive it) for everything but the local repair.
  LfaScheme(ScenarioContext& context, LinkStateScheme& igp);

  const char* name() const override { return "lfa"; }
  Decision Decide(int x, const Packet& packet, net::Time t, net::Time* next_change) override;
  net::Time LastChange() const override { return igp_.LastChange(); }
  Json Totals() const override;
  Json PerSwitch() const override;

  // The backup neighbour of x for dst when the primary p fails, or -1.
  int Backup(int x, int dst, int primary);

 private:
  ScenarioContext& context_;
  LinkStateScheme& igp_;
  std::unordered_map<int64_t, int> backups_;  // (x, dst, primary) -> backup
};

}  // namespace jigsaw::d2r

#endif  // JIGSAW_D2R_BASELINES_H_
