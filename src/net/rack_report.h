// summary.json's "rack" object for the PL2 rack experiment (rack_workload.h): the spec, RPC
// latency percentiles overall and by response size (unfinished RPCs counted, never averaged in),
// bulk and training-job results, every switch port's queue and bytes, and the PL2 or Homa
// transport's counters when one ran.
#ifndef JIGSAW_NET_RACK_REPORT_H_
#define JIGSAW_NET_RACK_REPORT_H_

#include "core/output.h"
#include "net/config.h"
#include "net/network.h"
#include "net/rack_workload.h"

namespace jigsaw::net {

Json RackJson(const RackWorkloadSpec& spec, const RackResult& result, const Network& network,
              const NetConfig& config);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_RACK_REPORT_H_
