#include "net/ps_report.h"

#include <algorithm>
#include <vector>

#include "core/stats.h"

namespace jigsaw::net {
namespace {

double Us(Time t) { return RoundTo(ToMicroseconds(t), 3); }

Json OrNull(const std::vector<double>& values, double value) {
  return values.empty() ? Json() : Json(RoundTo(value, 3));
}

// One job: JCT, the time every worker held version 0, per iteration the time from the previous
// version's last receipt to this one's, and the spread (last receipt - first) of each version
// 1..K that every worker received.
Json JobJson(uint32_t index, const PsJobResult& job, std::vector<double>* spreads) {
  Json j;
  j["job"] = index;
  j["ps_host"] = job.ps_host;
  j["worker_hosts"] = job.worker_hosts;
  j["finished"] = job.finished >= 0;
  j["jct_us"] = job.finished >= 0 ? Json(Us(job.finished)) : Json();
  std::vector<double> iterations;
  std::vector<double> job_spreads;
  Time previous = -1;
  for (size_t v = 0; v < job.receipts.size(); ++v) {
    const std::vector<Time>& r = job.receipts[v];
    if (std::any_of(r.begin(), r.end(), [](Time t) { return t < 0; })) break;
    const Time first = *std::min_element(r.begin(), r.end());
    const Time last = *std::max_element(r.begin(), r.end());
    if (v == 0) {
      j["initial_pull_us"] = Us(last);
    } else {
      iterations.push_back(Us(last - previous));
      job_spreads.push_back(Us(last - first));
    }
    previous = last;
  }
  j["iteration_time_mean_us"] = OrNull(iterations, Mean(iterations));
  j["straggler_spread_mean_us"] = OrNull(job_spreads, Mean(job_spreads));
  j["iteration_times_us"] = iterations;
  j["straggler_spread_us"] = job_spreads;
  spreads->insert(spreads->end(), job_spreads.begin(), job_spreads.end());
  return j;
}

Json HostsJson(const PsJobsResult& result) {
  Json hosts = Json::array();
  const double span_s = static_cast<double>(result.makespan) / static_cast<double>(kSecond);
  for (const PsHostResult& host : result.ps_hosts) {
    Json h;
    h["host"] = host.host;
    h["jobs"] = host.jobs;
    h["rate_gbps"] = RoundTo(static_cast<double>(host.rate_bps) / 1e9, 6);
    h["tx_bytes"] = host.tx_bytes;
    h["rx_bytes"] = host.rx_bytes;
    // Wire bytes over the link's capacity during [0, makespan].
    const double capacity = static_cast<double>(host.rate_bps) / 8 * span_s;
    h["uplink_utilization"] =
        capacity > 0 ? Json(RoundTo(static_cast<double>(host.tx_bytes) / capacity, 4)) : Json();
    h["downlink_utilization"] =
        capacity > 0 ? Json(RoundTo(static_cast<double>(host.rx_bytes) / capacity, 4)) : Json();
    hosts.push_back(std::move(h));
  }
  return hosts;
}

Json SettingsJson(const PsJobsSpec& spec) {
  Json ps;
  ps["jobs"] = spec.jobs;
  ps["workers"] = spec.workers;
  ps["model"] = spec.model.empty() ? Json() : Json(spec.model);
  ps["model_bytes"] = spec.model_bytes;
  ps["iterations"] = spec.iterations;
  ps["ps_hosts"] = spec.ps_hosts;
  for (const PsPlacementEntry& entry : kPsPlacements) {
    if (entry.placement == spec.placement) ps["placement"] = entry.name;
  }
  ps["host_priority"] = tlights::PolicyName(spec.policy);
  if (spec.policy == tlights::Policy::kRotate) ps["rotate_interval_s"] = spec.rotate_interval_s;
  ps["downlink_priority"] = spec.downlink;
  if (spec.samples.empty()) {
    ps["compute_us"] = Us(spec.compute);
    ps["compute_jitter"] = spec.jitter;
  } else {
    ps["compute_file"] = spec.compute_file;
    ps["compute_samples"] = spec.samples.size();
  }
  return ps;
}

}  // namespace

uint64_t AddPsJobsJson(const PsJobsSpec& spec, const PsJobsResult& result, Json* summary) {
  Json ps = SettingsJson(spec);
  Json jobs = Json::array();
  std::vector<double> jcts;
  std::vector<double> spreads;
  uint64_t unfinished = 0;
  for (uint32_t j = 0; j < result.jobs.size(); ++j) {
    const PsJobResult& job = result.jobs[j];
    if (job.finished >= 0) {
      jcts.push_back(Us(job.finished));
    } else {
      ++unfinished;
    }
    jobs.push_back(JobJson(j, job, &spreads));
  }
  ps["unfinished_jobs"] = unfinished;
  ps["avg_jct_us"] = OrNull(jcts, Mean(jcts));
  ps["max_jct_us"] = OrNull(jcts, Max(jcts));
  ps["min_jct_us"] = jcts.empty() ? Json() : Json(*std::min_element(jcts.begin(), jcts.end()));
  ps["straggler_spread_mean_us"] = OrNull(spreads, Mean(spreads));
  ps["straggler_spread_p95_us"] = OrNull(spreads, spreads.empty() ? 0 : Percentile(spreads, 95));
  ps["straggler_spread_max_us"] = OrNull(spreads, Max(spreads));
  ps["makespan_us"] = result.makespan >= 0 ? Json(Us(result.makespan)) : Json();
  ps["pushed_bytes"] = result.pushed_bytes;
  ps["model_sent_bytes"] = result.pulled_bytes;
  ps["ps_host_links"] = HostsJson(result);
  Json schedule = Json::array();
  for (const BandChange& change : result.schedule) {
    Json c;
    c["at_us"] = Us(change.at);
    c["host"] = change.host;
    c["rotation"] = change.rotation;
    c["bands"] = change.bands;
    schedule.push_back(std::move(c));
  }
  ps["band_schedule"] = std::move(schedule);
  (*summary)["ps"] = std::move(ps);
  (*summary)["ps_jobs"] = std::move(jobs);
  return unfinished;
}

}  // namespace jigsaw::net
