// Charts of serverless runs: `jigsaw faas-sim` (summary.json "results", one per platform and
// policy) and `jigsaw faas-load` against the real platform (summary.json and requests.csv) side by
// side: deadlines met per platform, and request latency CDFs per platform, one line per run.
#include <algorithm>

#include "core/stats.h"
#include "report/charts.h"
#include "report/csv_table.h"
#include "report/sections.h"
#include "report/series.h"

namespace jigsaw::report {
namespace {

struct PlatformData {
  std::string label;  // "archipelago/rlsf", "openwhisk", ...
  double met_pct = 0, p50_ms = 0, p99_ms = 0;
  uint64_t measured = 0;
  std::vector<Point> cdf;  // (latency ms, fraction)
};

double Get(const Json& object, const char* key) {
  return object.contains(key) && object[key].is_number() ? object[key].get<double>() : 0.0;
}

std::vector<PlatformData> ReadFaasSim(const RunDir& run) {
  std::vector<PlatformData> platforms;
  if (!run.summary.contains("results") || !run.summary["results"].is_array()) return platforms;
  const Json& results = run.summary["results"];
  for (const Json& r : results) {
    PlatformData p;
    p.label = r.value("platform", std::string("?"));
    // Policies only name Archipelago's variants apart (the baselines run one).
    size_t same = 0;
    for (const Json& other : results) same += other.value("platform", "") == p.label;
    if (same > 1) p.label += "/" + r.value("policy", std::string("?"));
    p.met_pct = Get(r, "deadline_met_pct");
    p.p50_ms = Get(r, "p50_ms");
    p.p99_ms = Get(r, "p99_ms");
    p.measured = static_cast<uint64_t>(Get(r, "measured"));
    if (r.contains("latency_quantiles_ms")) {
      for (const Json& q : r["latency_quantiles_ms"]) {
        p.cdf.push_back({q[1].get<double>(), q[0].get<double>()});
      }
    } else if (p.measured > 0) {
      p.cdf = {
          {p.p50_ms, 0.5}, {p.p99_ms, 0.99}, {Get(r, "p999_ms"), 0.999}, {Get(r, "max_ms"), 1}};
    }
    platforms.push_back(std::move(p));
  }
  return platforms;
}

PlatformData ReadFaasLoad(const RunDir& run, size_t max_points) {
  PlatformData p;
  const Json& platform = run.summary.value("platform", Json::object());
  p.label = platform.is_object() ? platform.value("platform", std::string("real platform"))
                                 : std::string("real platform");
  p.met_pct = Get(run.summary, "deadline_met_pct");
  p.measured = static_cast<uint64_t>(Get(run.summary, "measured"));
  const CsvTable table = CsvTable::Read(run.path + "/requests.csv");
  const size_t status = table.Column("status"), latency = table.Column("latency_ms");
  std::vector<double> latencies;
  for (size_t r = 0; r < table.rows(); ++r) {
    if (table.Cell(r, status) == "200") latencies.push_back(table.Number(r, latency));
  }
  if (!latencies.empty()) {
    p.p50_ms = Percentile(latencies, 50);
    p.p99_ms = Percentile(latencies, 99);
  }
  for (const Point& point : EmpiricalCdf(latencies, max_points).points) p.cdf.push_back(point);
  return p;
}

}  // namespace

Section FaasSection(const std::vector<const RunDir*>& runs, size_t max_points,
                    std::vector<Json>* metrics) {
  Section section;
  section.heading = "Serverless runs (jigsaw faas-sim, jigsaw faas-load)";
  Json met_rows = Json::array(), cdf_rows = Json::array();
  std::vector<std::string> nothing_measured;
  for (const RunDir* run : runs) {
    const bool simulated = run->kind == RunKind::kFaasSim;
    const std::vector<PlatformData> platforms =
        simulated ? ReadFaasSim(*run) : std::vector<PlatformData>{ReadFaasLoad(*run, max_points)};
    Json row;
    for (const PlatformData& p : platforms) {
      row[p.label + "_measured"] = p.measured;
      if (p.measured == 0) {
        nothing_measured.push_back(run->name + " " + p.label);
        continue;
      }
      row[p.label + "_met_pct"] = RoundTo(p.met_pct, 3);
      row[p.label + "_p99_ms"] = RoundTo(p.p99_ms, 3);
      met_rows.push_back({{"run", run->name}, {"platform", p.label}, {"met_pct", p.met_pct}});
      for (const Point& point : p.cdf) {
        cdf_rows.push_back({{"run", run->name},
                            {"platform", p.label},
                            {"latency_ms", point.x},
                            {"fraction", point.y}});
      }
    }
    metrics->push_back(row);
  }
  AddChart(&section, GroupedBarsSpec("Requests that met their deadline, per platform (%)",
                                     std::move(met_rows), {"platform", "platform"},
                                     {"met_pct", "deadline met (%)"}, "run"));
  LineOptions by_platform = ColorBy("run", true);
  by_platform.facet = "platform";
  AddChart(&section, LineSpec("Request latency CDF per platform (measured requests)",
                              std::move(cdf_rows), {"latency_ms", "latency (ms)", true},
                              {"fraction", "fraction of requests"}, by_platform));
  if (!nothing_measured.empty()) {
    AddNote(&section, "Measured nothing (every request arrived during the warm-up): " +
                          JoinNames(nothing_measured) + ".");
  }
  return section;
}

}  // namespace jigsaw::report
