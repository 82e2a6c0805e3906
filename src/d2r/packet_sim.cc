#include "d2r/packet_sim.h"

#include <algorithm>

namespace jigsaw::d2r {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }

// A set of packets with the same history so far.
struct Cohort {
  net::Time s0, s1;  // emission interval [s0, s1)
  bool fixed;        // all arrive together at `base` (after a hold)
  net::Time base;    // arrival = fixed ? base : s + base
  int node, q, hops;
  int from = -1;  // previous switch and the automaton state there
  int from_q = -1;
  bool held = false;
  bool violated = false;
  bool escapable = false;         // reached, after the failure, a switch with a compliant way out
                                  // once news of the failure could be there (Informed())
  bool escapable_early = false;   // ... only before news could be there
  bool escapable_notice = false;  // ... once an in-band notice could be there (notice_of)
  net::Time nominal = 0;          // path delay so far without holds (arrival - emission - held)
  bool diverged = false;          // left the route it had before the failure
  bool div_fixed = false;         // departure from the divergence point, like `fixed`/`base`
  net::Time div_base = 0;
};

class FlowTracer {
 public:
  FlowTracer(const Flow& flow, Scheme& scheme, ScenarioContext& context,
             const TrafficModel& traffic, std::vector<HoldRecord>* holds)
      : flow_(flow),
        scheme_(scheme),
        context_(context),
        topology_(*context.topology),
        policy_(context.router->policy()),
        traffic_(traffic),
        holds_(holds) {}

  FlowOutcome Run() {
    outcome_.emitted = Count(traffic_.begin, traffic_.end);
    Cohort start{traffic_.begin, traffic_.end, false, 0, flow_.src, policy_.Start(flow_.src), 0};
    stack_.push_back(start);
    while (!stack_.empty()) {
      Cohort c = stack_.back();
      stack_.pop_back();
      Visit(c);
    }
    return outcome_;
  }

 private:
  int64_t Count(net::Time from, net::Time to) const {
    return CountEmissions(flow_.phase, traffic_.period, from, to);
  }
  net::Time LastEmission(net::Time to) const {
    return flow_.phase + (CeilDiv(to - flow_.phase, traffic_.period) - 1) * traffic_.period;
  }
  net::Time FirstEmission(net::Time from) const {
    return flow_.phase + CeilDiv(from - flow_.phase, traffic_.period) * traffic_.period;
  }
  static net::Time At(const Cohort& c, net::Time s) { return c.fixed ? c.base : s + c.base; }

  void Event(net::Time time, bool bounded = true) {
    outcome_.recovery = std::max(outcome_.recovery, time);
    if (bounded) outcome_.recovery_bounded = std::max(outcome_.recovery_bounded, time);
  }
  // A hold released at `until`: a disruption, and beyond the delay bound when the earliest packet
  // of the cohort has by then been held longer than Timing::delay_bound in all.
  void HoldEvent(const Cohort& c, net::Time until) {
    outcome_.recovery = std::max(outcome_.recovery, until);
    if (until - c.s0 - c.nominal > context_.timing->delay_bound) {
      outcome_.recovery_bounded = std::max(outcome_.recovery_bounded, until);
    }
  }

  // Whether a decision at x at time t could know enough to route a packet in state q around the
  // failures: news of at least one of them can be there (`arrival`: news_of or notice_of), and the
  // shortest compliant path under the failures whose news can be there (the routing rule's) avoids
  // the others too, so that x could send it that way (pinning the path in the header if need be).
  // Otherwise x cannot tell this world from one without the failures it cannot know of yet, in
  // which that path would be right.
  bool Informed(const std::vector<std::vector<net::Time>>& arrival, int x, int q, net::Time t) {
    std::vector<int> known;
    for (size_t i = 0; i < arrival.size(); ++i) {
      if (arrival[i][x] <= t) known.push_back(context_.failed_links[i]);
    }
    if (known.empty()) return false;
    if (known.size() == arrival.size()) return true;
    Router& router = *context_.router;
    const int set = router.Intern(known);
    for (int node = x, steps = 0; node != flow_.dst || q != policy_.accepting(); ++steps) {
      const int next = router.NextHop(set, node, q, flow_.dst);
      if (next < 0 || steps > topology_.num_nodes() * router.Q()) return false;
      if (context_.link_failed[topology_.FindLink(node, next)] || context_.node_failed[next]) {
        return false;
      }
      q = policy_.Step(q, next);
      node = next;
    }
    return true;
  }

  void Final(const Cohort& c, bool delivered, bool compliant) {
    if (c.s1 > final_s1_ || (c.s1 == final_s1_ && c.s0 >= final_s0_)) {
      final_s1_ = c.s1;
      final_s0_ = c.s0;
      outcome_.restored = delivered;
      outcome_.final_compliant = delivered && compliant;
      outcome_.final_hops = delivered ? c.hops : -1;
    }
  }

  // Counts `packets` lost by the scheme as stranded when they never could escape; a loss that
  // could have been avoided is a disruption at `time`.
  void SchemeLoss(const Cohort& c, int64_t packets, net::Time time) {
    if (c.escapable) {
      Event(time, c.escapable_notice);
      if (!c.escapable_notice) outcome_.lost_way_out_before_notice += packets;
    } else {
      outcome_.lost_stranded += packets;
      if (c.escapable_early) outcome_.lost_stranded_early += packets;
    }
  }

  void Visit(const Cohort& visited) {
    if (visited.s0 >= visited.s1) return;
    if (visited.node == flow_.dst && visited.q == policy_.accepting()) return Deliver(visited);
    Cohort c = visited;
    // Split at the failure time and at the times news of each failure can reach this switch (at
    // signal speed and as an in-band notice): whether a packet may escape here depends on it.
    std::vector<net::Time> edges{0};
    for (size_t i = 0; i < context_.news_of.size(); ++i) {
      edges.push_back(context_.news_of[i][c.node]);
      edges.push_back(context_.notice_of[i][c.node]);
    }
    for (net::Time edge : edges) {
      if (!c.fixed && edge != net::kNever && c.s0 + c.base < edge && c.s1 + c.base > edge) {
        Cohort later = c;
        later.s0 = edge - c.base;
        c.s1 = edge - c.base;
        stack_.push_back(later);
      }
    }
    const net::Time arrival = At(c, c.s0);
    if (!c.escapable_notice && arrival >= 0) {
      const int32_t d = context_.router->Distance(context_.failed_set, c.node, c.q, flow_.dst);
      if (d != kUnreachable && static_cast<int64_t>(c.hops) + d <= flow_.hop_budget) {
        if (Informed(context_.news_of, c.node, c.q, arrival)) {
          c.escapable = true;
          c.escapable_notice = Informed(context_.notice_of, c.node, c.q, arrival);
        } else {
          c.escapable_early = true;
        }
      }
    }
    if (c.hops >= context_.timing->ttl) {
      outcome_.lost_loop += Count(c.s0, c.s1);
      SchemeLoss(c, Count(c.s0, c.s1), At(c, c.s1));
      return Final(c, false, false);
    }
    const Packet packet{flow_.dst, c.q, c.hops, flow_.hop_budget, c.from, c.from_q};
    if (c.fixed) {
      net::Time ignored;
      return Apply(c, scheme_.Decide(c.node, packet, c.base, &ignored));
    }
    for (net::Time s = c.s0; s < c.s1;) {
      net::Time change;
      const Decision decision = scheme_.Decide(c.node, packet, s + c.base, &change);
      net::Time s_next = c.s1;
      if (change != net::kNever) s_next = std::clamp(change - c.base, s + 1, c.s1);
      Cohort piece = c;
      piece.s0 = s;
      piece.s1 = s_next;
      Apply(piece, decision);
      s = s_next;
    }
  }

  void Apply(const Cohort& c, const Decision& decision) {
    const int64_t packets = Count(c.s0, c.s1);
    switch (decision.kind) {
      case Decision::kHold: {
        if (decision.until <= At(c, c.s1 - 1)) {  // a scheme must release later than it holds
          outcome_.dropped_no_route += packets;
          SchemeLoss(c, packets, At(c, c.s1));
          return Final(c, false, false);
        }
        if (packets > 0) {
          holds_->push_back({c.node, At(c, FirstEmission(c.s0)), At(c, LastEmission(c.s1)),
                             decision.until, packets});
        }
        if (!c.held) outcome_.held += packets;
        HoldEvent(c, decision.until);
        Cohort next = c;
        next.fixed = true;
        next.base = decision.until;
        next.held = true;
        stack_.push_back(next);
        return;
      }
      case Decision::kDrop:
        SchemeLoss(c, packets, At(c, c.s1));
        if (decision.reason == DropReason::kNoCompliantContinuation) {
          outcome_.dropped_no_continuation += packets;
        } else {
          outcome_.dropped_no_route += packets;
        }
        return Final(c, false, false);
      case Decision::kForward:
        return Forward(c, decision.next);
    }
  }

  void Forward(const Cohort& c, int next) {
    const int link = topology_.FindLink(c.node, next);
    const net::Time latency = context_.timing->switch_latency;
    const net::Time hop = context_.hop_time[link];
    if (!context_.link_failed[link]) return Cross(c, next, link, hop);
    // Departure-time regions on a failed link.
    const net::Time detection = context_.timing->detection;
    // Departures before edges[0] arrive before the failure; [edges[0], 0): on the wire when it
    // failed; [0, edges[2]): forwarded by a decision taken before detection; later: blackholed.
    const net::Time edges[] = {-(hop - latency), 0, detection + latency};
    auto depart = [&](net::Time s) { return At(c, s) + latency; };
    // A piece lies in one region: classify it by its first departure, time it by its end.
    auto lose = [&](const Cohort& piece) {
      const int64_t packets = Count(piece.s0, piece.s1);
      const net::Time first = depart(piece.s0);
      const net::Time time = c.fixed ? first : depart(piece.s1);
      if (first < 0) {
        outcome_.lost_on_wire += packets;
        Event(time);
      } else if (first < edges[2]) {
        outcome_.lost_before_detection += packets;
        Event(time);
      } else {
        outcome_.lost_blackhole += packets;
        SchemeLoss(piece, packets, time);
      }
      Final(piece, false, false);
    };
    if (c.fixed) {
      const net::Time departure = depart(c.s0);
      if (departure < edges[0]) return Cross(c, next, link, hop);
      return lose(c);
    }
    // Split the emission interval at the region edges (in emission time).
    net::Time s = c.s0;
    for (int region = 0; region <= 3 && s < c.s1; ++region) {
      net::Time until = region < 3 ? std::clamp(edges[region] - c.base - latency, s, c.s1) : c.s1;
      if (until > s) {
        Cohort piece = c;
        piece.s0 = s;
        piece.s1 = until;
        if (region == 0) {
          Cross(piece, next, link, hop);
        } else {
          lose(piece);
        }
      }
      s = until;
    }
  }

  void Cross(const Cohort& c, int next, int link, net::Time hop) {
    Cohort moved = c;
    moved.from = c.node;
    moved.from_q = c.q;
    moved.node = next;
    moved.q = policy_.Step(c.q, next);
    moved.hops = c.hops + 1;
    moved.base = c.base + hop;
    moved.nominal = c.nominal + hop;
    moved.violated = c.violated || !policy_.NodeAllowed(next) || !policy_.LinkAllowed(link);
    if (!c.diverged && context_.router->NextHop(0, c.node, c.q, flow_.dst) != next) {
      moved.diverged = true;
      moved.div_fixed = c.fixed;
      moved.div_base = c.base + context_.timing->switch_latency;
    }
    stack_.push_back(moved);
  }

  void Deliver(const Cohort& c) {
    const int64_t packets = Count(c.s0, c.s1);
    outcome_.delivered += packets;
    const bool compliant = !c.violated && c.hops <= flow_.hop_budget;
    if (!compliant) {
      outcome_.noncompliant += packets;
      Event(c.diverged ? (c.div_fixed ? c.div_base : c.s1 + c.div_base) : At(c, c.s1));
    }
    Final(c, true, compliant);
  }

  const Flow& flow_;
  Scheme& scheme_;
  ScenarioContext& context_;
  const Topology& topology_;
  const Policy& policy_;
  const TrafficModel& traffic_;
  std::vector<HoldRecord>* holds_;
  std::vector<Cohort> stack_;
  FlowOutcome outcome_;
  net::Time final_s1_ = INT64_MIN;
  net::Time final_s0_ = INT64_MIN;
};

}  // namespace

int64_t CountEmissions(net::Time phase, net::Time period, net::Time from, net::Time to) {
  if (to <= from) return 0;
  return CeilDiv(to - phase, period) - CeilDiv(from - phase, period);
}

FlowOutcome SimulateFlow(const Flow& flow, Scheme& scheme, ScenarioContext& context,
                         const TrafficModel& traffic, std::vector<HoldRecord>* holds) {
  return FlowTracer(flow, scheme, context, traffic, holds).Run();
}

}  // namespace jigsaw::d2r
