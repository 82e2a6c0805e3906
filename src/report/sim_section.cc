// Charts of `jigsaw sim` runs: jobs.csv (JCT, rho) and rounds.csv (GPUs used, jobs active and
// running per round); bars from summary.json.
#include <cmath>
#include <set>

#include "core/error.h"
#include "core/text_input.h"
#include "report/charts.h"
#include "report/csv_table.h"
#include "report/sections.h"
#include "report/series.h"

namespace jigsaw::report {
namespace {

size_t CountIds(const std::string& cell) { return SplitOnBlanks(cell).size(); }

struct SimData {
  std::vector<double> jcts, rhos;
  std::vector<Point> utilisation, running, pending;
};

SimData ReadSim(const RunDir& run) {
  SimData data;
  const CsvTable jobs = CsvTable::Read(run.path + "/jobs.csv");
  const size_t jct = jobs.Column("jct_s"), rho = jobs.Column("rho"),
               finish = jobs.Column("finish_s");
  for (size_t r = 0; r < jobs.rows(); ++r) {
    if (!(jobs.Number(r, finish) >= 0)) continue;  // still running when the run ended
    data.jcts.push_back(jobs.Number(r, jct));
    data.rhos.push_back(jobs.Number(r, rho));
  }
  const CsvTable rounds = CsvTable::Read(run.path + "/rounds.csv");
  const size_t start = rounds.Column("start_s"), active = rounds.Column("active_jobs"),
               used = rounds.Column("gpus_used");
  double gpus = 0;
  if (run.summary.contains("gpus") && run.summary["gpus"].is_number()) {
    gpus = run.summary["gpus"].get<double>();
  }
  // rounds.csv lists either every round's scheduled jobs, or the jobs started and stopped.
  const bool full = rounds.Has("scheduled_jobs");
  const bool direct = rounds.Has("running_jobs");
  if (!full && !direct && !(rounds.Has("started_jobs") && rounds.Has("stopped_jobs"))) {
    throw InputError(rounds.name(), 1,
                     "expected running_jobs, scheduled_jobs or started_jobs + stopped_jobs "
                     "columns");
  }
  long long running = 0;
  for (size_t r = 0; r < rounds.rows(); ++r) {
    const double t = rounds.Number(r, start);
    const double gpus_used = rounds.Number(r, used);
    data.utilisation.push_back({t, gpus > 0 ? gpus_used / gpus : gpus_used});
    if (direct) {
      running = std::llround(rounds.Number(r, rounds.Column("running_jobs")));
    } else if (full) {
      running = static_cast<long long>(CountIds(rounds.Cell(r, rounds.Column("scheduled_jobs"))));
    } else {
      running += static_cast<long long>(CountIds(rounds.Cell(r, rounds.Column("started_jobs"))));
      running -= static_cast<long long>(CountIds(rounds.Cell(r, rounds.Column("stopped_jobs"))));
    }
    const double active_jobs = rounds.Number(r, active);
    data.running.push_back({t, static_cast<double>(running)});
    data.pending.push_back({t, std::max(0.0, active_jobs - static_cast<double>(running))});
  }
  return data;
}

void AppendRows(const Series& series, const std::string& run, const std::string& x,
                const std::string& y, Json* rows, const std::string& state = "") {
  for (const Point& p : series.points) {
    Json row = {{"run", run}, {x, p.x}, {y, p.y}};
    if (!state.empty()) row["state"] = state;
    rows->push_back(std::move(row));
  }
}

}  // namespace

Section SimSection(const std::vector<const RunDir*>& runs, size_t max_points,
                   std::vector<Json>* metrics) {
  Section section;
  section.heading = "Cluster simulator runs (jigsaw sim)";
  const size_t max = max_points;
  Json jct_rows = Json::array(), rho_rows = Json::array(), util_rows = Json::array(),
       job_rows = Json::array(), bars = Json::array();
  std::vector<Series> kept;
  kept.reserve(runs.size() * 5);
  for (const RunDir* run : runs) {
    const SimData data = ReadSim(*run);
    kept.push_back(EmpiricalCdf(data.jcts, max));
    AppendRows(kept.back(), run->name, "jct_s", "fraction", &jct_rows);
    kept.push_back(EmpiricalCdf(data.rhos, max));
    AppendRows(kept.back(), run->name, "rho", "fraction", &rho_rows);
    kept.push_back(Downsample(data.utilisation, max));
    AppendRows(kept.back(), run->name, "time_s", "utilisation", &util_rows);
    kept.push_back(Downsample(data.running, max));
    AppendRows(kept.back(), run->name, "time_s", "jobs", &job_rows, "running");
    kept.push_back(Downsample(data.pending, max));
    AppendRows(kept.back(), run->name, "time_s", "jobs", &job_rows, "pending");
    Json bar = {{"run", run->name}};
    Json row;
    for (const char* key : {"policy", "gpus", "jobs", "jobs_finished", "makespan_s", "avg_jct_s",
                            "p50_jct_s", "p99_jct_s", "worst_ftf_rho", "avg_ftf_rho",
                            "unfair_frac_105", "cluster_util", "cluster_efficiency"}) {
      if (!run->summary.contains(key)) continue;
      row[key] = run->summary[key];
      if (run->summary[key].is_number()) bar[key] = run->summary[key];
    }
    bars.push_back(bar);
    metrics->push_back(row);
  }
  auto note = [&](size_t first) {
    std::vector<const Series*> series;
    for (size_t i = first; i < kept.size(); i += 5) series.push_back(&kept[i]);
    return DownsampleNote(series, max);
  };
  auto note2 = [&](size_t a, size_t b) {
    std::vector<const Series*> series;
    for (size_t i = 0; i < kept.size(); i += 5) {
      series.push_back(&kept[i + a]);
      series.push_back(&kept[i + b]);
    }
    return DownsampleNote(series, max);
  };
  const LineOptions by_run = ColorBy("run", true);
  LineOptions by_state = by_run;
  by_state.facet = "state";
  by_state.facet_order = {"running", "pending"};
  AddChart(&section, LineSpec("JCT CDF (finished jobs)" + note(0), std::move(jct_rows),
                              {"jct_s", "job completion time (s)", true},
                              {"fraction", "fraction of jobs"}, by_run));
  AddChart(&section,
           LineSpec("Finish-time fairness rho CDF (rho > 1: slower than its fair share)" + note(1),
                    std::move(rho_rows), {"rho", "rho = JCT / (isolated time x contention)"},
                    {"fraction", "fraction of jobs"}, by_run));
  AddChart(&section,
           LineSpec("GPU utilisation per round (GPUs used / GPUs)" + note(2), std::move(util_rows),
                    {"time_s", "time (s)"}, {"utilisation", "GPUs used / GPUs"}, by_run));
  AddChart(&section,
           LineSpec("Running and pending jobs per round" + note2(3, 4), std::move(job_rows),
                    {"time_s", "time (s)"}, {"jobs", "jobs"}, by_state));
  AddChart(&section, BarsSpec("Per-run metrics (summary.json)", std::move(bars), {"run", "run"},
                              {{"makespan_s", "makespan (s)"},
                               {"avg_jct_s", "average JCT (s)"},
                               {"worst_ftf_rho", "worst rho"},
                               {"cluster_efficiency", "cluster efficiency"}}));
  return section;
}

}  // namespace jigsaw::report
