// summary.json's view of parameter-server jobs (ps_jobs.h): the settings, each job's JCT and
// per-iteration times, the straggler spread per iteration, the PS hosts' link utilisation and the
// band schedule that was applied. Times are microseconds (3 decimals); docs/tensorlights.md
// "Simulated" defines every field.
#ifndef JIGSAW_NET_PS_REPORT_H_
#define JIGSAW_NET_PS_REPORT_H_

#include <cstdint>

#include "core/output.h"
#include "net/ps_jobs.h"

namespace jigsaw::net {

// Sets summary["ps"] (settings and aggregates) and summary["ps_jobs"] (one object per job).
// Returns the number of jobs that did not finish.
uint64_t AddPsJobsJson(const PsJobsSpec& spec, const PsJobsResult& result, Json* summary);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_PS_REPORT_H_
