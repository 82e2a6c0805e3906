// The files and summary.json objects every `jigsaw net` run writes, from the finished Network:
//   flows.csv               flow,src,dst,bytes,start_us,end_us,fct_us,ideal_fct_us,slowdown
//                           (end, fct and slowdown empty for unfinished flows);
//   summary "flows"         count, unfinished, FCT mean/p99/max, slowdown mean/p50/p99/max;
//   summary "network"       NetStats (simulated time, packets, drops, ECN, PFC, queues);
//   timeseries/queue.csv, pfc.csv, rate.csv and summary "timeseries" when sampling was on.
#ifndef JIGSAW_NET_RUN_OUTPUTS_H_
#define JIGSAW_NET_RUN_OUTPUTS_H_

#include <cstdint>
#include <string>

#include "core/output.h"
#include "core/result_set.h"
#include "net/network.h"

namespace jigsaw::net {

struct FlowsReport {
  std::string csv;  // flows.csv
  Json summary;     // summary.json's "flows"
  uint64_t unfinished = 0;
};

FlowsReport MakeFlowsReport(const Network& network);
Json NetStatsJson(const NetStats& stats);

// Writes `dir`/queue.csv, pfc.csv and rate.csv as one unit and returns summary.json's
// "timeseries" object (`all`: every switch port was sampled, else those that held data).
Json WriteTimeSeries(const Network& network, Time sample_interval, bool all,
                     const std::string& dir);
// Removes a previous run's time series from `dir` (and `dir` if then empty), so that they never
// sit beside a run that did not sample.
void RemoveTimeSeries(const std::string& dir);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_RUN_OUTPUTS_H_
