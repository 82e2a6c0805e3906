// When a `jigsaw net` run is expected to end in simulated time, for its progress line's share
// done and ETA (Network::Run reports simulated time against it). An estimate, never a result:
// - flows (--traffic, --flows, --background): every host's NIC carrying its own flows back to
//   back from its first flow's start, in both directions, and every flow alone (its ideal FCT) -
//   the latest of these. Congestion in the fabric makes runs longer; the line then says the
//   estimate was passed instead of showing 100 %.
// - workload jobs: per iteration, the layers' compute plus every collective's bytes moved twice
//   (a ring's reduce-scatter and all-gather) at the host rate, times the iterations; the latest
//   job.
#ifndef JIGSAW_NET_PROGRESS_ESTIMATE_H_
#define JIGSAW_NET_PROGRESS_ESTIMATE_H_

#include <vector>

#include "net/network.h"
#include "net/workload.h"

namespace jigsaw::net {

// 0 when the network has no flows.
Time EstimatedEndOfFlows(const Network& network);
// 0 for no jobs or a zero host rate.
Time EstimatedEndOfJobs(const std::vector<JobSpec>& jobs, uint64_t host_rate_bps);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_PROGRESS_ESTIMATE_H_
