// A recovery scheme seen by the packet model: what each switch does with a packet at a given time
// after the failures of one scenario (all failures happen at time 0).
//
// Each scheme first plays out its control process for the scenario (notices, computations, rule
// installs) on the shared event core (net::EventQueue) and keeps, per switch, a timeline of which
// routing state is in force. Decide() then answers per packet; the packet model (packet_sim.h)
// checks physics (a packet sent onto a failed link is lost) and policy compliance itself, so a
// scheme cannot hide a loss or a violation.
#ifndef JIGSAW_D2R_SCHEME_H_
#define JIGSAW_D2R_SCHEME_H_

#include <string>
#include <vector>

#include "core/output.h"
#include "d2r/routing.h"
#include "d2r/scenario.h"
#include "d2r/timing.h"
#include "net/units.h"

namespace jigsaw::d2r {

// What one scenario's schemes share.
struct ScenarioContext {
  const Topology* topology;
  const Timing* timing;
  Router* router;                 // the policy's product graph
  Router* plain;                  // unconstrained (for LFA's IGP metric)
  int failed_set = 0;             // router set id of all failed links
  std::vector<int> failed_links;  // index i -> link
  std::vector<bool> link_failed;  // per link
  std::vector<bool> node_failed;  // per node
  // Switches that detect failure i at time timing.detection: the live ends of failed_links[i].
  std::vector<std::vector<int>> detectors;
  std::vector<net::Time> hop_time;  // per link: HopTime()
  // Per switch: the earliest time any scheme could know of any failure of the scenario: detection
  // at a detector plus the propagation delay (no processing) of the shortest path from there
  // (kNever when no detector is in reach). No signal over the network's fibre routes, in band or
  // out of band, gets there sooner, so before this time no scheme can route around the failures.
  std::vector<net::Time> news;
  // Per failure i and switch: the same for failure i alone, over the links and switches that
  // survive (a signal cannot cross a failed link): news_of[i][x] (physical bound, propagation
  // only) and notice_of[i][x] (the in-band bound: propagation plus one pipeline traversal,
  // Timing::switch_latency, per switch the signal passes, as every packet pays). news[x] is the
  // minimum of news_of over i.
  std::vector<std::vector<net::Time>> news_of;
  std::vector<std::vector<net::Time>> notice_of;

  ScenarioContext(const Topology& topology, const Timing& timing, Router& router, Router& plain,
                  const Scenario& scenario);
};

// What a packet carries that routing may look at.
struct Packet {
  int dst;
  int q;            // automaton state (after entering the current switch)
  int hops;         // links traversed so far
  int budget;       // hop budget from the stretch bound
  int from = -1;    // the switch it came from (-1 at its source): a switch knows its ingress port
  int from_q = -1;  // its automaton state there (carried in the header with q)
};

enum class DropReason : uint8_t { kNoRoute, kNoCompliantContinuation };

struct Decision {
  enum Kind : uint8_t { kForward, kHold, kDrop } kind = kForward;
  int next = -1;        // kForward: the neighbour
  net::Time until = 0;  // kHold: when it is released (then decided again)
  DropReason reason = DropReason::kNoRoute;
};

class Scheme {
 public:
  virtual ~Scheme() = default;
  virtual const char* name() const = 0;
  // Switch x's decision for `packet` arriving at time t. *next_change is set to the earliest time
  // > t at which the decision for this (x, packet) may differ (net::kNever when it never will).
  virtual Decision Decide(int x, const Packet& packet, net::Time t, net::Time* next_change) = 0;
  // No switch changes its routing state after this time.
  virtual net::Time LastChange() const = 0;
  // Scheme-specific totals for one scenario (recirculations, rules, ...).
  virtual Json Totals() const = 0;
  // Per-switch state and work for one scenario (only switches that did something).
  virtual Json PerSwitch() const = 0;
};

}  // namespace jigsaw::d2r

#endif  // JIGSAW_D2R_SCHEME_H_
