#include "net/run_summary.h"

#include "core/progress.h"
#include "core/result_summary.h"

namespace jigsaw::net {
namespace {

std::string Number(const Json& object, const char* key, int decimals) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) return "-";
  return FormatFixed(object[key].get<double>(), decimals);
}

ResultSummary Build(const Json& s, const std::string& out, double wall_s) {
  const Json& network = s.value("network", Json::object());
  const Json& flows = s.value("flows", Json::object());
  std::string transport = s.value("transport", std::string());
  if (transport == "rdma") transport += " " + s.value("cc", std::string());
  ResultSummary summary("net: " + s.value("topology", std::string()) + ", " + transport +
                        ": simulated " + Number(network, "simulated_time_us", 3) + " us in " +
                        FormatFixed(wall_s, 2) + " s wall, " + Number(network, "events", 0) +
                        " events");
  summary.Add("flows",
              Number(flows, "count", 0) + " (" + Number(flows, "unfinished", 0) + " unfinished)");
  summary.Add("FCT", "mean " + Number(flows, "fct_mean_us", 3) + " us, p99 " +
                         Number(flows, "fct_p99_us", 3) + " us, max " +
                         Number(flows, "fct_max_us", 3) + " us");
  if (flows.contains("slowdown_p50") && !flows["slowdown_p50"].is_null()) {
    summary.Add("slowdown", "p50 " + Number(flows, "slowdown_p50", 3) + ", p99 " +
                                Number(flows, "slowdown_p99", 3) + ", max " +
                                Number(flows, "slowdown_max", 3));
  }
  if (s.contains("jobs") && s["jobs"].is_array()) {
    for (size_t j = 0; j < s["jobs"].size(); ++j) {
      const Json& job = s["jobs"][j];
      summary.Add("job " + std::to_string(j) + " " + job.value("workload", std::string()),
                  "iteration " + Number(job, "iteration_time_us", 3) + " us" +
                      (job.value("finished", false) ? "" : " (unfinished)"));
    }
  }
  summary.Add("PFC", Number(network, "pfc_pause_frames", 0) + " pause frames, " +
                         Number(network, "pfc_pause_time_us", 3) + " us paused over ports");
  summary.Add("drops", Number(network, "drops", 0) + " packets; " +
                           Number(network, "retransmitted_packets", 0) + " retransmitted");
  summary.Add("queues", "max " + Number(network, "max_queue_bytes", 0) + " B, mean " +
                            Number(network, "avg_queue_bytes", 1) + " B per busy port");
  summary.AddFile(out, "summary.json", "every figure above, per job and per collective");
  summary.AddFile(out, "flows.csv", "one row per flow: start, end, FCT, slowdown");
  if (s.contains("timeseries")) {
    summary.AddFile(out, "timeseries/", "queue.csv, pfc.csv, rate.csv (--timeseries)");
  }
  return summary;
}

}  // namespace

std::string NetRunSummaryText(const Json& summary, const std::string& out, double wall_s) {
  return Build(summary, out, wall_s).Text();
}

void PrintNetRunSummary(const Json& summary, const std::string& out, double wall_s) {
  Build(summary, out, wall_s).Print();
}

}  // namespace jigsaw::net
