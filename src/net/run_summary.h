// The one-screen result summary of a `jigsaw net` run (core/result_summary.h), from the
// summary.json it wrote: simulated time and speed, flows and their FCT, workload jobs' iteration
// times, PFC, drops and queues, and the files written. On stderr unless quiet.
#ifndef JIGSAW_NET_RUN_SUMMARY_H_
#define JIGSAW_NET_RUN_SUMMARY_H_

#include <string>

#include "core/output.h"

namespace jigsaw::net {

std::string NetRunSummaryText(const Json& summary, const std::string& out, double wall_s);
void PrintNetRunSummary(const Json& summary, const std::string& out, double wall_s);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_RUN_SUMMARY_H_
