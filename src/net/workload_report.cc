#include "net/workload_report.h"

#include "core/stats.h"

namespace jigsaw::net {
namespace {

double Us(Time t) { return RoundTo(ToMicroseconds(t), 3); }

}  // namespace

uint64_t AddWorkloadJobsJson(const std::vector<JobSpec>& specs,
                             const std::vector<JobResult>& results, Json* summary) {
  uint64_t unfinished_jobs = 0;
  Json jobs_json = Json::array();
  for (size_t j = 0; j < results.size(); ++j) {
    const JobResult& result = results[j];
    Json job;
    job["workload"] = result.workload;
    job["hosts"] = result.hosts;
    job["host_ranks"] = specs[j].hosts;
    job["finished"] = result.finished >= 0;
    unfinished_jobs += result.finished < 0;
    std::vector<double> iterations;
    for (Time t : result.iteration_times) iterations.push_back(Us(t));
    job["iteration_time_us"] = RoundTo(Mean(iterations), 3);
    job["iteration_times_us"] = iterations;
    std::vector<double> durations;
    Json collectives = Json::array();
    for (const CollectiveRecord& r : result.collectives) {
      Json c;
      c["iteration"] = r.iteration;
      c["layer"] = r.layer;
      c["pass"] = r.pass;
      c["type"] = CollectiveTypeName(r.type);
      c["bytes"] = r.bytes;
      c["issued_us"] = Us(r.issued);
      c["started_us"] = r.started >= 0 ? Json(Us(r.started)) : Json();
      c["finished_us"] = r.finished >= 0 ? Json(Us(r.finished)) : Json();
      if (r.finished >= 0) {
        c["duration_us"] = Us(r.finished - r.started);
        durations.push_back(Us(r.finished - r.started));
      }
      collectives.push_back(std::move(c));
    }
    job["collective_time_total_us"] =
        RoundTo(durations.empty() ? 0 : Mean(durations) * durations.size(), 3);
    job["collectives"] = std::move(collectives);
    jobs_json.push_back(std::move(job));
  }
  (*summary)["jobs"] = std::move(jobs_json);
  return unfinished_jobs;
}

}  // namespace jigsaw::net
