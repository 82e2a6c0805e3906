// Charts of `jigsaw serve-bench` runs from their summary.json: request latency (mean, p50, p99,
// max), accuracy and agreement with the reference, and at which block requests were answered
// (early exits per layer: answered_after_blocks[k] requests after k blocks; 0: before the first
// block, e.g. an exact-match hit).
#include <utility>

#include "core/output.h"
#include "report/charts.h"
#include "report/sections.h"

namespace jigsaw::report {
namespace {

bool IsNumber(const Json& object, const char* key) {
  return object.contains(key) && object[key].is_number();
}

}  // namespace

Section ServeBenchSection(const std::vector<const RunDir*>& runs, size_t max_points,
                          std::vector<Json>* metrics) {
  Section section;
  section.heading = "Inference serving runs (jigsaw serve-bench)";
  Json latency_rows = Json::array(), quality_rows = Json::array(), exit_rows = Json::array();
  for (const RunDir* run : runs) {
    const Json& s = run->summary;
    Json row;
    for (const char* key : {"cache", "stream", "sent", "ok", "failed", "throughput", "p50_ms",
                            "p99_ms", "accuracy", "agreement", "mean_blocks"}) {
      if (s.contains(key) && !s[key].is_null()) {
        // serve-bench writes full doubles: the table shows 3 decimals, as the other kinds do.
        row[key] = s[key].is_number_float() ? Json(RoundTo(s[key].get<double>(), 3)) : s[key];
      }
    }
    metrics->push_back(row);
    for (const auto& [key, label] :
         {std::pair{"mean_ms", "mean"}, {"p50_ms", "p50"}, {"p99_ms", "p99"}, {"max_ms", "max"}}) {
      if (IsNumber(s, key)) {
        latency_rows.push_back({{"run", run->name}, {"statistic", label}, {"ms", s[key]}});
      }
    }
    for (const char* key : {"accuracy", "agreement"}) {
      // agreement is null (or, in older outputs, negative) without a --reference.
      if (IsNumber(s, key) && s[key].get<double>() >= 0) {
        quality_rows.push_back({{"run", run->name}, {"measure", key}, {"share", s[key]}});
      }
    }
    if (s.contains("answered_after_blocks") && s["answered_after_blocks"].is_array()) {
      const Json& after = s["answered_after_blocks"];
      double total = 0;
      for (const Json& count : after) total += count.get<double>();
      for (size_t k = 0; k < after.size(); ++k) {
        exit_rows.push_back({{"run", run->name},
                             {"blocks", static_cast<int>(k)},
                             {"share", total > 0 ? after[k].get<double>() / total : 0.0}});
      }
    }
  }
  Json latency = GroupedBarsSpec("Request latency (ms)", std::move(latency_rows),
                                 {"statistic", "statistic"}, {"ms", "latency (ms)"}, "run");
  latency["encoding"]["x"]["sort"] = {"mean", "p50", "p99", "max"};
  AddChart(&section, std::move(latency));
  AddChart(&section, GroupedBarsSpec("Accuracy, and agreement with the uncached reference",
                                     std::move(quality_rows), {"measure", "measure"},
                                     {"share", "share"}, "run"));
  AddChart(&section, GroupedBarsSpec("Requests answered after k blocks (early exits per layer)",
                                     std::move(exit_rows), {"blocks", "blocks run"},
                                     {"share", "share of requests"}, "run"));
  return section;
}

}  // namespace jigsaw::report
