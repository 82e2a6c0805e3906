// The packet model: what happens to every packet of a flow around a failure, for one scheme.
//
// A flow emits a packet every 1/rate from its phase on. Rather than tracing each packet, the model
// traces cohorts: intervals of emission times that meet the same decisions at the same switches.
// A cohort either arrives at a switch over an interval (arrival = emission + constant) or all at
// once (after being held). At each switch the scheme's decision timeline splits it; a forwarded
// piece departs after the switch latency and crosses the link in serialisation + propagation
// time. Physics is the model's, not the scheme's: a packet that departs onto a failed link is lost
// (on the wire when it departed before the failure but would arrive after it; before detection
// when the switch decided its next hop before the detection time; otherwise blackholed by the
// scheme); a packet beyond the TTL is lost in a loop. Counts are exact integers for the phase:
// packets are emitted at phase + k x period.
//
// A packet "could escape" once it reaches a switch, at or after the earliest time news of the
// failures can be there (ScenarioContext::news), from which a compliant path (within its hop
// budget, under all the failures) leads to its destination; a lost packet that never could is
// counted as stranded as well, and its loss is not a disruption of the flow's recovery (no scheme
// could have avoided it). Stranded packets that had such a path only at a switch they passed
// before news could get there are counted apart (lost_stranded_early).
//
// A packet is delivered at its destination in the accepting automaton state; its path complies
// when it entered no avoided node or link and stayed within its hop budget. "Disrupted" packets
// are those lost (except stranded ones), held, or delivered on a non-compliant path. The flow's
// recovery time does not depend on the packet rate: it is the latest instant at which a packet sent
// at any time would be disrupted (lost, released from a hold, or leaving its pre-failure route on a
// non-compliant path), i.e. cohorts are followed even when the rate puts no packet in them.
#ifndef JIGSAW_D2R_PACKET_SIM_H_
#define JIGSAW_D2R_PACKET_SIM_H_

#include <cstdint>
#include <vector>

#include "d2r/scheme.h"

namespace jigsaw::d2r {

struct FlowOutcome {
  int64_t emitted = 0;
  int64_t delivered = 0;
  int64_t lost_on_wire = 0;             // on the failed link when it failed
  int64_t lost_before_detection = 0;    // forwarded to the failed link before detection
  int64_t lost_blackhole = 0;           // sent onto a failed link after detection
  int64_t lost_loop = 0;                // TTL exhausted
  int64_t dropped_no_route = 0;         // the scheme had no route
  int64_t dropped_no_continuation = 0;  // no compliant continuation within the hop budget
  int64_t held = 0;                     // held at least once (delivered later unless lost)
  int64_t noncompliant = 0;             // delivered on a path that violates the policy
  // Of scheme_losses(): packets that had no compliant path to their destination within their hop
  // budget, under all the failures, at any switch they reached after the failures (in flight
  // beyond the failure into a region the policy cannot leave, or with too few hops left). No
  // scheme could have delivered them; the rest of scheme_losses() are the scheme's doing.
  int64_t lost_stranded = 0;
  // Of lost_stranded: packets that had such a path only at switches they passed after the failure
  // but before any signal from it could get there (ScenarioContext::news): no scheme that learns of
  // failures through the network could have used it.
  int64_t lost_stranded_early = 0;
  // Of the losses that are not stranded: packets that had a way out only at switches they reached
  // before an in-band notice of the failures could be there (ScenarioContext::notice_of: signal
  // speed plus one pipeline traversal per switch): no scheme whose signals cross the switches (D2R,
  // an in-band controller, an IGP) could have turned them; an oracle told at signal speed could.
  int64_t lost_way_out_before_notice = 0;
  net::Time recovery = 0;  // 0 when nothing was disrupted
  // The same, except that a hold is a disruption only when it has delayed a packet by more than
  // Timing::delay_bound in all, and a loss only when the packet had a way out once an in-band
  // notice could be there (lost_way_out_before_notice are not): what a scheme whose signals cross
  // the switches could have avoided, measured the same way for every scheme.
  net::Time recovery_bounded = 0;
  bool restored = false;  // the last cohort was delivered
  bool final_compliant = false;
  int final_hops = -1;
  int64_t scheme_losses() const {
    return lost_blackhole + lost_loop + dropped_no_route + dropped_no_continuation;
  }
};

// Packets held at one switch (for the buffer bound).
struct HoldRecord {
  int switch_index;
  net::Time first_arrival;
  net::Time last_arrival;
  net::Time release;
  int64_t packets;
};

struct TrafficModel {
  net::Time period;  // between packets of a flow
  net::Time begin;   // first emission time considered (before the failure)
  net::Time end;     // after every scheme's last change (steady state)
};

FlowOutcome SimulateFlow(const Flow& flow, Scheme& scheme, ScenarioContext& context,
                         const TrafficModel& traffic, std::vector<HoldRecord>* holds);

// Number of emissions phase + k * period in [from, to).
int64_t CountEmissions(net::Time phase, net::Time period, net::Time from, net::Time to);

}  // namespace jigsaw::d2r

#endif  // JIGSAW_D2R_PACKET_SIM_H_
