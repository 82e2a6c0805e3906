// `jigsaw net`: the packet-level fabric simulator (src/net) on a topology, with either ASTRA-sim
// workloads (one job per --workload, sharing the fabric), synthetic --traffic, or the PL2 rack
// experiment (--load: memcached-like RPCs, bulk incast and a ring all-reduce, net/rack_workload.h)
// under a --transport; writes summary.json and flows.csv to --out. Wall-clock speed goes to stderr
// only, so equal inputs and seed give byte-identical files.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/output.h"
#include "core/result_set.h"
#include "core/rng.h"
#include "core/stats.h"
#include "core/text_input.h"
#include "core/units.h"
#include "net/chakra_options.h"
#include "net/chakra_report.h"
#include "net/collective.h"
#include "net/flow_file.h"
#include "net/homa.h"
#include "net/job_placement.h"
#include "net/network.h"
#include "net/pl2.h"
#include "net/progress_estimate.h"
#include "net/ps_jobs.h"
#include "net/ps_options.h"
#include "net/ps_report.h"
#include "net/rack_workload.h"
#include "net/run_summary.h"
#include "net/topology.h"
#include "net/traffic.h"
#include "net/workload.h"
#include "net/workload_report.h"

namespace jigsaw {
namespace {

struct NetOptions {
  std::string topology;
  std::string cc = "none";
  std::vector<std::string> workloads;
  std::string traffic;
  std::string flows;  // HPCC flow file
  std::string background;
  std::string background_load = "30%";
  std::string background_start = "0us";
  std::string background_duration = "1ms";
  int background_priority = 0;
  std::vector<std::string> fail_links;
  std::vector<std::string> cc_params;
  bool timeseries_given = false;
  std::string timeseries;  // "" or "nonzero": ports with a queue; "all"
  std::string sample_interval = "10us";
  std::string out = "out/net";
  uint64_t seed = 1;
  int iterations = 1;
  int chunks = 4;
  std::string dims;
  std::string placement = "interleave";
  int max_active = 1;
  double cycle_ns = 1.0;
  std::string window = "on";
  std::string pfc = "on";
  std::string ack_priority = "data";
  std::string nic_order = "rr";
  std::string buffer;  // empty: the topology's (rack) or 32MiB
  int payload = 1000;
  std::string stop;
  bool quiet = false;
  // The rack experiment.
  std::string transport;
  std::string load;
  double rpc_load = 0.05;
  std::string duration = "10ms";
  std::string drain = "5ms";
  std::string ml_bytes = "0";
  int ml_hosts = 8;
  int ml_chunks = 1;
  std::string ml_placement = "away";
  std::string ml_pattern = "ring";
  int homa_overcommit = 4;
  int homa_per_sender = 0;
  std::string pl2_bulk_order = "oldest";
  int egress_shift = -1;
  net::PsJobsOptions ps;      // parameter-server jobs (--ps-*, --host-priority)
  net::ChakraOptions chakra;  // Chakra execution traces (--chakra, --npu-tflops, --chakra-system)
};

// "400%" or "4" -> 4.0.
double ParseLoad(const std::string& text) {
  double load;
  if (ParseRatio(text, 100, &load)) return load;
  throw UsageError("--load '" + Excerpt(text) + "': expected a load like 400% or 4 (0..10000%)");
}

// Applies --transport: which host transport, CC law, PFC and ECN it runs with.
void ApplyTransport(const std::string& name, net::NetConfig* config) {
  config->transport = net::TransportKind::kRdma;
  if (name == "pl2" || name == "homa") {
    config->transport = name == "pl2" ? net::TransportKind::kPl2 : net::TransportKind::kHoma;
    config->pfc = false;
    config->ecn = false;
  } else if (name == "dctcp") {
    config->cc = net::CcMode::kDctcp;
    config->pfc = false;
  } else if (name == "dcqcn") {
    config->cc = net::CcMode::kDcqcn;
    config->pfc = true;
  } else if (name == "lossy") {
    config->cc = net::CcMode::kReno;
    config->pfc = false;
    config->ecn = false;
  } else {
    throw UsageError("--transport '" + Excerpt(name) +
                     "': expected pl2, homa, dctcp, dcqcn or lossy");
  }
}

const char* TransportName(const net::NetConfig& config) {
  switch (config.transport) {
    case net::TransportKind::kPl2:
      return "pl2";
    case net::TransportKind::kHoma:
      return "homa";
    case net::TransportKind::kRdma:
      break;
  }
  return "rdma";
}

Json LatencyJson(std::vector<double> values, uint64_t unfinished) {
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

std::vector<int> ParseDims(const std::string& text) {
  std::vector<int> dims;
  if (text.empty()) return dims;
  for (std::string_view part : SplitFields(text, 'x')) {
    int value = 0;
    try {
      size_t used = 0;
      value = std::stoi(std::string(part), &used);
      if (used != part.size()) value = 0;
    } catch (const std::exception&) {
      value = 0;
    }
    if (value < 1 || value > 1'000'000 || dims.size() >= 8) {
      throw UsageError("--dims '" + Excerpt(text) +
                       "': expected at most 8 sizes of 1..1000000 like 8x16");
    }
    dims.push_back(value);
  }
  return dims;
}

// "30%" or "0.3" -> 0.3, in (0, 1].
double ParseFraction(const std::string& text, const std::string& option) {
  double fraction;
  if (ParseRatio(text, 1, &fraction)) return fraction;
  throw UsageError(option + " '" + Excerpt(text) +
                   "': expected a fraction like 0.3 or 30% (0..100%)");
}

// "A-B@TIME": node ids of the link's ends, and when it fails.
std::pair<std::pair<uint32_t, uint32_t>, net::Time> ParseFailLink(const std::string& text) {
  auto fail = [&]() -> std::pair<std::pair<uint32_t, uint32_t>, net::Time> {
    throw UsageError("--fail-link '" + Excerpt(text) +
                     "': expected NODE-NODE@TIME (node ids of the topology), e.g. 0-16@100us");
  };
  const size_t at = text.find('@');
  const size_t dash = text.find('-');
  if (at == std::string::npos || dash == std::string::npos || dash > at) return fail();
  uint64_t a = 0;
  uint64_t b = 0;
  net::Time time = 0;
  const std::string a_text = text.substr(0, dash);
  const std::string b_text = text.substr(dash + 1, at - dash - 1);
  auto all_digits = [](const std::string& t) {
    return !t.empty() && t.size() <= 9 && t.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!all_digits(a_text) || !all_digits(b_text)) return fail();
  a = std::stoull(a_text);
  b = std::stoull(b_text);
  if (!net::ParseDuration(text.substr(at + 1), &time) || time > 1000 * net::kSecond) return fail();
  return {{static_cast<uint32_t>(a), static_cast<uint32_t>(b)}, time};
}

bool ParseOnOff(const std::string& text, const std::string& option) {
  if (text == "on") return true;
  if (text == "off") return false;
  throw UsageError(option + " '" + Excerpt(text) + "': expected on or off");
}

double Us(net::Time t) { return RoundTo(net::ToMicroseconds(t), 3); }

Json StatsJson(const net::NetStats& stats) {
  Json json;
  json["simulated_time_us"] = Us(stats.end);  // last traffic or CC event, not idle timers
  json["last_event_us"] = Us(stats.now);
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
  json["pfc_pause_time_us"] = Us(stats.pause_time);
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

int RunNet(const NetOptions& options) {
  const bool rack = !options.load.empty();
  const int sources =
      static_cast<int>(!options.workloads.empty()) + static_cast<int>(!options.traffic.empty()) +
      static_cast<int>(!options.flows.empty()) + static_cast<int>(rack) +
      static_cast<int>(options.ps.any_given()) + static_cast<int>(options.chakra.any_given());
  if (sources > 1 || (sources == 0 && options.background.empty()) ||
      (rack && !options.background.empty())) {
    throw UsageError(
        "give one of --workload (one or more), --chakra (one or more), --traffic, --flows, "
        "--ps-jobs or --load, or only --background (which may also join any of them but --load)");
  }
  net::NetConfig config;
  if (!net::ParseCcMode(options.cc, &config.cc)) {
    throw UsageError("--cc '" + Excerpt(options.cc) +
                     "': expected none, dcqcn, dctcp, timely or hpcc");
  }
  config.seed = options.seed;
  config.window = ParseOnOff(options.window, "--window");
  config.pfc = ParseOnOff(options.pfc, "--pfc");
  if (!net::ParseNicOrder(options.nic_order, &config.nic_order)) {
    throw UsageError("--nic-order '" + Excerpt(options.nic_order) + "': expected one of " +
                     net::NicOrderNames());
  }
  if (!net::ParseAckPriority(options.ack_priority, &config.ack_priority)) {
    throw UsageError("--ack-priority '" + Excerpt(options.ack_priority) +
                     "': expected data or high");
  }
  if (!options.buffer.empty() &&
      (!net::ParseBytes(options.buffer, &config.buffer_bytes) || config.buffer_bytes < 65536)) {
    throw UsageError("--buffer '" + Excerpt(options.buffer) +
                     "': expected a size of at least 64KiB");
  }
  if (options.payload < 64 || options.payload > 9000)
    throw UsageError("--payload must be 64..9000");
  config.payload_bytes = static_cast<uint32_t>(options.payload);
  if (!options.transport.empty()) ApplyTransport(options.transport, &config);
  RequireCountInRange("--homa-overcommit", options.homa_overcommit, 1, net::kNumPriorities);
  RequireCountInRange("--homa-per-sender", options.homa_per_sender, 0, net::kNumPriorities);
  config.homa.overcommit = options.homa_overcommit;
  config.homa.max_per_sender = options.homa_per_sender;
  if (options.pl2_bulk_order != "shared" && options.pl2_bulk_order != "oldest") {
    throw UsageError("--pl2-bulk-order '" + Excerpt(options.pl2_bulk_order) +
                     "': expected shared or oldest");
  }
  config.pl2.bulk_oldest_first = options.pl2_bulk_order == "oldest";
  RequireCountInRange("--egress-shift", options.egress_shift, -1, 16);
  config.egress_shift = options.egress_shift;
  Json cc_params;
  for (const std::string& param : options.cc_params) {
    const size_t equals = param.find('=');
    if (equals == std::string::npos) {
      throw UsageError("--cc-param '" + Excerpt(param) + "': expected NAME=VALUE, NAME one of " +
                       net::CcParamNames());
    }
    net::SetCcParam(std::string_view(param).substr(0, equals),
                    std::string_view(param).substr(equals + 1), &config);
    cc_params[param.substr(0, equals)] = param.substr(equals + 1);
  }
  config.progress = !options.quiet;
  net::Time stop = net::kNever;
  if (!options.stop.empty() && !net::ParseDuration(options.stop, &stop)) {
    throw UsageError("--stop '" + Excerpt(options.stop) + "': expected a duration like 10ms");
  }
  RequireCountInRange("--iterations", options.iterations, 1, kMaxNetIterations);
  RequireCountInRange("--chunks", options.chunks, 1, kMaxChunks);
  RequireCountInRange("--max-active", options.max_active, 1, kMaxActiveCollectives);
  RequireOptionInRange("--cycle-ns", options.cycle_ns, 0, kMaxCycleNs);

  net::Time sample_interval = 0;
  if (options.timeseries_given) {
    if (!options.timeseries.empty() && options.timeseries != "nonzero" &&
        options.timeseries != "all") {
      throw UsageError("--timeseries '" + Excerpt(options.timeseries) +
                       "': expected nothing, nonzero or all");
    }
    if (!net::ParseDuration(options.sample_interval, &sample_interval) || sample_interval <= 0 ||
        sample_interval > net::kSecond) {
      throw UsageError("--sample-interval '" + Excerpt(options.sample_interval) +
                       "': expected a positive duration of at most 1s like 10us");
    }
  }
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, net::Time>> failures;
  for (const std::string& text : options.fail_links) failures.push_back(ParseFailLink(text));

  net::Topology topology = net::LoadTopology(options.topology);
  if (options.buffer.empty()) {
    config.buffer_bytes =
        topology.switch_buffer_bytes > 0 ? topology.switch_buffer_bytes : uint64_t{32} << 20;
  }
  net::RackWorkloadSpec rack_spec;
  if (rack) {
    rack_spec.load = ParseLoad(options.load);
    RequireOptionInRange("--rpc-load", options.rpc_load, 0, 0.99);
    rack_spec.rpc_load = options.rpc_load;
    if (!net::ParseDuration(options.duration, &rack_spec.duration) || rack_spec.duration <= 0 ||
        rack_spec.duration > 10 * net::kSecond) {
      throw UsageError("--duration '" + Excerpt(options.duration) +
                       "': expected a duration of at most 10s like 10ms");
    }
    if (!net::ParseDuration(options.drain, &rack_spec.drain) ||
        rack_spec.drain > 10 * net::kSecond) {
      throw UsageError("--drain '" + Excerpt(options.drain) +
                       "': expected a duration of at most 10s like 5ms");
    }
    if (!net::ParseBytes(options.ml_bytes, &rack_spec.ml_bytes) ||
        rack_spec.ml_bytes > (uint64_t{1} << 40)) {
      throw UsageError("--ml-bytes '" + Excerpt(options.ml_bytes) +
                       "': expected a size like 102MB (0 = no training job)");
    }
    RequireCountInRange("--ml-hosts", options.ml_hosts, 2, 4096);
    RequireCountInRange("--ml-chunks", options.ml_chunks, 1, kMaxChunks);
    rack_spec.ml_hosts = static_cast<uint32_t>(options.ml_hosts);
    rack_spec.ml_chunks = options.ml_chunks;
    if (options.ml_placement != "away" && options.ml_placement != "with-server") {
      throw UsageError("--ml-placement '" + Excerpt(options.ml_placement) +
                       "': expected away or with-server");
    }
    rack_spec.ml_with_server = options.ml_placement == "with-server";
    if (options.ml_pattern != "ring" && options.ml_pattern != "ps") {
      throw UsageError("--ml-pattern '" + Excerpt(options.ml_pattern) +
                       "': expected ring or ps (parameter server)");
    }
    rack_spec.ml_pattern =
        options.ml_pattern == "ps" ? net::MlPattern::kParameterServer : net::MlPattern::kRing;
    rack_spec.seed = options.seed;
  }
  std::vector<net::Workload> workloads;
  for (const std::string& path : options.workloads)
    workloads.push_back(net::ReadAstraWorkload(path));
  std::vector<int> dims = ParseDims(options.dims);
  const net::JobPlacement placement = net::ParseJobPlacement(options.placement);
  std::optional<net::PsJobsSpec> ps;
  if (options.ps.any_given()) ps = options.ps.Validate();
  std::optional<net::ChakraRunSpec> chakra;
  if (options.chakra.any_given()) chakra = options.chakra.Validate();
  std::string collectives_csv;

  std::vector<net::FlowSpec> given_flows;
  if (!options.flows.empty()) given_flows = net::ReadFlowFile(options.flows, topology);
  std::optional<net::SizeCdf> background_cdf;
  net::BackgroundSpec background;
  if (!options.background.empty()) {
    background_cdf = net::SizeCdf::Load(options.background);
    background.load = ParseFraction(options.background_load, "--background-load");
    if (!net::ParseDuration(options.background_start, &background.start) ||
        background.start > 1000 * net::kSecond) {
      throw UsageError("--background-start '" + Excerpt(options.background_start) +
                       "': expected a duration like 0us");
    }
    if (!net::ParseDuration(options.background_duration, &background.duration) ||
        background.duration <= 0 || background.duration > 1000 * net::kSecond) {
      throw UsageError("--background-duration '" + Excerpt(options.background_duration) +
                       "': expected a positive duration like 1ms");
    }
    RequireCountInRange("--background-priority", options.background_priority, 0,
                        net::kNumPriorities - 1);
    background.priority = static_cast<uint8_t>(options.background_priority);
    background.seed = options.seed ^ 0x6261636b67726f75ULL;  // its own stream
  }

  MakeDirectories(options.out);
  auto wall_start = std::chrono::steady_clock::now();
  net::Network network(topology, config);
  for (const auto& [nodes, at] : failures) network.FailLink(nodes.first, nodes.second, at);
  if (sample_interval > 0) network.EnableTimeSeries(sample_interval, options.timeseries == "all");
  if (background_cdf) {
    std::vector<uint32_t> hosts;
    std::vector<uint64_t> rates;
    for (uint32_t h = 0; h < network.num_hosts(); ++h) {
      hosts.push_back(h);
      rates.push_back(network.host_rate_bps(h));
    }
    for (const net::FlowSpec& f :
         net::GenerateBackground(*background_cdf, background, hosts, rates)) {
      network.AddFlow(f.src_host, f.dst_host, f.bytes, f.start, 0, f.priority);
    }
  }
  for (const net::FlowSpec& f : given_flows) {
    network.AddFlow(f.src_host, f.dst_host, f.bytes, f.start, 0, f.priority);
  }
  Json summary;
  summary["topology"] = options.topology;
  summary["hosts"] = network.num_hosts();
  summary["switches"] = topology.num_switches();
  summary["links"] = topology.links.size();
  summary["transport"] = options.transport.empty() ? TransportName(config) : options.transport;
  summary["cc"] = net::CcModeName(config.cc);
  summary["seed"] = options.seed;
  summary["window"] = config.window;
  summary["pfc"] = config.pfc;
  summary["ack_priority"] = net::AckPriorityName(config.ack_priority);
  summary["nic_order"] = net::NicOrderName(config.nic_order);
  if (!options.cc_params.empty()) summary["cc_params"] = cc_params;
  if (config.egress_shift >= 0) summary["egress_shift"] = config.egress_shift;
  if (config.transport == net::TransportKind::kHoma) {
    summary["homa_overcommit"] = config.homa.overcommit;
    summary["homa_per_sender"] = config.homa.max_per_sender;
  }
  if (config.transport == net::TransportKind::kPl2) {
    summary["pl2_bulk_order"] = options.pl2_bulk_order;
  }

  uint64_t unfinished_jobs = 0;
  if (!workloads.empty()) {
    const auto placed = net::PlaceJobs(network.num_hosts(), static_cast<uint32_t>(workloads.size()),
                                       placement, options.seed);
    std::vector<net::JobSpec> specs(workloads.size());
    for (size_t j = 0; j < workloads.size(); ++j) {
      specs[j] = {workloads[j],     placed[j],         dims, options.chunks, options.iterations,
                  options.cycle_ns, options.max_active};
    }
    network.SetProgressEnd(std::min(
        stop,
        net::EstimatedEndOfJobs(specs, network.num_hosts() > 0 ? network.host_rate_bps(0) : 0)));
    unfinished_jobs =
        net::AddWorkloadJobsJson(specs, net::RunJobs(&network, specs, stop), &summary);
  } else if (ps) {
    unfinished_jobs = net::AddPsJobsJson(*ps, net::RunPsJobs(&network, *ps, stop), &summary);
  } else if (chakra) {
    const std::string progress = sample_interval > 0 ? options.out + "/progress.csv" : "";
    net::ChakraRunOutput run = net::RunChakra(&network, *chakra,
                                              {placement,
                                               options.seed,
                                               dims,
                                               options.chunks,
                                               options.iterations,
                                               stop,
                                               {sample_interval, progress}},
                                              &summary);
    unfinished_jobs = run.unfinished_jobs;
    collectives_csv = std::move(run.collectives_csv);
  } else if (rack) {
    if (rack_spec.ml_bytes > 0 && static_cast<uint32_t>(options.ml_hosts) > network.num_hosts()) {
      throw UsageError("--ml-hosts " + std::to_string(options.ml_hosts) + ": the topology has " +
                       std::to_string(network.num_hosts()) + " hosts");
    }
    network.SetProgressEnd(std::min(stop, rack_spec.duration + rack_spec.drain));
    net::RackResult result = net::RunRackWorkload(&network, rack_spec);
    Json rack_json;
    rack_json["load"] = rack_spec.load;
    rack_json["rpc_load"] = rack_spec.rpc_load;
    rack_json["hot_host"] = rack_spec.hot_host;
    rack_json["duration_us"] = Us(rack_spec.duration);
    // RPC latency by response size; unfinished RPCs are counted, never averaged in.
    const std::vector<std::pair<const char*, uint64_t>> buckets = {
        {"le_1KB", 1000}, {"le_10KB", 10'000}, {"le_100KB", 100'000}, {"gt_100KB", UINT64_MAX}};
    std::vector<std::vector<double>> by_bucket(buckets.size());
    std::vector<uint64_t> unfinished_by_bucket(buckets.size(), 0);
    std::vector<double> all;
    uint64_t rpc_unfinished = 0;
    for (const net::RpcRecord& rpc : result.rpcs) {
      size_t b = 0;
      while (rpc.response_bytes > buckets[b].second) ++b;
      if (rpc.done < 0) {
        ++rpc_unfinished;
        ++unfinished_by_bucket[b];
        continue;
      }
      const double latency = net::ToMicroseconds(rpc.done - rpc.issued);
      all.push_back(latency);
      by_bucket[b].push_back(latency);
    }
    Json rpc_json = LatencyJson(all, rpc_unfinished);
    Json bucket_json;
    for (size_t b = 0; b < buckets.size(); ++b) {
      bucket_json[buckets[b].first] = LatencyJson(by_bucket[b], unfinished_by_bucket[b]);
    }
    rpc_json["by_response_size"] = bucket_json;
    rack_json["rpc"] = rpc_json;
    Json bulk;
    bulk["messages"] = result.bulk_messages;
    bulk["bytes"] = result.bulk_bytes;
    bulk["delivered"] = result.bulk_delivered;
    rack_json["bulk"] = bulk;
    Json ml;
    ml["bytes"] = rack_spec.ml_bytes;
    ml["hosts"] = rack_spec.ml_bytes > 0 ? rack_spec.ml_hosts : 0;
    ml["placement"] = options.ml_placement;
    ml["pattern"] = options.ml_pattern;
    std::vector<double> iterations;
    for (net::Time t : result.ml_iterations) iterations.push_back(Us(t));
    ml["iterations"] = iterations.size();
    ml["iteration_p50_us"] =
        iterations.empty() ? Json() : Json(RoundTo(Percentile(iterations, 50), 3));
    ml["iteration_p99_us"] =
        iterations.empty() ? Json() : Json(RoundTo(Percentile(iterations, 99), 3));
    ml["iteration_times_us"] = iterations;
    rack_json["ml"] = ml;
    Json ports = Json::array();
    for (const net::PortReport& port : network.SwitchPorts()) {
      Json p;
      p["switch"] = port.switch_node;
      p["to_node"] = port.peer_node;
      p["max_queue_bytes"] = port.max_queue_bytes;
      p["mean_queue_bytes"] = RoundTo(port.avg_queue_bytes, 1);
      p["tx_bytes"] = port.tx_bytes;
      ports.push_back(std::move(p));
    }
    rack_json["switch_ports"] = std::move(ports);
    if (const auto* pl2 = dynamic_cast<const net::Pl2Transport*>(network.transport())) {
      Json j;
      j["requests"] = pl2->stats().requests;
      j["grants"] = pl2->stats().grants;
      j["rejects"] = pl2->stats().rejects;
      j["max_host_backlog_bytes"] = pl2->stats().max_host_backlog_bytes;
      j["max_start_lateness_us"] = Us(pl2->stats().max_grant_lateness);
      j["queue_bound_bytes"] = net::Pl2Transport::QueueBound(config);
      rack_json["pl2"] = j;
    }
    if (const auto* homa = dynamic_cast<const net::HomaTransport*>(network.transport())) {
      Json j;
      j["grants"] = homa->stats().grants;
      j["resend_requests"] = homa->stats().resend_requests;
      j["sender_timeouts"] = homa->stats().sender_timeouts;
      j["duplicate_packets"] = homa->stats().duplicate_packets;
      rack_json["homa"] = j;
    }
    summary["rack"] = std::move(rack_json);
  } else {
    if (!options.traffic.empty()) {
      net::TrafficSpec spec = net::ParseTrafficSpec(options.traffic);
      net::AddTraffic(&network, spec, options.seed);
      summary["traffic"] = options.traffic;
    }
    if (!options.flows.empty()) summary["flow_file"] = options.flows;
    network.SetProgressEnd(std::min(stop, net::EstimatedEndOfFlows(network)));
    network.Run(stop);
  }
  if (background_cdf) {
    Json j;
    j["cdf"] = background_cdf->name();
    j["mean_flow_bytes"] = RoundTo(background_cdf->Mean(), 1);
    j["load"] = background.load;
    j["start_us"] = Us(background.start);
    j["duration_us"] = Us(background.duration);
    j["priority"] = background.priority;
    summary["background"] = j;
  }
  if (!failures.empty()) {
    Json list = Json::array();
    for (const auto& [nodes, at] : failures) {
      Json f;
      f["a"] = nodes.first;
      f["b"] = nodes.second;
      f["at_us"] = Us(at);
      list.push_back(std::move(f));
    }
    summary["link_failures"] = std::move(list);
  }

  std::vector<double> fcts;
  std::vector<double> slowdowns;
  uint64_t unfinished = 0;
  std::ostringstream csv;
  csv << "flow,src,dst,bytes,start_us,end_us,fct_us,ideal_fct_us,slowdown\n";
  for (size_t f = 0; f < network.num_flows(); ++f) {
    const net::Flow& flow = network.flow(static_cast<uint32_t>(f));
    csv << f << ',' << flow.src_host << ',' << flow.dst_host << ',' << flow.bytes << ','
        << FormatFixed(net::ToMicroseconds(flow.start), 3) << ',';
    const std::string ideal =
        flow.ideal_fct > 0 ? FormatFixed(net::ToMicroseconds(flow.ideal_fct), 3) : "";
    if (flow.delivered >= 0) {
      double fct = net::ToMicroseconds(flow.delivered - flow.start);
      fcts.push_back(fct);
      csv << FormatFixed(net::ToMicroseconds(flow.delivered), 3) << ',' << FormatFixed(fct, 3)
          << ',' << ideal << ',';
      if (flow.ideal_fct > 0) {
        const double slowdown =
            static_cast<double>(flow.delivered - flow.start) / static_cast<double>(flow.ideal_fct);
        slowdowns.push_back(slowdown);
        csv << FormatFixed(slowdown, 4);
      }
      csv << '\n';
    } else {
      ++unfinished;
      csv << ",," << ideal << ",\n";
    }
  }
  net::NetStats stats = network.Stats();
  Json flows;
  flows["count"] = network.num_flows();
  flows["unfinished"] = unfinished;
  flows["fct_mean_us"] = RoundTo(Mean(fcts), 3);
  flows["fct_p99_us"] = RoundTo(Percentile(fcts, 99), 3);
  flows["fct_max_us"] = RoundTo(Max(fcts), 3);
  flows["slowdown_mean"] = slowdowns.empty() ? Json() : Json(RoundTo(Mean(slowdowns), 4));
  flows["slowdown_p50"] = slowdowns.empty() ? Json() : Json(RoundTo(Percentile(slowdowns, 50), 4));
  flows["slowdown_p99"] = slowdowns.empty() ? Json() : Json(RoundTo(Percentile(slowdowns, 99), 4));
  flows["slowdown_max"] = slowdowns.empty() ? Json() : Json(RoundTo(Max(slowdowns), 4));
  summary["flows"] = flows;
  summary["network"] = StatsJson(stats);
  ResultSet results(options.out);  // one unit: never one run's summary beside another's flows
  results.Add("flows.csv", csv.str());
  if (chakra) results.Add("collectives.csv", std::move(collectives_csv));
  const std::filesystem::path series_dir = std::filesystem::path(options.out) / "timeseries";
  if (sample_interval > 0) {
    Json j;
    j["sample_interval_us"] = Us(sample_interval);
    j["ports"] = options.timeseries == "all" ? "all" : "nonzero";
    j["queue_rows"] = network.queue_samples().size();
    j["rate_rows"] = network.rate_samples().size();
    const std::vector<net::PauseInterval> pauses = network.PauseIntervals();
    j["pfc_rows"] = pauses.size();
    summary["timeseries"] = j;
    ResultSet series(series_dir.string());
    std::string queue = "time_us,node,port,queue_bytes\n";
    for (const net::QueueSample& q : network.queue_samples()) {
      queue += FormatFixed(net::ToMicroseconds(q.time), 3) + ',' + std::to_string(q.node) + ',' +
               std::to_string(q.port) + ',' + std::to_string(q.bytes) + '\n';
    }
    std::string pfc = "node,port,priority,start_us,end_us\n";
    for (const net::PauseInterval& p : pauses) {
      pfc += std::to_string(p.node) + ',' + std::to_string(p.port) + ',' +
             std::to_string(p.priority) + ',' + FormatFixed(net::ToMicroseconds(p.start), 3) + ',' +
             FormatFixed(net::ToMicroseconds(p.end), 3) + '\n';
    }
    std::string rate = "time_us,flow_id,rate_gbps\n";
    for (const net::RateSample& r : network.rate_samples()) {
      rate += FormatFixed(net::ToMicroseconds(r.time), 3) + ',' + std::to_string(r.flow) + ',' +
              FormatFixed(r.rate_bps / 1e9, 3) + '\n';
    }
    series.Add("queue.csv", std::move(queue));
    series.Add("pfc.csv", std::move(pfc));
    series.Add("rate.csv", std::move(rate));
    series.Commit();
  } else {
    // A previous run's series must not sit beside this run's summary.
    std::error_code ignored;
    for (const char* name : {"queue.csv", "pfc.csv", "rate.csv"})
      std::filesystem::remove(series_dir / name, ignored);
    std::filesystem::remove(series_dir, ignored);  // only if now empty
  }
  for (const char* name : {"collectives.csv", "progress.csv"}) {  // nor its trace outputs
    std::error_code ignored;
    if (!chakra || (name[0] == 'p' && sample_interval == 0)) {
      std::filesystem::remove(std::filesystem::path(options.out) / name, ignored);
    }
  }
  results.Add("summary.json", summary.dump(2) + "\n");
  results.Commit();

  double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!options.quiet) net::PrintNetRunSummary(summary, options.out, wall);
  if (!rack && (unfinished > 0 || unfinished_jobs > 0)) {
    // Exit 3: the outputs are written, but the run ended (--stop, or no events left) before
    // every flow and job finished; a partial run is never reported as success.
    std::fprintf(stderr,
                 "jigsaw: net: stopped at %.3f us with %llu of %zu flows and %llu job(s) "
                 "unfinished (exit 3)\n",
                 net::ToMicroseconds(stats.now), static_cast<unsigned long long>(unfinished),
                 network.num_flows(), static_cast<unsigned long long>(unfinished_jobs));
    return 3;
  }
  return 0;
}

}  // namespace

void AddNetCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<NetOptions>();
  CLI::App* command = app.add_subcommand(
      "net", "packet-level RoCE fabric simulator (PFC, ECN, DCQCN/DCTCP/TIMELY/HPCC, collectives)");
  command
      ->add_option(
          "--topology", options->topology,
          "ns-3/HPCC topology file, or rack:hosts=32,gbps=100,delay=500ns,buffer=16MiB, or "
          "fattree:k=16,rate=100Gbps,delay=1us, or "
          "clos:leaves=8,spines=8,hosts=16,rate=200Gbps,host_delay=5us,fabric_delay=12.5us")
      ->required();
  command->add_option("--cc", options->cc,
                      "none (line rate + PFC), dcqcn, dctcp, timely, hpcc, reno (TCP-like AIMD)");
  command->add_option("--cc-param", options->cc_params,
                      std::string("set a congestion-control parameter, e.g. hpcc.rate_ai=500Mbps; "
                                  "repeatable; names: ") +
                          net::CcParamNames());
  command->add_option("--transport", options->transport,
                      "pl2, homa, dctcp (no PFC), dcqcn (PFC), lossy (TCP-like, no PFC); "
                      "overrides --cc/--pfc");
  command->add_option("--load", options->load,
                      "PL2 rack experiment: offered load into the hot host, e.g. 400%");
  command->add_option("--rpc-load", options->rpc_load,
                      "memcached responses as a fraction of a link (default 0.05)");
  command->add_option("--duration", options->duration, "rack experiment arrivals window (10ms)");
  command->add_option("--drain", options->drain, "extra time for answers after it (5ms)");
  command->add_option("--ml-bytes", options->ml_bytes,
                      "model size per iteration, e.g. 102MB (ResNet-50); 0 = none");
  command->add_option("--ml-hosts", options->ml_hosts, "training hosts (default 8)");
  command->add_option("--ml-chunks", options->ml_chunks,
                      "all-reduce pipelined chunks, or parameter-server model shards (1)");
  command->add_option("--homa-overcommit", options->homa_overcommit,
                      "Homa-like: messages a receiver grants to at once (4)");
  command->add_option("--homa-per-sender", options->homa_per_sender,
                      "Homa-like: of those, at most this many per sender (0 = no limit)");
  command->add_option("--pl2-bulk-order", options->pl2_bulk_order,
                      "PL2 senders: oldest (per destination only the oldest bulk message asks; "
                      "the default) or shared (every bulk message asks)");
  command->add_option("--ml-pattern", options->ml_pattern,
                      "ring (all-reduce) or ps (parameter server on the first training host, "
                      "the others push gradients and pull parameters)");
  command->add_option("--ml-placement", options->ml_placement,
                      "training hosts away from the loaded server (away) or including it "
                      "(with-server)");
  command->add_option("--workload", options->workloads,
                      "ASTRA-sim 1.0 workload file; repeat for jobs sharing the fabric");
  command->add_option(
      "--chakra", options->chakra.prefixes,
      "Chakra execution traces PREFIX.<rank>.et; repeat for jobs sharing the fabric");
  command->add_option("--npu-tflops", options->chakra.npu_tflops,
                      "compute rate for Chakra compute nodes that give FLOPs (num_ops) only");
  command->add_option("--chakra-system", options->chakra.system,
                      "ASTRA-sim system JSON: the collective algorithms (ring; all-to-all direct)");
  command->add_option("--traffic", options->traffic, "permutation:<bytes> or incast:<n>:<bytes>");
  command->add_option("--flows", options->flows,
                      "ns-3/HPCC flow file: count, then 'src dst priority dport bytes start_s' "
                      "lines (node ids)");
  command->add_option("--background", options->background,
                      "Poisson background traffic with flow sizes from websearch, datamining or a "
                      "traffic_gen CDF file ('bytes percent' lines)");
  command->add_option("--background-load", options->background_load,
                      "background load per host as a fraction of its link, e.g. 30% (default)");
  command->add_option("--background-start", options->background_start,
                      "when background flows begin (0us)");
  command->add_option("--background-duration", options->background_duration,
                      "how long background flows keep arriving (1ms)");
  command->add_option("--background-priority", options->background_priority,
                      "traffic class of background flows, 0 (served first, default)..7");
  net::PsJobsOptions& ps = options->ps;
  command->add_option("--ps-jobs", ps.jobs, "parameter-server jobs (docs/tensorlights.md)");
  command->add_option("--ps-workers", ps.workers, "workers per parameter-server job");
  command->add_option("--ps-model", ps.model, "model by name: " + net::PsModelNames());
  command->add_option("--ps-model-bytes", ps.model_bytes,
                      "model size per push and pull, e.g. 1.86MB");
  command->add_option("--ps-compute", ps.compute, "worker compute per iteration, e.g. 20ms (0s)");
  command->add_option("--ps-compute-file", ps.compute_file,
                      "compute samples: a ps-worker CSV (compute_s) or seconds per line");
  command->add_option("--ps-compute-jitter", ps.compute_jitter,
                      "compute x (1 + U(-f, f)) per worker and iteration, e.g. 10%");
  command->add_option("--ps-iterations", ps.iterations, "iterations per job (10)");
  command->add_option("--ps-hosts", ps.ps_hosts,
                      "hosts carrying the PSes: job j on host j mod H (1)");
  command->add_option("--ps-placement", ps.placement,
                      "workers: spread (the W hosts after the PS host, default) or random");
  command->add_option("--host-priority", ps.host_priority,
                      "TensorLights at the PS hosts' NICs: " + tlights::PolicyNames() + " (fifo)");
  command->add_option("--rotate-interval", ps.rotate_interval, "with rotate: 20s (default)");
  command->add_option("--ps-downlink-priority", ps.downlink,
                      "on: switches serve pushes into a PS host in band order too (extension)");
  command->add_option(
      "--fail-link", options->fail_links,
      "take the link between two nodes down at a time, e.g. 0-16@100us; repeatable");
  CLI::Option* timeseries =
      command
          ->add_option(
              "--timeseries", options->timeseries,
              "write timeseries/queue.csv, pfc.csv and rate.csv; queues of ports that held "
              "data (nonzero, default) or of all switch ports (all)")
          ->expected(0, 1);
  command->add_option("--sample-interval", options->sample_interval,
                      "time-series sampling period (10us)");
  command->add_option("--out", options->out, "output folder (summary.json, flows.csv, ...)")
      ->capture_default_str();
  command->add_option("--seed", options->seed, "random seed (ECN marking, permutation)");
  command->add_option("--iterations", options->iterations, "training iterations per job");
  command->add_option("--chunks", options->chunks, "pipelined chunks per collective");
  command->add_option("--dims", options->dims, "logical ring dimensions per job, e.g. 8x16");
  command->add_option("--placement", options->placement,
                      "hosts of the jobs: interleave, block, or random (seeded, unaligned with "
                      "racks)");
  command->add_option("--max-active", options->max_active, "collectives in flight per job");
  command->add_option("--cycle-ns", options->cycle_ns, "nanoseconds per workload compute cycle");
  command->add_option("--window", options->window, "BDP window on|off");
  command->add_option("--pfc", options->pfc, "PFC on|off (off = lossy, go-back-N)");
  command->add_option("--ack-priority", options->ack_priority,
                      "ACK/NACK queue in switches: data (the study's ACK_HIGH_PRIO 0, default: "
                      "behind data, paused by PFC) or high (strict priority, never paused)");
  command->add_option("--nic-order", options->nic_order,
                      std::string("how a host NIC picks among its queue pairs: ") +
                          net::NicOrderNames() +
                          " (rr: per-packet round-robin, default; fifo: oldest first)");
  command->add_option("--egress-shift", options->egress_shift,
                      "without PFC, an egress queue holds at most the free shared buffer >> N "
                      "(dynamic threshold, alpha = 2^-N); -1 = off (default)");
  command->add_option("--buffer", options->buffer,
                      "switch shared buffer, e.g. 32MiB (default: the rack's, else 32MiB)");
  command->add_option("--payload", options->payload, "payload bytes per packet");
  command->add_option("--stop", options->stop, "stop after this much simulated time, e.g. 10ms");
  command->add_flag("--quiet", options->quiet, "no progress or speed lines on stderr");
  command->callback([options, action, timeseries] {
    options->timeseries_given = timeseries->count() > 0;
    options->ps.seed = options->seed;
    *action = [options] { return RunNet(*options); };
  });
}

}  // namespace jigsaw
