#include "net/run_outputs.h"

#include <filesystem>
#include <sstream>
#include <system_error>
#include <vector>

#include "core/stats.h"

namespace jigsaw::net {

FlowsReport MakeFlowsReport(const Network& network) {
  FlowsReport report;
  std::vector<double> fcts;
  std::vector<double> slowdowns;
  std::ostringstream csv;
  csv << "flow,src,dst,bytes,start_us,end_us,fct_us,ideal_fct_us,slowdown\n";
  for (size_t f = 0; f < network.num_flows(); ++f) {
    const Flow& flow = network.flow(static_cast<uint32_t>(f));
    csv << f << ',' << flow.src_host << ',' << flow.dst_host << ',' << flow.bytes << ','
        << FormatFixed(ToMicroseconds(flow.start), 3) << ',';
    const std::string ideal =
        flow.ideal_fct > 0 ? FormatFixed(ToMicroseconds(flow.ideal_fct), 3) : "";
    if (flow.delivered < 0) {
      ++report.unfinished;
      csv << ",," << ideal << ",\n";
      continue;
    }
    const double fct = ToMicroseconds(flow.delivered - flow.start);
    fcts.push_back(fct);
    csv << FormatFixed(ToMicroseconds(flow.delivered), 3) << ',' << FormatFixed(fct, 3) << ','
        << ideal << ',';
    if (flow.ideal_fct > 0) {
      const double slowdown =
          static_cast<double>(flow.delivered - flow.start) / static_cast<double>(flow.ideal_fct);
      slowdowns.push_back(slowdown);
      csv << FormatFixed(slowdown, 4);
    }
    csv << '\n';
  }
  report.csv = csv.str();
  Json& flows = report.summary;
  flows["count"] = network.num_flows();
  flows["unfinished"] = report.unfinished;
  flows["fct_mean_us"] = RoundTo(Mean(fcts), 3);
  flows["fct_p99_us"] = RoundTo(Percentile(fcts, 99), 3);
  flows["fct_max_us"] = RoundTo(Max(fcts), 3);
  auto rounded = [&](double value) { return slowdowns.empty() ? Json() : Json(RoundTo(value, 4)); };
  flows["slowdown_mean"] = rounded(slowdowns.empty() ? 0 : Mean(slowdowns));
  flows["slowdown_p50"] = rounded(slowdowns.empty() ? 0 : Percentile(slowdowns, 50));
  flows["slowdown_p99"] = rounded(slowdowns.empty() ? 0 : Percentile(slowdowns, 99));
  flows["slowdown_max"] = rounded(slowdowns.empty() ? 0 : Max(slowdowns));
  return report;
}

Json NetStatsJson(const NetStats& stats) {
  Json json;
  json["simulated_time_us"] = RoundedMicroseconds(stats.end);  // last traffic or CC event
  json["last_event_us"] = RoundedMicroseconds(stats.now);
  json["events"] = stats.events;
  json["data_packets"] = stats.data_packets;
  json["ack_packets"] = stats.ack_packets;
  json["retransmitted_packets"] = stats.retransmitted_packets;
  json["drops"] = stats.drops;
  json["payload_sent_bytes"] = stats.payload_sent;
  json["payload_received_bytes"] = stats.payload_received;
  json["payload_dropped_bytes"] = stats.payload_dropped;
  json["ecn_marks"] = stats.ecn_marks;
  json["pfc_pause_frames"] = stats.pause_frames;
  json["pfc_resume_frames"] = stats.resume_frames;
  json["pfc_paused_ports"] = stats.ports_ever_paused;
  json["pfc_pause_time_us"] = RoundedMicroseconds(stats.pause_time);
  json["max_queue_bytes"] = stats.max_queue_bytes;
  json["avg_queue_bytes"] = RoundTo(stats.avg_queue_bytes, 1);
  json["max_nic_control_packets"] = stats.max_nic_control_packets;
  json["max_switch_control_packets"] = stats.max_switch_control_packets;
  json["rate_cuts"] = stats.rate_cuts;
  json["rate_cut_flows"] = stats.rate_cut_flows;
  json["pfc_blocked_flows"] = stats.pfc_blocked_flows;
  json["hol_victim_flows"] = stats.hol_victim_flows;
  json["pfc_pause_roots"] = stats.pause_roots;
  return json;
}

Json WriteTimeSeries(const Network& network, Time sample_interval, bool all,
                     const std::string& dir) {
  Json j;
  j["sample_interval_us"] = RoundedMicroseconds(sample_interval);
  j["ports"] = all ? "all" : "nonzero";
  j["queue_rows"] = network.queue_samples().size();
  j["rate_rows"] = network.rate_samples().size();
  const std::vector<PauseInterval> pauses = network.PauseIntervals();
  j["pfc_rows"] = pauses.size();
  ResultSet series(dir);
  std::string queue = "time_us,node,port,queue_bytes\n";
  for (const QueueSample& q : network.queue_samples()) {
    queue += FormatFixed(ToMicroseconds(q.time), 3) + ',' + std::to_string(q.node) + ',' +
             std::to_string(q.port) + ',' + std::to_string(q.bytes) + '\n';
  }
  std::string pfc = "node,port,priority,start_us,end_us\n";
  for (const PauseInterval& p : pauses) {
    pfc += std::to_string(p.node) + ',' + std::to_string(p.port) + ',' +
           std::to_string(p.priority) + ',' + FormatFixed(ToMicroseconds(p.start), 3) + ',' +
           FormatFixed(ToMicroseconds(p.end), 3) + '\n';
  }
  std::string rate = "time_us,flow_id,rate_gbps\n";
  for (const RateSample& r : network.rate_samples()) {
    rate += FormatFixed(ToMicroseconds(r.time), 3) + ',' + std::to_string(r.flow) + ',' +
            FormatFixed(r.rate_bps / 1e9, 3) + '\n';
  }
  series.Add("queue.csv", std::move(queue));
  series.Add("pfc.csv", std::move(pfc));
  series.Add("rate.csv", std::move(rate));
  series.Commit();
  return j;
}

void RemoveTimeSeries(const std::string& dir) {
  std::error_code ignored;
  for (const char* name : {"queue.csv", "pfc.csv", "rate.csv"})
    std::filesystem::remove(std::filesystem::path(dir) / name, ignored);
  std::filesystem::remove(dir, ignored);  // only if now empty
}

}  // namespace jigsaw::net
