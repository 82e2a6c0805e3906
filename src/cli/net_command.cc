// `jigsaw net`: the packet-level fabric simulator (src/net) on a topology, with either ASTRA-sim
// workloads (one job per --workload, sharing the fabric), synthetic --traffic, or the PL2 rack
// experiment (--load: memcached-like RPCs, bulk incast and a ring all-reduce, net/rack_workload.h)
// under a --transport; writes summary.json and flows.csv to --out. Wall-clock speed goes to stderr
// only, so equal inputs and seed give byte-identical files.
//
// This file only binds flags to net::NetOptions' fields (net/net_options.h); the module validates
// them and runs (net::RunSimulation, net/simulation.h). Enum lists in the help come from the
// module's tables.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "net/enum_table.h"
#include "net/net_options.h"
#include "net/simulation.h"
#include "net/transport_preset.h"
#include "tlights/band_schedule.h"

namespace jigsaw {
namespace {

int RunNet(const net::NetOptions& options) {
  const net::NetRunResult result = net::RunSimulation(options.Validate());
  if (!result.incomplete()) return 0;
  // Exit 3: the outputs are written, but the run ended (--stop, or no events left) before every
  // flow and job finished; a partial run is never reported as success.
  std::fprintf(stderr,
               "jigsaw: net: stopped at %.3f us with %llu of %zu flows and %llu job(s) "
               "unfinished (exit 3)\n",
               net::ToMicroseconds(result.end),
               static_cast<unsigned long long>(result.unfinished_flows), result.flows,
               static_cast<unsigned long long>(result.unfinished_jobs));
  return 3;
}

// Flags are registered in the order summary.json's run.options lists them (cli/run_record.h), so
// a run's summary stays byte-identical: append new flags, never reorder.

void AddCcFlags(CLI::App* command, net::FabricOptions* f) {
  command->add_option("--cc", f->cc, net::EnumHelp(net::kCcModes));
  command->add_option("--cc-param", f->cc_params,
                      std::string("set a congestion-control parameter, e.g. hpcc.rate_ai=500Mbps; "
                                  "repeatable; names: ") +
                          net::CcParamNames());
  command->add_option("--transport", f->transport,
                      net::EnumHelp(net::kTransportPresets) + "; overrides --cc/--pfc");
}

// The PL2 rack experiment and the knobs of the host transports it compares.
void AddRackFlags(CLI::App* command, net::RackOptions* r, net::FabricOptions* f) {
  command->add_option("--load", r->load,
                      "PL2 rack experiment: offered load into the hot host, e.g. 400%");
  command->add_option("--rpc-load", r->rpc_load,
                      "memcached responses as a fraction of a link (default 0.05)");
  command->add_option("--duration", r->duration, "rack experiment arrivals window (10ms)");
  command->add_option("--drain", r->drain, "extra time for answers after it (5ms)");
  command->add_option("--ml-bytes", r->ml_bytes,
                      "model size per iteration, e.g. 102MB (ResNet-50); 0 = none");
  command->add_option("--ml-hosts", r->ml_hosts, "training hosts (default 8)");
  command->add_option("--ml-chunks", r->ml_chunks,
                      "all-reduce pipelined chunks, or parameter-server model shards (1)");
  command->add_option("--homa-overcommit", f->homa_overcommit,
                      "Homa-like: messages a receiver grants to at once (4)");
  command->add_option("--homa-per-sender", f->homa_per_sender,
                      "Homa-like: of those, at most this many per sender (0 = no limit)");
  command->add_option("--pl2-bulk-order", f->pl2_bulk_order,
                      "PL2 senders: " + net::EnumHelp(net::kPl2BulkOrders));
  command->add_option("--ml-pattern", r->ml_pattern, net::EnumHelp(net::kMlPatterns));
  command->add_option("--ml-placement", r->ml_placement, net::EnumHelp(net::kMlPlacements));
}

void AddJobSourceFlags(CLI::App* command, net::NetOptions* options) {
  command->add_option("--workload", options->jobs.workloads,
                      "ASTRA-sim 1.0 workload file; repeat for jobs sharing the fabric");
  command->add_option(
      "--chakra", options->chakra.prefixes,
      "Chakra execution traces PREFIX.<rank>.et; repeat for jobs sharing the fabric");
  command->add_option("--npu-tflops", options->chakra.npu_tflops,
                      "compute rate for Chakra compute nodes that give FLOPs (num_ops) only");
  command->add_option("--chakra-system", options->chakra.system,
                      "ASTRA-sim system JSON: the collective algorithms (ring; all-to-all direct)");
}

void AddFlowFlags(CLI::App* command, net::NetOptions* options) {
  command->add_option("--traffic", options->traffic, "permutation:<bytes> or incast:<n>:<bytes>");
  command->add_option("--flows", options->flows,
                      "ns-3/HPCC flow file: count, then 'src dst priority dport bytes start_s' "
                      "lines (node ids)");
  net::BackgroundOptions& b = options->background;
  command->add_option("--background", b.cdf,
                      "Poisson background traffic with flow sizes from websearch, datamining or a "
                      "traffic_gen CDF file ('bytes percent' lines)");
  command->add_option("--background-load", b.load,
                      "background load per host as a fraction of its link, e.g. 30% (default)");
  command->add_option("--background-start", b.start, "when background flows begin (0us)");
  command->add_option("--background-duration", b.duration,
                      "how long background flows keep arriving (1ms)");
  command->add_option("--background-priority", b.priority,
                      "traffic class of background flows, 0 (served first, default)..7");
}

void AddPsFlags(CLI::App* command, net::PsJobsOptions* ps) {
  command->add_option("--ps-jobs", ps->jobs, "parameter-server jobs (docs/tensorlights.md)");
  command->add_option("--ps-workers", ps->workers, "workers per parameter-server job");
  command->add_option("--ps-model", ps->model, "model by name: " + net::PsModelNames());
  command->add_option("--ps-model-bytes", ps->model_bytes,
                      "model size per push and pull, e.g. 1.86MB");
  command->add_option("--ps-compute", ps->compute, "worker compute per iteration, e.g. 20ms (0s)");
  command->add_option("--ps-compute-file", ps->compute_file,
                      "compute samples: a ps-worker CSV (compute_s) or seconds per line");
  command->add_option("--ps-compute-jitter", ps->compute_jitter,
                      "compute x (1 + U(-f, f)) per worker and iteration, e.g. 10%");
  command->add_option("--ps-iterations", ps->iterations, "iterations per job (10)");
  command->add_option("--ps-hosts", ps->ps_hosts,
                      "hosts carrying the PSes: job j on host j mod H (1)");
  command->add_option("--ps-placement", ps->placement,
                      "workers: spread (the W hosts after the PS host, default) or random");
  command->add_option("--host-priority", ps->host_priority,
                      "TensorLights at the PS hosts' NICs: " + tlights::PolicyNames() + " (fifo)");
  command->add_option("--rotate-interval", ps->rotate_interval, "with rotate: 20s (default)");
  command->add_option("--ps-downlink-priority", ps->downlink,
                      "on: switches serve pushes into a PS host in band order too (extension)");
}

// --fail-link, the time series, --out and --seed. Returns the --timeseries option, whose count
// tells whether it was given (it may come without a value).
CLI::Option* AddOutputFlags(CLI::App* command, net::NetOptions* options) {
  net::OutputOptions& o = options->output;
  command->add_option(
      "--fail-link", o.fail_links,
      "take the link between two nodes down at a time, e.g. 0-16@100us; repeatable");
  CLI::Option* timeseries =
      command
          ->add_option("--timeseries", o.timeseries,
                       "write timeseries/queue.csv, pfc.csv and rate.csv; queues of " +
                           net::EnumHelp(net::kTimeseriesPorts))
          ->expected(0, 1);
  command->add_option("--sample-interval", o.sample_interval, "time-series sampling period (10us)");
  command->add_option("--out", o.out, "output folder (summary.json, flows.csv, ...)")
      ->capture_default_str();
  command->add_option("--seed", options->seed, "random seed (ECN marking, permutation)");
  return timeseries;
}

void AddJobFlags(CLI::App* command, net::JobOptions* jobs) {
  command->add_option("--iterations", jobs->iterations, "training iterations per job");
  command->add_option("--chunks", jobs->chunks, "pipelined chunks per collective");
  command->add_option("--dims", jobs->dims, "logical ring dimensions per job, e.g. 8x16");
  command->add_option("--placement", jobs->placement,
                      "hosts of the jobs: " + net::EnumHelp(net::kJobPlacements));
  command->add_option("--max-active", jobs->max_active, "collectives in flight per job");
  command->add_option("--cycle-ns", jobs->cycle_ns, "nanoseconds per workload compute cycle");
}

void AddFabricFlags(CLI::App* command, net::FabricOptions* f) {
  command->add_option("--window", f->window, "BDP window on|off");
  command->add_option("--pfc", f->pfc, "PFC on|off (off = lossy, go-back-N)");
  command->add_option("--ack-priority", f->ack_priority,
                      "ACK/NACK queue in switches: " + net::EnumHelp(net::kAckPriorities));
  command->add_option(
      "--nic-order", f->nic_order,
      "how a host NIC picks among its queue pairs: " + net::EnumHelp(net::kNicOrders));
  command->add_option("--egress-shift", f->egress_shift,
                      "without PFC, an egress queue holds at most the free shared buffer >> N "
                      "(dynamic threshold, alpha = 2^-N); -1 = off (default)");
  command->add_option("--buffer", f->buffer,
                      "switch shared buffer, e.g. 32MiB (default: the rack's, else 32MiB)");
  command->add_option("--payload", f->payload, "payload bytes per packet");
}

}  // namespace

void AddNetCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<net::NetOptions>();
  CLI::App* command = app.add_subcommand(
      "net", "packet-level RoCE fabric simulator (PFC, ECN, DCQCN/DCTCP/TIMELY/HPCC, collectives)");
  command
      ->add_option(
          "--topology", options->topology,
          "ns-3/HPCC topology file, or rack:hosts=32,gbps=100,delay=500ns,buffer=16MiB, or "
          "fattree:k=16,rate=100Gbps,delay=1us, or "
          "clos:leaves=8,spines=8,hosts=16,rate=200Gbps,host_delay=5us,fabric_delay=12.5us")
      ->required();
  AddCcFlags(command, &options->fabric);
  AddRackFlags(command, &options->rack, &options->fabric);
  AddJobSourceFlags(command, options.get());
  AddFlowFlags(command, options.get());
  AddPsFlags(command, &options->ps);
  CLI::Option* timeseries = AddOutputFlags(command, options.get());
  AddJobFlags(command, &options->jobs);
  AddFabricFlags(command, &options->fabric);
  command->add_option("--stop", options->output.stop,
                      "stop after this much simulated time, e.g. 10ms");
  command->add_flag("--quiet", options->output.quiet, "no progress or speed lines on stderr");
  command->callback([options, action, timeseries] {
    options->output.timeseries_given = timeseries->count() > 0;
    *action = [options] { return RunNet(*options); };
  });
}

}  // namespace jigsaw
