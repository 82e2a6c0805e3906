// summary.json's "jobs" array for collective-driven jobs (ASTRA-sim workloads, workload.h): per
// job the workload, its host ranks, whether it finished, the mean and per-iteration times, and
// every collective (iteration, layer, pass, type, bytes, issued / started / finished, duration).
#ifndef JIGSAW_NET_WORKLOAD_REPORT_H_
#define JIGSAW_NET_WORKLOAD_REPORT_H_

#include <cstdint>
#include <vector>

#include "core/output.h"
#include "net/workload.h"

namespace jigsaw::net {

// Sets summary["jobs"]; returns the number of jobs that did not finish.
uint64_t AddWorkloadJobsJson(const std::vector<JobSpec>& specs,
                             const std::vector<JobResult>& results, Json* summary);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_WORKLOAD_REPORT_H_
