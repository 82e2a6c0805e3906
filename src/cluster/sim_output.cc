#include "cluster/sim_output.h"

#include <algorithm>
#include <set>

#include "core/result_set.h"
#include "core/stats.h"

namespace jigsaw {

Json SummarizeSimulation(SimResult* result, const Json& extra) {
  const double jobs = static_cast<double>(result->jobs.size());
  const double contention = std::max(1.0, jobs / result->gpus);
  std::vector<double> jcts, rhos, window_jcts;
  int deadline_hits = 0;
  for (JobRecord& job : result->jobs) {
    if (job.finish_s < 0) continue;  // still running when a measurement window ended the run
    job.rho = job.isolated_s > 0 ? job.jct_s / (job.isolated_s * contention) : 0;
    jcts.push_back(job.jct_s);
    rhos.push_back(job.rho);
    deadline_hits += job.hit_deadline;
    if (result->has_window && job.id >= result->window_begin && job.id < result->window_end) {
      window_jcts.push_back(job.jct_s);
    }
  }
  Json summary = extra;
  summary["policy"] = result->policy;
  summary["gpus"] = result->gpus;
  summary["round_s"] = result->round_s;
  summary["jobs"] = result->jobs.size();
  summary["jobs_finished"] = result->jobs_finished;
  summary["rounds"] = result->rounds.size();
  summary["makespan_s"] = RoundTo(result->makespan_s, 3);
  summary["avg_jct_s"] = RoundTo(Mean(jcts), 3);
  summary["geomean_jct_s"] = RoundTo(GeometricMean(jcts), 3);
  summary["harmonic_jct_s"] = RoundTo(HarmonicMean(jcts), 3);
  summary["p50_jct_s"] = RoundTo(Percentile(jcts, 50), 3);
  summary["p99_jct_s"] = RoundTo(Percentile(jcts, 99), 3);
  summary["worst_ftf_rho"] = RoundTo(Max(rhos), 4);
  summary["avg_ftf_rho"] = RoundTo(Mean(rhos), 4);
  summary["unfair_frac_105"] = RoundTo(FractionAbove(rhos, 1.05), 4);
  summary["unfair_frac_110"] = RoundTo(FractionAbove(rhos, 1.10), 4);
  summary["cluster_util"] =
      result->makespan_s > 0 ? RoundTo(result->busy_gpu_s / (result->gpus * result->makespan_s), 4)
                             : 0.0;
  summary["cluster_efficiency"] =
      result->makespan_s > 0
          ? RoundTo(result->useful_gpu_s / (result->gpus * result->makespan_s), 4)
          : 0.0;
  summary["reallocations"] = result->reallocations;
  summary["jobs_ended_at_deadline"] = deadline_hits;
  if (result->has_window) {
    const double span = result->window_end_s - result->window_start_s;
    const double gpu_s = result->gpus * span;
    Json window;
    window["first_job"] = result->window_begin;
    window["end_job"] = result->window_end;
    window["jobs"] = window_jcts.size();
    window["start_s"] = RoundTo(result->window_start_s, 3);
    window["end_s"] = RoundTo(result->window_end_s, 3);
    window["avg_jct_s"] = RoundTo(Mean(window_jcts), 3);
    window["p50_jct_s"] = RoundTo(Percentile(window_jcts, 50), 3);
    window["p99_jct_s"] = RoundTo(Percentile(window_jcts, 99), 3);
    window["max_jct_s"] = RoundTo(Max(window_jcts), 3);
    window["goodput"] = gpu_s > 0 ? RoundTo(result->window_useful_gpu_s / gpu_s, 4) : 0.0;
    window["util"] = gpu_s > 0 ? RoundTo(result->window_busy_gpu_s / gpu_s, 4) : 0.0;
    summary["window"] = window;
  }
  if (result->has_spb) {
    const SpbTotals& t = result->spb;
    Json spb;
    spb["job_rounds"] = {{"full", t.job_rounds_full},
                         {"staircase", t.job_rounds_staircase},
                         {"adaptive", t.job_rounds_adaptive}};
    spb["job_rounds_adaptive_frozen"] = t.job_rounds_adaptive_frozen;
    spb["gpu_s_freed"] = RoundTo(t.gpu_s_freed, 1);
    spb["guest_gpu_s_in_freed_capacity"] = RoundTo(t.guest_gpu_s_in_freed, 1);
    if (result->has_window) {
      spb["window_gpu_s_freed"] = RoundTo(t.window_gpu_s_freed, 1);
      spb["window_guest_gpu_s_in_freed_capacity"] = RoundTo(t.window_guest_gpu_s_in_freed, 1);
    }
    summary["spb"] = spb;
  }
  return summary;
}

namespace {

// Empty for a time or ratio a job never reached (negative in JobRecord): docs/outputs.md.
std::string IfReached(double value, int decimals) {
  return value >= 0 ? FormatFixed(value, decimals) : std::string();
}

std::string JobsCsv(const SimResult& result) {
  std::string out =
      "job_id,job_type,scale_factor,mode,arrival_s,start_s,finish_s,jct_s,isolated_s,rho,gpu_s,"
      "rounds_run,final_batch_size,ended_at_deadline\n";
  for (const JobRecord& j : result.jobs) {
    // An unfinished job has no JCT and no rho (JobRecord holds 0 there): empty, not 0.
    const bool finished = j.finish_s >= 0;
    out += std::to_string(j.id) + ",\"" + j.job_type + "\"," + std::to_string(j.scale_factor) +
           "," + j.mode + "," + FormatFixed(j.arrival_s, 3) + "," + IfReached(j.start_s, 3) + "," +
           IfReached(j.finish_s, 3) + "," + (finished ? IfReached(j.jct_s, 3) : "") + "," +
           FormatFixed(j.isolated_s, 3) + "," + (finished ? IfReached(j.rho, 5) : "") + "," +
           FormatFixed(j.gpu_s, 3) + "," + std::to_string(j.rounds_run) + "," +
           std::to_string(j.final_batch_size) + "," + (j.hit_deadline ? "1" : "0") + "\n";
  }
  return out;
}

std::string JoinIds(const std::vector<int>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ' ';
    out += std::to_string(ids[i]);
  }
  return out;
}

// One schema whatever --round-log says (docs/outputs.md): the delta columns always, the full
// lists only with full_round_lists (empty fields otherwise).
std::string RoundsCsv(const SimResult& result, bool full_round_lists) {
  std::string out =
      "round,start_s,end_s,active_jobs,gpus_used,started_jobs,stopped_jobs,scheduled_jobs,"
      "colocated_jobs\n";
  std::vector<int> previous;
  for (const RoundRecord& r : result.rounds) {
    out += std::to_string(r.index) + "," + FormatFixed(r.start_s, 3) + "," +
           FormatFixed(r.end_s, 3) + "," + std::to_string(r.active_jobs) + "," +
           std::to_string(r.gpus_used) + ",";
    std::vector<int> current = r.scheduled;
    std::sort(current.begin(), current.end());
    std::vector<int> started, stopped;
    std::set_difference(current.begin(), current.end(), previous.begin(), previous.end(),
                        std::back_inserter(started));
    std::set_difference(previous.begin(), previous.end(), current.begin(), current.end(),
                        std::back_inserter(stopped));
    out += JoinIds(started) + "," + JoinIds(stopped) + ",";
    out += full_round_lists ? JoinIds(r.scheduled) + "," + JoinIds(r.colocated) + "\n" : ",\n";
    previous = std::move(current);
  }
  return out;
}

}  // namespace

void WriteSimulationOutputs(const std::string& dir, const SimResult& result, const Json& summary,
                            bool full_round_lists) {
  ResultSet set(dir);
  set.Add("jobs.csv", JobsCsv(result));
  set.Add("rounds.csv", RoundsCsv(result, full_round_lists));
  set.Add("summary.json", summary.dump(2) + "\n");
  set.Commit();
}

}  // namespace jigsaw
