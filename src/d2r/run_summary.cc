#include "d2r/run_summary.h"

#include "core/result_summary.h"

namespace jigsaw::d2r {
namespace {

std::string Number(const Json& object, const char* key, int decimals) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) return "-";
  return FormatFixed(object[key].get<double>(), decimals);
}

// One scenario: the scheme's own figures (summary.json "schemes", single failure).
std::string SingleLine(const Json& scheme) {
  return "recovery " + Number(scheme, "recovery_us", 1) + " us (bounded " +
         Number(scheme, "recovery_bounded_us", 1) + " us), lost " +
         Number(scheme, "packets_lost", 0) + " packets, " +
         Number(scheme, "flows_violating_policy", 0) + " flows against the policy";
}

// Many scenarios: the distributions over them (AggregateJson).
std::string AggregateLine(const Json& scheme) {
  const Json& recovery = scheme.value("recovery_ms", Json::object());
  const Json& bounded = scheme.value("recovery_bounded_ms", Json::object());
  const Json& lost = scheme.value("packets_lost", Json::object());
  return "recovery median " + Number(recovery, "median", 3) + " ms, p99 " +
         Number(recovery, "p99", 3) + " ms (bounded p99 " + Number(bounded, "p99", 3) +
         " ms), lost " + Number(lost, "total", 0) + ", violation rate " +
         Number(scheme, "violation_rate", 4);
}

ResultSummary Build(const Json& s, const std::string& out, double wall_s) {
  const bool single = s.contains("failure");
  ResultSummary summary("d2r: " + s.value("topology", std::string()) + ", " +
                        Number(s, "scenarios", 0) + " failure scenario(s) (" +
                        s.value("fail", std::string()) + "), " + FormatFixed(wall_s, 2) +
                        " s wall");
  if (single) {
    summary.Add("flows", Number(s, "flows_affected", 0) + " affected, " +
                             Number(s, "flows_recoverable", 0) + " recoverable");
  }
  if (s.contains("schemes") && s["schemes"].is_object()) {
    for (const auto& [name, scheme] : s["schemes"].items()) {
      if (!scheme.is_object()) continue;  // the speed-ups beside the schemes
      summary.Add(name, single ? SingleLine(scheme) : AggregateLine(scheme));
    }
  }
  if (s.contains("d2r_speedup_over_controller")) {
    summary.Add("D2R vs controller", Number(s, "d2r_speedup_over_controller", 1) + "x faster");
  }
  summary.AddFile(out, "summary.json", "every figure above, per scheme");
  summary.AddFile(out, "scenarios.csv", "one row per failure scenario and scheme");
  return summary;
}

}  // namespace

std::string D2rRunSummaryText(const Json& summary, const std::string& out, double wall_s) {
  return Build(summary, out, wall_s).Text();
}

void PrintD2rRunSummary(const Json& summary, const std::string& out, double wall_s) {
  Build(summary, out, wall_s).Print();
}

}  // namespace jigsaw::d2r
