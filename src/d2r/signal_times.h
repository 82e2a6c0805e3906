#ifndef JIGSAW_D2R_SIGNAL_TIMES_H_
#define JIGSAW_D2R_SIGNAL_TIMES_H_

#include <vector>

#include "d2r/topology.h"
#include "net/units.h"

namespace jigsaw::d2r {

// The one shortest-time search of d2r (failure news, control-channel latencies).
// Earliest time at which a signal reaches every node when it leaves each of `sources` at
// `start` and every hop costs `per_hop` (a switch's processing, 0 for none) plus the link's
// propagation delay. Links and nodes marked in `link_failed` / `node_failed` (indexed like
// topology.links / topology.nodes; nullptr: nothing failed) are not crossed; sources are taken
// as given. Nodes the signal cannot reach get net::kNever. The result does not depend on the
// order in which ties are settled (tests/d2r/signal_times_test.cc).
std::vector<net::Time> SignalTimes(const Topology& topology, const std::vector<int>& sources,
                                   net::Time start, net::Time per_hop,
                                   const std::vector<bool>* link_failed = nullptr,
                                   const std::vector<bool>* node_failed = nullptr);

}  // namespace jigsaw::d2r

#endif  // JIGSAW_D2R_SIGNAL_TIMES_H_
