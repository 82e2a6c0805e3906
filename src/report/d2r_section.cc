// Charts of `jigsaw d2r` runs from scenarios.csv (columns: docs/outputs.md): recovery time, plain
// and bounded (docs/d2r.md "Metrics"), per scheme over the failure scenarios with recoverable
// flows, and the packets each scheme lost.
#include <algorithm>
#include <map>

#include "core/stats.h"
#include "report/charts.h"
#include "report/csv_table.h"
#include "report/sections.h"
#include "report/series.h"

namespace jigsaw::report {
namespace {

struct SchemeData {
  std::vector<double> recovery_us, bounded_us;  // scenarios with recoverable flows
  double lost = 0, lost_unavoidable = 0, lost_stranded = 0, violating = 0;
};

// Per scheme, in the order the file lists them.
std::vector<std::pair<std::string, SchemeData>> ReadD2r(const RunDir& run, size_t* scenarios) {
  const CsvTable table = CsvTable::Read(run.path + "/scenarios.csv");
  const size_t scheme = table.Column("scheme"), scenario = table.Column("scenario"),
               recoverable = table.Column("flows_recoverable"),
               recovery = table.Column("recovery_us"), lost = table.Column("lost"),
               unavoidable = table.Column("lost_unavoidable"),
               stranded = table.Column("lost_stranded"),
               violating = table.Column("violating_flows");
  const bool has_bounded = table.Has("recovery_bounded_us");
  std::vector<std::pair<std::string, SchemeData>> schemes;
  std::map<std::string, size_t> index;
  std::map<std::string, bool> seen_scenarios;
  for (size_t r = 0; r < table.rows(); ++r) {
    seen_scenarios[table.Cell(r, scenario)] = true;
    const std::string& name = table.Cell(r, scheme);
    if (!index.count(name)) {
      index[name] = schemes.size();
      schemes.push_back({name, SchemeData{}});
    }
    SchemeData& data = schemes[index[name]].second;
    if (table.Number(r, recoverable) > 0) {
      data.recovery_us.push_back(table.Number(r, recovery));
      if (has_bounded) {
        data.bounded_us.push_back(table.Number(r, table.Column("recovery_bounded_us")));
      }
    }
    data.lost += table.Number(r, lost);
    data.lost_unavoidable += table.Number(r, unavoidable);
    data.lost_stranded += table.Number(r, stranded);
    data.violating += table.Number(r, violating);
  }
  *scenarios = seen_scenarios.size();
  return schemes;
}

}  // namespace

Section D2rSection(const std::vector<const RunDir*>& runs, size_t max_points,
                   std::vector<Json>* metrics) {
  Section section;
  section.heading = "Failure recovery runs (jigsaw d2r)";
  Json cdf_rows = Json::array(), recovery_bars = Json::array(), bounded_bars = Json::array(),
       lost_bars = Json::array();
  std::vector<Series> series;
  std::vector<std::string> panel_order;  // per scheme in file order: recovery, then bounded
  for (const RunDir* run : runs) {
    size_t scenarios = 0;
    const auto schemes = ReadD2r(*run, &scenarios);
    Json row = {{"scenarios", scenarios}};
    for (const auto& [scheme, data] : schemes) {
      for (const auto& [metric, values] :
           {std::pair{"recovery", &data.recovery_us}, {"bounded recovery", &data.bounded_us}}) {
        const std::string panel = scheme + ": " + metric;
        if (std::find(panel_order.begin(), panel_order.end(), panel) == panel_order.end()) {
          panel_order.push_back(panel);
        }
        series.push_back(EmpiricalCdf(*values, max_points));
        for (const Point& p : series.back().points) {
          cdf_rows.push_back(
              {{"run", run->name}, {"panel", panel}, {"recovery_us", p.x}, {"fraction", p.y}});
        }
      }
      if (!data.recovery_us.empty()) {
        recovery_bars.push_back({{"run", run->name},
                                 {"scheme", scheme},
                                 {"recovery_us", RoundTo(Percentile(data.recovery_us, 50), 3)}});
        row[scheme + "_recovery_p50_us"] = RoundTo(Percentile(data.recovery_us, 50), 3);
      }
      if (!data.bounded_us.empty()) {
        bounded_bars.push_back({{"run", run->name},
                                {"scheme", scheme},
                                {"recovery_us", RoundTo(Percentile(data.bounded_us, 50), 3)}});
        row[scheme + "_bounded_p50_us"] = RoundTo(Percentile(data.bounded_us, 50), 3);
      }
      lost_bars.push_back({{"run", run->name}, {"scheme", scheme}, {"lost", data.lost}});
      row[scheme + "_lost"] = data.lost;
      row[scheme + "_lost_unavoidable"] = data.lost_unavoidable;
      row[scheme + "_violating_flows"] = data.violating;
    }
    metrics->push_back(row);
  }
  std::vector<const Series*> pointers;
  for (const Series& s : series) pointers.push_back(&s);
  LineOptions by_panel = ColorBy("run", true);
  by_panel.facet = "panel";
  by_panel.facet_order = panel_order;
  AddChart(&section,
           LineSpec("Recovery time CDF over failure scenarios, per scheme: recovery and bounded "
                    "recovery" +
                        DownsampleNote(pointers, max_points),
                    std::move(cdf_rows), {"recovery_us", "recovery time (us)", true},
                    {"fraction", "fraction of scenarios"}, by_panel));
  AddChart(&section,
           GroupedBarsSpec("Median recovery time per scheme (us)", std::move(recovery_bars),
                           {"scheme", "scheme"}, {"recovery_us", "recovery (us)"}, "run"));
  AddChart(&section, GroupedBarsSpec("Median bounded recovery time per scheme (us; holds within "
                                     "--delay-bound not counted)",
                                     std::move(bounded_bars), {"scheme", "scheme"},
                                     {"recovery_us", "bounded recovery (us)"}, "run"));
  AddChart(&section,
           GroupedBarsSpec("Packets lost per scheme (all scenarios)", std::move(lost_bars),
                           {"scheme", "scheme"}, {"lost", "packets lost"}, "run"));
  return section;
}

}  // namespace jigsaw::report
