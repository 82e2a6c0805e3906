// Failure scenarios and traffic for a recovery study.
//
// --fail grammar (every failure happens at time 0; a scenario is one set of simultaneous
// failures, each scenario is evaluated separately):
//   link:X-Y[,X-Y..]  one scenario with these links failed
//   node:X            one scenario with X failed (all its links; flows from or to X are dropped
//                     from the traffic because no scheme can serve them)
//   random:K          one scenario with K distinct links drawn with the seed
//   each-link[:N]     one scenario per link (a seeded sample of N links when there are more)
//   pairs:N           N scenarios of two distinct links each (seeded, distinct pairs)
//
// Traffic: every ordered pair (src, dst) of distinct allowed nodes in one component whose
// failure-free compliant path exists and meets the hop budget, each sending `rate` packets per
// second with a per-flow phase; a seeded sample of max_flows pairs when there are more. A flow's
// hop budget is the stretch bound's, capped by the TTL (a longer path cannot deliver).
#ifndef JIGSAW_D2R_SCENARIO_H_
#define JIGSAW_D2R_SCENARIO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "d2r/routing.h"
#include "d2r/timing.h"
#include "net/units.h"

namespace jigsaw::d2r {

struct Scenario {
  std::string name;        // e.g. "link:Chicago-Denver"
  std::vector<int> links;  // failed links (for node failures: all links of the nodes)
  std::vector<int> nodes;  // failed nodes
};

// Throws UsageError for a bad spec or reference.
std::vector<Scenario> ParseFailures(const std::string& spec, const Topology& topology,
                                    uint64_t seed);

struct Flow {
  int src = 0;
  int dst = 0;
  std::vector<int> path;    // failure-free compliant route (the routing rule's)
  net::Time path_time = 0;  // time a packet takes along `path`
  int plain_hops = 0;       // failure-free unconstrained shortest hop count
  int hop_budget = 0;       // min(stretch bound, TTL)
  net::Time phase = 0;      // first packet time modulo the period
};

struct TrafficStats {
  int64_t candidate_pairs = 0;  // ordered pairs of distinct nodes
  int64_t disconnected = 0;     // in different components
  int64_t not_compliant = 0;    // no failure-free compliant path (or over the stretch bound)
  int64_t eligible = 0;         // the rest
  int64_t sampled = 0;          // flows used
};

// Hop time of a data packet over `link` (switch latency + serialisation + propagation).
net::Time HopTime(const Topology& topology, const Timing& timing, int link);

std::vector<Flow> MakeFlows(Router& router, Router& plain, const Timing& timing, double pps,
                            int64_t max_flows, uint64_t seed, TrafficStats* stats);

// "10000pps", "10kpps", "1.5Mpps", or a bit rate ("100Mbps", "1Gbps") turned into packets of
// `packet_bytes`. Returns false when unparsable or not positive.
bool ParseTrafficRate(const std::string& text, uint32_t packet_bytes, double* pps);

}  // namespace jigsaw::d2r

#endif  // JIGSAW_D2R_SCENARIO_H_
