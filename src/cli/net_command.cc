// `jigsaw net`: the packet-level RoCE fabric simulator (src/net) on a topology, with either
// ASTRA-sim workloads (one job per --workload, sharing the fabric) or synthetic --traffic; writes
// summary.json and flows.csv to --out. Wall-clock speed goes to stderr only, so equal inputs and
// seed give byte-identical files.
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/output.h"
#include "core/result_set.h"
#include "core/stats.h"
#include "core/text_input.h"
#include "net/collective.h"
#include "net/network.h"
#include "net/topology.h"
#include "net/traffic.h"
#include "net/workload.h"

namespace jigsaw {
namespace {

struct NetOptions {
  std::string topology;
  std::string cc = "none";
  std::vector<std::string> workloads;
  std::string traffic;
  std::string out;
  uint64_t seed = 1;
  int iterations = 1;
  int chunks = 4;
  std::string dims;
  std::string placement = "interleave";
  int max_active = 1;
  double cycle_ns = 1.0;
  std::string window = "on";
  std::string pfc = "on";
  std::string buffer = "32MiB";
  int payload = 1000;
  std::string stop;
  bool quiet = false;
};

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

bool ParseOnOff(const std::string& text, const std::string& option) {
  if (text == "on") return true;
  if (text == "off") return false;
  throw UsageError(option + " '" + Excerpt(text) + "': expected on or off");
}

double Us(net::Time t) { return RoundTo(net::ToMicroseconds(t), 3); }

Json StatsJson(const net::NetStats& stats) {
  Json json;
  json["simulated_time_us"] = Us(stats.now);
  json["events"] = stats.events;
  json["data_packets"] = stats.data_packets;
  json["ack_packets"] = stats.ack_packets;
  json["retransmitted_packets"] = stats.retransmitted_packets;
  json["drops"] = stats.drops;
  json["ecn_marks"] = stats.ecn_marks;
  json["pfc_pause_frames"] = stats.pause_frames;
  json["pfc_resume_frames"] = stats.resume_frames;
  json["pfc_paused_ports"] = stats.ports_ever_paused;
  json["pfc_pause_time_us"] = Us(stats.pause_time);
  json["max_queue_bytes"] = stats.max_queue_bytes;
  json["avg_queue_bytes"] = RoundTo(stats.avg_queue_bytes, 1);
  return json;
}

int RunNet(const NetOptions& options) {
  if (options.workloads.empty() == options.traffic.empty()) {
    throw UsageError("give either --workload (one or more) or --traffic");
  }
  net::NetConfig config;
  if (!net::ParseCcMode(options.cc, &config.cc)) {
    throw UsageError("--cc '" + Excerpt(options.cc) +
                     "': expected none, dcqcn, dctcp, timely or hpcc");
  }
  config.seed = options.seed;
  config.window = ParseOnOff(options.window, "--window");
  config.pfc = ParseOnOff(options.pfc, "--pfc");
  if (!net::ParseBytes(options.buffer, &config.buffer_bytes) || config.buffer_bytes < 65536) {
    throw UsageError("--buffer '" + Excerpt(options.buffer) +
                     "': expected a size of at least 64KiB");
  }
  if (options.payload < 64 || options.payload > 9000)
    throw UsageError("--payload must be 64..9000");
  config.payload_bytes = static_cast<uint32_t>(options.payload);
  config.progress = !options.quiet;
  net::Time stop = net::kNever;
  if (!options.stop.empty() && !net::ParseDuration(options.stop, &stop)) {
    throw UsageError("--stop '" + Excerpt(options.stop) + "': expected a duration like 10ms");
  }
  RequireCountInRange("--iterations", options.iterations, 1, kMaxNetIterations);
  RequireCountInRange("--chunks", options.chunks, 1, kMaxChunks);
  RequireCountInRange("--max-active", options.max_active, 1, kMaxActiveCollectives);
  RequireOptionInRange("--cycle-ns", options.cycle_ns, 0, kMaxCycleNs);

  net::Topology topology = net::LoadTopology(options.topology);
  std::vector<net::Workload> workloads;
  for (const std::string& path : options.workloads)
    workloads.push_back(net::ReadAstraWorkload(path));
  std::vector<int> dims = ParseDims(options.dims);
  if (options.placement != "interleave" && options.placement != "block") {
    throw UsageError("--placement '" + Excerpt(options.placement) +
                     "': expected interleave or block");
  }

  MakeDirectories(options.out);
  auto wall_start = std::chrono::steady_clock::now();
  net::Network network(topology, config);
  Json summary;
  summary["topology"] = options.topology;
  summary["hosts"] = network.num_hosts();
  summary["switches"] = topology.num_switches();
  summary["links"] = topology.links.size();
  summary["cc"] = net::CcModeName(config.cc);
  summary["seed"] = options.seed;
  summary["window"] = config.window;
  summary["pfc"] = config.pfc;

  std::vector<uint64_t> flow_job;  // job per flow when running workloads
  uint64_t unfinished_jobs = 0;
  if (!workloads.empty()) {
    const uint32_t hosts = network.num_hosts();
    const uint32_t jobs = static_cast<uint32_t>(workloads.size());
    const uint32_t per_job = hosts / jobs;
    std::vector<net::JobSpec> specs;
    for (uint32_t j = 0; j < jobs; ++j) {
      net::JobSpec spec;
      spec.workload = workloads[j];
      for (uint32_t r = 0; r < per_job; ++r) {
        spec.hosts.push_back(options.placement == "block" ? j * per_job + r : r * jobs + j);
      }
      spec.dims = dims;
      spec.chunks = options.chunks;
      spec.iterations = options.iterations;
      spec.cycle_ns = options.cycle_ns;
      spec.max_active = options.max_active;
      specs.push_back(std::move(spec));
    }
    std::vector<net::JobResult> results = net::RunJobs(&network, specs, stop);
    Json jobs_json = Json::array();
    for (uint32_t j = 0; j < jobs; ++j) {
      const net::JobResult& result = results[j];
      Json job;
      job["workload"] = result.workload;
      job["hosts"] = result.hosts;
      job["finished"] = result.finished >= 0;
      unfinished_jobs += result.finished < 0;
      std::vector<double> iterations;
      for (net::Time t : result.iteration_times) iterations.push_back(Us(t));
      job["iteration_time_us"] = RoundTo(Mean(iterations), 3);
      job["iteration_times_us"] = iterations;
      std::vector<double> durations;
      Json collectives = Json::array();
      for (const net::CollectiveRecord& r : result.collectives) {
        Json c;
        c["iteration"] = r.iteration;
        c["layer"] = r.layer;
        c["pass"] = r.pass;
        c["type"] = net::CollectiveTypeName(r.type);
        c["bytes"] = r.bytes;
        c["issued_us"] = Us(r.issued);
        c["started_us"] = r.started >= 0 ? Json(Us(r.started)) : Json();
        c["finished_us"] = r.finished >= 0 ? Json(Us(r.finished)) : Json();
        if (r.finished >= 0) {
          c["duration_us"] = Us(r.finished - r.started);
          durations.push_back(Us(r.finished - r.started));
        }
        collectives.push_back(std::move(c));
      }
      job["collective_time_total_us"] =
          RoundTo(durations.empty() ? 0 : Mean(durations) * durations.size(), 3);
      job["collectives"] = std::move(collectives);
      jobs_json.push_back(std::move(job));
    }
    summary["jobs"] = std::move(jobs_json);
  } else {
    net::TrafficSpec spec = net::ParseTrafficSpec(options.traffic);
    net::AddTraffic(&network, spec, options.seed);
    network.Run(stop);
    summary["traffic"] = options.traffic;
  }

  std::vector<double> fcts;
  uint64_t unfinished = 0;
  std::ostringstream csv;
  csv << "flow,src,dst,bytes,start_us,end_us,fct_us\n";
  for (size_t f = 0; f < network.num_flows(); ++f) {
    const net::Flow& flow = network.flow(static_cast<uint32_t>(f));
    csv << f << ',' << flow.src_host << ',' << flow.dst_host << ',' << flow.bytes << ','
        << FormatFixed(net::ToMicroseconds(flow.start), 3) << ',';
    if (flow.delivered >= 0) {
      double fct = net::ToMicroseconds(flow.delivered - flow.start);
      fcts.push_back(fct);
      csv << FormatFixed(net::ToMicroseconds(flow.delivered), 3) << ',' << FormatFixed(fct, 3)
          << '\n';
    } else {
      ++unfinished;
      csv << ",\n";
    }
  }
  net::NetStats stats = network.Stats();
  Json flows;
  flows["count"] = network.num_flows();
  flows["unfinished"] = unfinished;
  flows["fct_mean_us"] = RoundTo(Mean(fcts), 3);
  flows["fct_p99_us"] = RoundTo(Percentile(fcts, 99), 3);
  flows["fct_max_us"] = RoundTo(Max(fcts), 3);
  summary["flows"] = flows;
  summary["network"] = StatsJson(stats);
  ResultSet results(options.out);  // one unit: never one run's summary beside another's flows
  results.Add("summary.json", summary.dump(2) + "\n");
  results.Add("flows.csv", csv.str());
  results.Commit();

  double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!options.quiet) {
    std::fprintf(stderr,
                 "net: %s %s: simulated %.3f us in %.2f s wall (%.0f events/s, slowdown %.0fx), "
                 "%llu events\n",
                 options.topology.c_str(), net::CcModeName(config.cc),
                 net::ToMicroseconds(stats.now), wall, stats.events / std::max(wall, 1e-9),
                 wall / std::max(static_cast<double>(stats.now) * 1e-12, 1e-18),
                 static_cast<unsigned long long>(stats.events));
  }
  if (unfinished > 0 || unfinished_jobs > 0) {
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
          "ns-3/HPCC topology file, or fattree:k=16,rate=100Gbps,delay=1us, or "
          "clos:leaves=8,spines=8,hosts=16,rate=200Gbps,host_delay=5us,fabric_delay=12.5us")
      ->required();
  command->add_option("--cc", options->cc, "none (line rate + PFC), dcqcn, dctcp, timely, hpcc");
  command->add_option("--workload", options->workloads,
                      "ASTRA-sim 1.0 workload file; repeat for jobs sharing the fabric");
  command->add_option("--traffic", options->traffic, "permutation:<bytes> or incast:<n>:<bytes>");
  command->add_option("--out", options->out, "output directory")->required();
  command->add_option("--seed", options->seed, "random seed (ECN marking, permutation)");
  command->add_option("--iterations", options->iterations, "training iterations per job");
  command->add_option("--chunks", options->chunks, "pipelined chunks per collective");
  command->add_option("--dims", options->dims, "logical ring dimensions per job, e.g. 8x16");
  command->add_option("--placement", options->placement, "hosts of several jobs: interleave|block");
  command->add_option("--max-active", options->max_active, "collectives in flight per job");
  command->add_option("--cycle-ns", options->cycle_ns, "nanoseconds per workload compute cycle");
  command->add_option("--window", options->window, "BDP window on|off");
  command->add_option("--pfc", options->pfc, "PFC on|off (off = lossy, go-back-N)");
  command->add_option("--buffer", options->buffer, "switch shared buffer, e.g. 32MiB");
  command->add_option("--payload", options->payload, "payload bytes per packet");
  command->add_option("--stop", options->stop, "stop after this much simulated time, e.g. 10ms");
  command->add_flag("--quiet", options->quiet, "no progress or speed lines on stderr");
  command->callback([options, action] { *action = [options] { return RunNet(*options); }; });
}

}  // namespace jigsaw
