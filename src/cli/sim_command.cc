// `jigsaw sim`: trace-driven cluster scheduling simulation.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>

#include "cli/commands.h"
#include "cli/sim_options.h"
#include "cluster/cluster_spec.h"
#include "cluster/policies/colocation.h"
#include "cluster/policies/shockwave_options.h"
#include "cluster/policy.h"
#include "cluster/sim_output.h"
#include "cluster/simulator.h"
#include "cluster/spb_cost_model.h"
#include "cluster/spb_phase_model.h"
#include "core/data_files.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/output.h"
#include "model/arrival_stream.h"
#include "model/trace_generator.h"
#include "model/trace_readers.h"

namespace jigsaw {
namespace {

// Shockwave's options: its config file (if any), then the command-line overrides.
ShockwaveOptions ResolveShockwaveOptions(const SimOptions& options) {
  ShockwaveOptions resolved = options.shockwave_config.empty()
                                  ? ShockwaveOptions{}
                                  : LoadShockwaveOptions(options.shockwave_config);
  const ShockwaveOptions& cli = options.shockwave;
  for (const std::string& name : options.shockwave_given) {
    if (name == "--shockwave-k") resolved.k = cli.k;
    if (name == "--shockwave-lambda") resolved.lambda = cli.lambda;
    if (name == "--shockwave-rhomax") resolved.rhomax = cli.rhomax;
    if (name == "--shockwave-future-rounds") resolved.future_rounds = cli.future_rounds;
    if (name == "--shockwave-solver-timeout-s") resolved.solver_timeout_s = cli.solver_timeout_s;
  }
  resolved.reopt_rounds = cli.reopt_rounds;
  resolved.max_planned_jobs = cli.max_planned_jobs;
  resolved.event_replan_max_jobs = cli.event_replan_max_jobs;
  resolved.busy_reopt_rounds = cli.busy_reopt_rounds;
  resolved.full_scan_max_jobs = cli.full_scan_max_jobs;
  resolved.planner_work_limit = cli.planner_work_limit;
  resolved.planner_wall_clock_s = cli.planner_wall_clock_s;
  if (options.shockwave_solver != "planner" && options.shockwave_solver != "cbc") {
    throw UsageError("--shockwave-solver must be planner or cbc, got '" + options.shockwave_solver +
                     "'");
  }
  resolved.use_cbc = options.shockwave_solver == "cbc";
  resolved.report_stats = !options.quiet;
  ValidateShockwaveOptions(resolved);
  return resolved;
}

int RunSim(const SimOptions& options) {
  // Options first (docs/limits.md), so a bad value is reported before any input is read.
  RequireCountInRange("--gpus", options.config.gpus, 1, kMaxGpus);
  RequireOptionInRange("--round-s", options.config.round_s, kMinRoundS, kMaxRoundS);
  RequireOptionInRange("--min-reallocation-interval-s", options.config.min_reallocation_interval_s,
                       0, kMaxSimSeconds);
  RequireOptionInRange("--preemption-overhead-s", options.config.preemption_overhead_s, 0,
                       kMaxSimSeconds);
  RequireOptionInRange("--deadline-factor", options.config.deadline_factor, 0, kMaxDeadlineFactor);
  RequireCountInRange("--assign-job-types", options.assign_job_types, -1,
                      std::numeric_limits<int64_t>::max());
  const ClusterSpec cluster =
      options.cluster_spec.empty() ? ClusterSpec{} : ParseClusterSpec(options.cluster_spec);
  ThroughputTable table = options.throughputs.empty() ? SyntheticThroughputTable()
                                                      : ThroughputTable::Load(options.throughputs);
  Trace trace = options.trace.empty()
                    ? GenerateTrace(options.generator, table, options.config.worker_type)
                    : ReadTrace(options.trace, ParseTraceFormat(options.trace_format));
  RequireCountInRange("--max-jobs", options.max_jobs, 0, static_cast<long long>(kMaxTraceJobs));
  if (options.max_jobs > 0 && static_cast<size_t>(options.max_jobs) < trace.jobs.size()) {
    trace.jobs.resize(options.max_jobs);  // the first jobs by arrival
  }
  if (options.arrival_rate_jph != 0 || options.stream_jobs != 0 || options.stream_max_hours != 0) {
    ArrivalStreamOptions stream;
    stream.rate_per_hour = options.arrival_rate_jph;
    stream.jobs =
        options.stream_jobs > 0 ? options.stream_jobs : static_cast<int>(trace.jobs.size());
    stream.max_duration_h = options.stream_max_hours;
    stream.seed = options.generator.seed;
    if (options.stream_jobs < 0) throw UsageError("--stream-jobs must be >= 0");
    trace = MakeArrivalStream(trace, stream);
  }
  if (options.load != 1) ScaleArrivalRate(&trace, options.load);
  if (options.assign_job_types >= 0) {
    const int typed = AssignJobTypes(&trace, table, options.config.worker_type,
                                     static_cast<uint64_t>(options.assign_job_types));
    if (!options.quiet) {
      std::fprintf(stderr, "sim: typed %d type-less jobs (seed %lld)\n", typed,
                   static_cast<long long>(options.assign_job_types));
    }
  }
  if (!options.write_trace.empty()) {
    const std::string folder = std::filesystem::path(options.write_trace).parent_path().string();
    if (!folder.empty()) MakeDirectories(folder);
    WriteFileAtomically(options.write_trace, FormatShockwaveTrace(trace));
  }
  if (options.round_log != "auto" && options.round_log != "full" && options.round_log != "delta") {
    throw UsageError("--round-log must be auto, full or delta, got '" + options.round_log + "'");
  }
  SimConfig config = options.config;
  if (!cluster.empty()) {
    RequireWorkerTypesInTable(cluster, table);
    config.cluster = cluster;
    config.gpus = TotalGpus(cluster);
    config.seed = options.generator.seed;
  }
  if (!options.measure_window.empty()) {
    const size_t colon = options.measure_window.find(':');
    char* end_begin = nullptr;
    char* end_end = nullptr;
    const std::string text = options.measure_window;
    const long begin = std::strtol(text.c_str(), &end_begin, 10);
    const long end =
        colon == std::string::npos ? 0 : std::strtol(text.c_str() + colon + 1, &end_end, 10);
    if (colon == std::string::npos || end_begin != text.c_str() + colon || end_end == nullptr ||
        *end_end != '\0' || colon == 0 || colon + 1 == text.size()) {
      throw UsageError("--measure-window expects BEGIN:END job ids (e.g. 1000:2000), got '" + text +
                       "'");
    }
    config.window_begin = static_cast<int>(std::clamp(begin, -1L, 1L << 30));
    config.window_end = static_cast<int>(std::clamp(end, -1L, 1L << 30));
  }
  if (options.isolated_time == "exact") {
    config.isolated_time = IsolatedTime::kExact;
  } else if (options.isolated_time == "reference") {
    config.isolated_time = IsolatedTime::kReferenceEpochs;
  } else {
    throw UsageError("--isolated-time must be exact or reference, got '" + options.isolated_time +
                     "'");
  }
  const ShockwaveOptions shockwave = ResolveShockwaveOptions(options);
  PolicyOptions policy_options;
  policy_options.throughputs = &table;
  policy_options.worker_type = options.config.worker_type;
  policy_options.shockwave = &shockwave;
  const SimColocation colocation = ConfigureColocation(options, table, &policy_options);
  std::unique_ptr<Policy> policy = MakePolicy(options.policy, policy_options);
  config.progress = !options.quiet;
  if (!options.quiet) {
    std::fprintf(stderr, "sim: %zu jobs from %s, %d GPUs, policy %s, %.0f s rounds\n",
                 trace.jobs.size(), trace.name.c_str(), config.gpus, policy->name().c_str(),
                 config.round_s);
  }
  Simulator simulator(trace, &table, policy.get(), config);
  SimResult result = simulator.Run();
  Json extra;
  extra["trace"] = options.trace.empty() ? trace.name : options.trace;
  extra["throughputs"] = options.throughputs.empty() ? "<synthetic>" : options.throughputs;
  extra["seed"] = options.generator.seed;
  if (!colocation.report.is_null()) extra["colocation_throughputs"] = colocation.report;
  if (!cluster.empty()) {
    extra["cluster_spec"] = FormatClusterSpec(cluster);
    Json busy;
    for (size_t k = 0; k < cluster.size(); ++k)
      busy[cluster[k].type] = result.busy_gpu_s_by_type[k];
    extra["busy_gpu_s_by_type"] = busy;
  }
  AddColocationReports(colocation, &extra);
  Json summary = SummarizeSimulation(&result, extra);
  const bool full =
      options.round_log == "full" || (options.round_log == "auto" && trace.jobs.size() <= 10000);
  WriteSimulationOutputs(options.out, result, summary, full);
  if (!options.quiet) {
    std::fprintf(stderr,
                 "sim: makespan %.0f s, avg JCT %.0f s, worst rho %.2f, util %.3f; %.2f s wall; "
                 "wrote %s/{summary.json,jobs.csv,rounds.csv}\n",
                 summary["makespan_s"].get<double>(), summary["avg_jct_s"].get<double>(),
                 summary["worst_ftf_rho"].get<double>(), summary["cluster_util"].get<double>(),
                 result.wall_s, options.out.c_str());
  }
  return 0;
}

}  // namespace

void AddSimCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<SimOptions>();
  CLI::App* sim = app.add_subcommand(
      "sim",
      "Simulate a GPU cluster scheduling a trace of training jobs (round-based, "
      "Gavel/Shockwave semantics). Without --trace, a seeded synthetic trace is used.");
  sim->add_option("--trace", options->trace,
                  "Trace file: Shockwave (12 col), Gavel (10 col), Gavel msr (7 col), Philly "
                  "CSV or Pollux CSV");
  sim->add_option("--trace-format", options->trace_format,
                  "auto|shockwave|gavel|gavel_msr|philly|pollux")
      ->capture_default_str();
  sim->add_option("--throughputs", options->throughputs,
                  "Gavel-format throughputs.json (default: built-in synthetic table)");
  CLI::Option* gpus =
      sim->add_option("--gpus", options->config.gpus, "GPUs in the cluster")->capture_default_str();
  sim->add_option("--cluster-spec", options->cluster_spec,
                  "Heterogeneous cluster TYPE:GPUS,... (e.g. v100:36,p100:36,k80:36; types from "
                  "--throughputs; --worker-type is the reference speed; docs/heterogeneous.md)")
      ->excludes(gpus);
  std::string policies;
  for (const std::string& name : PolicyNames()) policies += (policies.empty() ? "" : "|") + name;
  sim->add_option("--policy", options->policy, policies)->capture_default_str();
  sim->add_option("--round-s", options->config.round_s, "Round length in seconds")
      ->capture_default_str();
  sim->add_option("--seed", options->generator.seed, "Seed of the synthetic trace generator")
      ->capture_default_str();
  sim->add_option("--out", options->out, "Output directory")->capture_default_str();
  sim->add_option("--worker-type", options->config.worker_type,
                  "Worker type whose throughputs are used")
      ->capture_default_str();
  sim->add_option("--jobs", options->generator.jobs, "Synthetic trace: number of jobs")
      ->capture_default_str();
  sim->add_option("--arrival-mean-s", options->generator.mean_interarrival_s,
                  "Synthetic trace: mean inter-arrival time (s)")
      ->capture_default_str();
  sim->add_option("--write-trace", options->write_trace,
                  "Also write the trace used, in Shockwave's 12-column format");
  sim->add_option("--preemption-overhead-s", options->config.preemption_overhead_s,
                  "Checkpoint/restore cost charged to a job not run in the previous round")
      ->capture_default_str();
  sim->add_option("--deadline-factor", options->config.deadline_factor,
                  "End a job once it has run this many times its isolated duration (0 = never)")
      ->capture_default_str();
  sim->add_option("--min-reallocation-interval-s", options->config.min_reallocation_interval_s,
                  "Least time between two allocation computations (Gavel's reset interval)")
      ->capture_default_str();
  sim->add_option("--round-log", options->round_log,
                  "rounds.csv detail: full (every round's jobs), delta (jobs started/stopped), "
                  "auto (full up to 10,000 jobs)")
      ->capture_default_str();
  sim->add_option("--isolated-time", options->isolated_time,
                  "A job's run time alone (rho, deadline): exact (its own iterations, the last "
                  "epoch partly) or reference (Shockwave's: every epoch in full)")
      ->capture_default_str();
  AddSimColocationOptions(sim, options.get());
  sim->add_option("--assign-job-types", options->assign_job_types,
                  "Seed: give type-less (Philly) jobs job types from the throughput table "
                  "(-1: keep them type-less)")
      ->capture_default_str();
  sim->add_option("--max-jobs", options->max_jobs,
                  "Simulate only the first N jobs by arrival (0: all)")
      ->capture_default_str();
  sim->add_option("--arrival-rate-jph", options->arrival_rate_jph,
                  "Continuous stream (Gavel-style): draw jobs at random from the trace (with "
                  "replacement, --seed) and give them Poisson arrivals at this many jobs/hour");
  sim->add_option("--load", options->load,
                  "Arrival-rate scaling: every arrival time divided by this (2: twice the load)");
  sim->add_option("--stream-jobs", options->stream_jobs,
                  "Jobs in the arrival stream (default: as many as the trace has)");
  sim->add_option("--stream-max-hours", options->stream_max_hours,
                  "Draw only jobs at most this many hours long alone (0: all)");
  sim->add_option("--measure-window", options->measure_window,
                  "BEGIN:END: steady-state metrics over the jobs with ids in [BEGIN, END) and the "
                  "time between their arrivals (summary.json \"window\"); the run stops once they "
                  "have all finished");
  sim->add_flag("--quiet", options->quiet, "No progress output on stderr");
  sim->add_option("--shockwave-config", options->shockwave_config,
                  "Shockwave policy: JSON config in Shockwave's format (defaults: tacc_32gpus)");
  sim->add_option("--shockwave-k", options->shockwave.k,
                  "Shockwave: weight of the max-remaining-time term (overrides the config)");
  sim->add_option(
      "--shockwave-lambda", options->shockwave.lambda,
      "Shockwave: exponent of the finish-time-fairness priority (overrides the config)");
  sim->add_option("--shockwave-rhomax", options->shockwave.rhomax,
                  "Shockwave: finish-time-fairness bound (overrides the config)");
  sim->add_option("--shockwave-future-rounds", options->shockwave.future_rounds,
                  "Shockwave: planning horizon in rounds (overrides the config)");
  sim->add_option("--shockwave-reopt-rounds", options->shockwave.reopt_rounds,
                  "Shockwave: re-plan at least every this many rounds")
      ->capture_default_str();
  sim->add_option("--shockwave-max-planned-jobs", options->shockwave.max_planned_jobs,
                  "Shockwave: plan at most this many active jobs, the first by Shockwave's "
                  "priority (0: all, the published algorithm; see docs/shockwave.md)")
      ->capture_default_str();
  sim->add_option("--shockwave-event-replan-max-jobs", options->shockwave.event_replan_max_jobs,
                  "Shockwave: with more active jobs than this, arrivals and completions wait for "
                  "the periodic re-plan instead of re-planning at once (0: never; see "
                  "docs/shockwave.md)")
      ->capture_default_str();
  sim->add_option("--shockwave-busy-reopt-rounds", options->shockwave.busy_reopt_rounds,
                  "Shockwave: with more active jobs than --shockwave-event-replan-max-jobs, "
                  "re-plan every this many rounds (see docs/shockwave.md)")
      ->capture_default_str();
  sim->add_option("--shockwave-full-scan-max-jobs", options->shockwave.full_scan_max_jobs,
                  "Shockwave planner: plans with more jobs than this scan the max-rem levels "
                  "locally (the two highest, then from the lowest upwards while the objective "
                  "does not drop; 0: never; see docs/shockwave.md)")
      ->capture_default_str();
  sim->add_option("--shockwave-solver-timeout-s", options->shockwave.solver_timeout_s,
                  "Shockwave: CBC's time limit per plan with --shockwave-solver cbc (overrides the "
                  "config's solver_timeout; the planner uses a work limit instead)");
  sim->add_option("--shockwave-work-limit", options->shockwave.planner_work_limit,
                  "Shockwave planner: work units per plan (deterministic; see docs/shockwave.md)")
      ->capture_default_str();
  sim->add_option("--shockwave-wall-clock-limit-s", options->shockwave.planner_wall_clock_s,
                  "Shockwave planner: also stop refining a plan after this many seconds (0: "
                  "never). BREAKS REPRODUCIBILITY: where it binds, results depend on the "
                  "machine's speed and load")
      ->capture_default_str();
  sim->add_option("--shockwave-solver", options->shockwave_solver,
                  "Shockwave: planner (exact count planner) or cbc (per-round MILP in CBC, slow)")
      ->capture_default_str();
  sim->callback([options, action, sim] {
    for (const char* name : {"--shockwave-k", "--shockwave-lambda", "--shockwave-rhomax",
                             "--shockwave-future-rounds", "--shockwave-solver-timeout-s"}) {
      if (sim->count(name) > 0) options->shockwave_given.push_back(name);
    }
    *action = [options] { return RunSim(*options); };
  });
}

}  // namespace jigsaw
