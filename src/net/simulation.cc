#include "net/simulation.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/output.h"
#include "core/result_set.h"
#include "net/chakra_report.h"
#include "net/flow_file.h"
#include "net/network.h"
#include "net/progress_estimate.h"
#include "net/ps_jobs.h"
#include "net/ps_report.h"
#include "net/rack_report.h"
#include "net/run_outputs.h"
#include "net/run_summary.h"
#include "net/topology.h"
#include "net/traffic.h"
#include "net/workload.h"
#include "net/workload_report.h"

namespace jigsaw::net {
namespace {

// What the run reads before it builds the network.
struct RunInputs {
  Topology topology;
  NetConfig config;
  std::vector<Workload> workloads;
  std::vector<FlowSpec> given_flows;
  std::optional<SizeCdf> background_cdf;
};

RunInputs LoadInputs(const NetRunSpec& spec) {
  RunInputs in{LoadTopology(spec.topology), spec.fabric.config, {}, {}, std::nullopt};
  if (!spec.fabric.buffer_given) {
    in.config.buffer_bytes =
        in.topology.switch_buffer_bytes > 0 ? in.topology.switch_buffer_bytes : uint64_t{32} << 20;
  }
  for (const std::string& path : spec.jobs.workloads)
    in.workloads.push_back(ReadAstraWorkload(path));
  if (!spec.flows.empty()) in.given_flows = ReadFlowFile(spec.flows, in.topology);
  if (spec.background_cdf) in.background_cdf = SizeCdf::Load(*spec.background_cdf);
  return in;
}

// Link failures, time series, background flows and the --flows file's flows.
void PrepareNetwork(const NetRunSpec& spec, const RunInputs& in, Network* network) {
  for (const LinkFailure& f : spec.failures) network->FailLink(f.a, f.b, f.at);
  if (spec.sample_interval > 0)
    network->EnableTimeSeries(spec.sample_interval, spec.timeseries_all);
  if (in.background_cdf) {
    std::vector<uint32_t> hosts;
    std::vector<uint64_t> rates;
    for (uint32_t h = 0; h < network->num_hosts(); ++h) {
      hosts.push_back(h);
      rates.push_back(network->host_rate_bps(h));
    }
    for (const FlowSpec& f :
         GenerateBackground(*in.background_cdf, spec.background, hosts, rates)) {
      network->AddFlow(f.src_host, f.dst_host, f.bytes, f.start, 0, f.priority);
    }
  }
  for (const FlowSpec& f : in.given_flows) {
    network->AddFlow(f.src_host, f.dst_host, f.bytes, f.start, 0, f.priority);
  }
}

// summary.json's first keys: the fabric and its settings.
Json FabricJson(const NetRunSpec& spec, const RunInputs& in, const Network& network) {
  const NetConfig& config = in.config;
  Json summary;
  summary["topology"] = spec.topology;
  summary["hosts"] = network.num_hosts();
  summary["switches"] = in.topology.num_switches();
  summary["links"] = in.topology.links.size();
  summary["transport"] = spec.fabric.transport
                             ? EnumNameOf(kTransportPresets, *spec.fabric.transport)
                             : EnumNameOf(kTransportKinds, config.transport);
  summary["cc"] = CcModeName(config.cc);
  summary["seed"] = spec.seed;
  summary["window"] = config.window;
  summary["pfc"] = config.pfc;
  summary["ack_priority"] = AckPriorityName(config.ack_priority);
  summary["nic_order"] = NicOrderName(config.nic_order);
  if (!spec.fabric.cc_params.empty()) {
    Json cc_params;
    for (const auto& [name, value] : spec.fabric.cc_params) cc_params[name] = value;
    summary["cc_params"] = cc_params;
  }
  if (config.egress_shift >= 0) summary["egress_shift"] = config.egress_shift;
  if (config.transport == TransportKind::kHoma) {
    summary["homa_overcommit"] = config.homa.overcommit;
    summary["homa_per_sender"] = config.homa.max_per_sender;
  }
  if (config.transport == TransportKind::kPl2) {
    summary["pl2_bulk_order"] = EnumNameOf(kPl2BulkOrders, config.pl2.bulk_oldest_first);
  }
  return summary;
}

uint64_t RunWorkloadJobs(const NetRunSpec& spec, const RunInputs& in, Network* network,
                         Json* summary) {
  const JobSettings& jobs = spec.jobs;
  const auto placed = PlaceJobs(network->num_hosts(), static_cast<uint32_t>(in.workloads.size()),
                                jobs.placement, spec.seed);
  std::vector<JobSpec> specs(in.workloads.size());
  for (size_t j = 0; j < in.workloads.size(); ++j) {
    specs[j] = {in.workloads[j], placed[j],     jobs.dims,      jobs.chunks,
                jobs.iterations, jobs.cycle_ns, jobs.max_active};
  }
  network->SetProgressEnd(std::min(
      spec.stop,
      EstimatedEndOfJobs(specs, network->num_hosts() > 0 ? network->host_rate_bps(0) : 0)));
  return AddWorkloadJobsJson(specs, RunJobs(network, specs, spec.stop), summary);
}

ChakraRunOutput RunChakraJobs(const NetRunSpec& spec, Network* network, Json* summary) {
  const std::string progress = spec.sample_interval > 0 ? spec.out + "/progress.csv" : "";
  ChakraRunSettings settings;
  settings.placement = spec.jobs.placement;
  settings.seed = spec.seed;
  settings.dims = spec.jobs.dims;
  settings.chunks = spec.jobs.chunks;
  settings.iterations = spec.jobs.iterations;
  settings.stop = spec.stop;
  settings.progress = {spec.sample_interval, progress};
  return RunChakra(network, *spec.chakra, settings, summary);
}

void RunRack(const NetRunSpec& spec, const NetConfig& config, Network* network, Json* summary) {
  const RackWorkloadSpec& rack = *spec.rack;
  if (rack.ml_bytes > 0 && rack.ml_hosts > network->num_hosts()) {
    throw UsageError("--ml-hosts " + std::to_string(rack.ml_hosts) + ": the topology has " +
                     std::to_string(network->num_hosts()) + " hosts");
  }
  network->SetProgressEnd(std::min(spec.stop, rack.duration + rack.drain));
  const RackResult result = RunRackWorkload(network, rack);
  (*summary)["rack"] = RackJson(rack, result, *network, config);
}

// --traffic and --flows (and --background alone): flows only.
void RunFlows(const NetRunSpec& spec, Network* network, Json* summary) {
  if (!spec.traffic.empty()) {
    AddTraffic(network, ParseTrafficSpec(spec.traffic), spec.seed);
    (*summary)["traffic"] = spec.traffic;
  }
  if (!spec.flows.empty()) (*summary)["flow_file"] = spec.flows;
  network->SetProgressEnd(std::min(spec.stop, EstimatedEndOfFlows(*network)));
  network->Run(spec.stop);
}

// Runs the spec's one traffic source; returns its unfinished jobs and collectives.csv (Chakra).
ChakraRunOutput RunTraffic(const NetRunSpec& spec, const RunInputs& in, Network* network,
                           Json* summary) {
  ChakraRunOutput outcome;
  if (!in.workloads.empty()) {
    outcome.unfinished_jobs = RunWorkloadJobs(spec, in, network, summary);
  } else if (spec.ps) {
    outcome.unfinished_jobs =
        AddPsJobsJson(*spec.ps, RunPsJobs(network, *spec.ps, spec.stop), summary);
  } else if (spec.chakra) {
    outcome = RunChakraJobs(spec, network, summary);
  } else if (spec.rack) {
    RunRack(spec, in.config, network, summary);
  } else {
    RunFlows(spec, network, summary);
  }
  return outcome;
}

void AddBackgroundAndFailuresJson(const NetRunSpec& spec, const RunInputs& in, Json* summary) {
  if (in.background_cdf) {
    Json j;
    j["cdf"] = in.background_cdf->name();
    j["mean_flow_bytes"] = RoundTo(in.background_cdf->Mean(), 1);
    j["load"] = spec.background.load;
    j["start_us"] = RoundedMicroseconds(spec.background.start);
    j["duration_us"] = RoundedMicroseconds(spec.background.duration);
    j["priority"] = spec.background.priority;
    (*summary)["background"] = j;
  }
  if (!spec.failures.empty()) {
    Json list = Json::array();
    for (const LinkFailure& failure : spec.failures) {
      Json f;
      f["a"] = failure.a;
      f["b"] = failure.b;
      f["at_us"] = RoundedMicroseconds(failure.at);
      list.push_back(std::move(f));
    }
    (*summary)["link_failures"] = std::move(list);
  }
}

// Writes every output of the run as one unit and removes a previous run's optional files that
// this run does not write. Returns the number of unfinished flows.
uint64_t WriteOutputs(const NetRunSpec& spec, const Network& network, const ChakraRunOutput& run,
                      Json* summary) {
  FlowsReport flows = MakeFlowsReport(network);
  (*summary)["flows"] = flows.summary;
  (*summary)["network"] = NetStatsJson(network.Stats());
  ResultSet results(spec.out);  // one unit: never one run's summary beside another's flows
  results.Add("flows.csv", std::move(flows.csv));
  if (spec.chakra) results.Add("collectives.csv", run.collectives_csv);
  const std::string series_dir = (std::filesystem::path(spec.out) / "timeseries").string();
  if (spec.sample_interval > 0) {
    (*summary)["timeseries"] =
        WriteTimeSeries(network, spec.sample_interval, spec.timeseries_all, series_dir);
  } else {
    RemoveTimeSeries(series_dir);  // a previous run's series must not sit beside this summary
  }
  std::error_code ignored;
  if (!spec.chakra) {  // nor its trace outputs
    std::filesystem::remove(std::filesystem::path(spec.out) / "collectives.csv", ignored);
  }
  if (!spec.chakra || spec.sample_interval == 0) {
    std::filesystem::remove(std::filesystem::path(spec.out) / "progress.csv", ignored);
  }
  results.Add("summary.json", summary->dump(2) + "\n");
  results.Commit();
  return flows.unfinished;
}

}  // namespace

NetRunResult RunSimulation(const NetRunSpec& spec) {
  const RunInputs in = LoadInputs(spec);
  MakeDirectories(spec.out);
  const auto wall_start = std::chrono::steady_clock::now();
  Network network(in.topology, in.config);
  PrepareNetwork(spec, in, &network);
  Json summary = FabricJson(spec, in, network);
  const ChakraRunOutput run = RunTraffic(spec, in, &network, &summary);
  AddBackgroundAndFailuresJson(spec, in, &summary);
  NetRunResult result;
  result.must_finish = !spec.rack.has_value();
  result.unfinished_jobs = run.unfinished_jobs;
  result.unfinished_flows = WriteOutputs(spec, network, run, &summary);
  result.flows = network.num_flows();
  result.end = network.Stats().now;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!spec.quiet) PrintNetRunSummary(summary, spec.out, wall);
  return result;
}

}  // namespace jigsaw::net
