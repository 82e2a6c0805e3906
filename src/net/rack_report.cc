#include "net/rack_report.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "core/stats.h"
#include "net/homa.h"
#include "net/pl2.h"
#include "net/rack_options.h"

namespace jigsaw::net {
namespace {

Json LatencyJson(const std::vector<double>& values, uint64_t unfinished) {
  Json json;
  json["count"] = values.size() + unfinished;
  json["unfinished"] = unfinished;
  if (values.empty()) {
    json["p50_us"] = Json();
    json["p99_us"] = Json();
    json["p999_us"] = Json();
    return json;
  }
  json["p50_us"] = RoundTo(Percentile(values, 50), 3);
  json["p99_us"] = RoundTo(Percentile(values, 99), 3);
  json["p999_us"] = RoundTo(Percentile(values, 99.9), 3);
  json["max_us"] = RoundTo(Max(values), 3);
  return json;
}

// RPC latency by response size; unfinished RPCs are counted, never averaged in.
Json RpcJson(const std::vector<RpcRecord>& rpcs) {
  const std::vector<std::pair<const char*, uint64_t>> buckets = {
      {"le_1KB", 1000}, {"le_10KB", 10'000}, {"le_100KB", 100'000}, {"gt_100KB", UINT64_MAX}};
  std::vector<std::vector<double>> by_bucket(buckets.size());
  std::vector<uint64_t> unfinished_by_bucket(buckets.size(), 0);
  std::vector<double> all;
  uint64_t unfinished = 0;
  for (const RpcRecord& rpc : rpcs) {
    size_t b = 0;
    while (rpc.response_bytes > buckets[b].second) ++b;
    if (rpc.done < 0) {
      ++unfinished;
      ++unfinished_by_bucket[b];
      continue;
    }
    const double latency = ToMicroseconds(rpc.done - rpc.issued);
    all.push_back(latency);
    by_bucket[b].push_back(latency);
  }
  Json json = LatencyJson(all, unfinished);
  Json bucket_json;
  for (size_t b = 0; b < buckets.size(); ++b) {
    bucket_json[buckets[b].first] = LatencyJson(by_bucket[b], unfinished_by_bucket[b]);
  }
  json["by_response_size"] = bucket_json;
  return json;
}

Json MlJson(const RackWorkloadSpec& spec, const RackResult& result) {
  Json ml;
  ml["bytes"] = spec.ml_bytes;
  ml["hosts"] = spec.ml_bytes > 0 ? spec.ml_hosts : 0;
  ml["placement"] = EnumNameOf(kMlPlacements, spec.ml_with_server);
  ml["pattern"] = EnumNameOf(kMlPatterns, spec.ml_pattern);
  std::vector<double> iterations;
  for (Time t : result.ml_iterations) iterations.push_back(RoundedMicroseconds(t));
  ml["iterations"] = iterations.size();
  ml["iteration_p50_us"] =
      iterations.empty() ? Json() : Json(RoundTo(Percentile(iterations, 50), 3));
  ml["iteration_p99_us"] =
      iterations.empty() ? Json() : Json(RoundTo(Percentile(iterations, 99), 3));
  ml["iteration_times_us"] = iterations;
  return ml;
}

Json SwitchPortsJson(const Network& network) {
  Json ports = Json::array();
  for (const PortReport& port : network.SwitchPorts()) {
    Json p;
    p["switch"] = port.switch_node;
    p["to_node"] = port.peer_node;
    p["max_queue_bytes"] = port.max_queue_bytes;
    p["mean_queue_bytes"] = RoundTo(port.avg_queue_bytes, 1);
    p["tx_bytes"] = port.tx_bytes;
    ports.push_back(std::move(p));
  }
  return ports;
}

// The host transport's counters, under "pl2" or "homa"; none for the RDMA queue pairs.
void AddTransportJson(const Network& network, const NetConfig& config, Json* rack) {
  if (const auto* pl2 = dynamic_cast<const Pl2Transport*>(network.transport())) {
    Json j;
    j["requests"] = pl2->stats().requests;
    j["grants"] = pl2->stats().grants;
    j["rejects"] = pl2->stats().rejects;
    j["max_host_backlog_bytes"] = pl2->stats().max_host_backlog_bytes;
    j["max_start_lateness_us"] = RoundedMicroseconds(pl2->stats().max_grant_lateness);
    j["queue_bound_bytes"] = Pl2Transport::QueueBound(config);
    (*rack)["pl2"] = j;
  }
  if (const auto* homa = dynamic_cast<const HomaTransport*>(network.transport())) {
    Json j;
    j["grants"] = homa->stats().grants;
    j["resend_requests"] = homa->stats().resend_requests;
    j["sender_timeouts"] = homa->stats().sender_timeouts;
    j["duplicate_packets"] = homa->stats().duplicate_packets;
    (*rack)["homa"] = j;
  }
}

}  // namespace

Json RackJson(const RackWorkloadSpec& spec, const RackResult& result, const Network& network,
              const NetConfig& config) {
  Json rack;
  rack["load"] = spec.load;
  rack["rpc_load"] = spec.rpc_load;
  rack["hot_host"] = spec.hot_host;
  rack["duration_us"] = RoundedMicroseconds(spec.duration);
  rack["rpc"] = RpcJson(result.rpcs);
  Json bulk;
  bulk["messages"] = result.bulk_messages;
  bulk["bytes"] = result.bulk_bytes;
  bulk["delivered"] = result.bulk_delivered;
  rack["bulk"] = bulk;
  rack["ml"] = MlJson(spec, result);
  rack["switch_ports"] = SwitchPortsJson(network);
  AddTransportJson(network, config, &rack);
  return rack;
}

}  // namespace jigsaw::net
