// `jigsaw faas-sim`: Archipelago (SGS worker pools, least-slack-first, proactive sandboxes, a
// scaling load balancer) against OpenWhisk-like and Sparrow-like baselines on a simulated
// cluster, over DAGs from a file or a generated Azure-Functions-2019-like workload. Prints a table
// and writes summary.json, results.csv and the miss breakdowns per_dag.csv (per DAG) and
// per_dag_period.csv (per DAG and burst period; per-period totals are in summary.json) to --out;
// wall-clock time goes to stderr and to the "wall_s" fields only. See docs/faas.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/error.h"
#include "core/output.h"
#include "core/progress.h"
#include "core/text_input.h"
#include "faas/dag_reader.h"
#include "faas/duration_table.h"
#include "faas/simulator.h"
#include "faas/workload.h"
#include "net/units.h"

namespace jigsaw {
namespace {

struct FaasSimOptions {
  std::string dags;
  faas::WorkloadOptions workload;
  faas::SimOptions sim;
  std::string platforms = "archipelago,openwhisk,sparrow";
  std::string policies = "rlsf";
  std::string worker_memory = "64GiB";
  std::string warmup = "auto", keep_alive = "600s", setup_median = "500ms";
  std::string duration_median = "50ms", burst_period = "10s";
  std::vector<std::string> kills;
  std::string durations;
  std::string dispatch_overhead = "0s";
  std::string ow_pause_grace = "50ms", ow_unpause_cost = "15ms", invoker_memory;
  std::string ow_stem_cell_memory = "256MiB";
  bool stem_cells_given = false;  // any --ow-stem-cell* option on the command line
  std::string duration_model = "azure";
  bool no_proactive_ablation = false;
  bool no_demote_ablation = false;
  bool admission_control = false;
  bool hopeless_admission = false;
  bool quiet = false;
  std::string out = "out/faas-sim";
};

net::Time Duration(const std::string& option, const std::string& text, bool positive) {
  net::Time time = 0;
  if (!net::ParseDuration(text, &time) || time < 0 || (positive && time == 0)) {
    throw UsageError(option + " '" + text + "': expected a " + (positive ? "positive " : "") +
                     "duration like 10s or 500ms");
  }
  return time;
}

std::vector<std::string> List(const std::string& text) {
  std::vector<std::string> items;
  for (std::string_view field : SplitFields(text, ',')) {
    if (!Trim(field).empty()) items.emplace_back(Trim(field));
  }
  return items;
}

Json ResultJson(const faas::SimResult& r) {
  Json j;
  j["platform"] = r.platform;
  j["policy"] = r.policy;
  j["requests"] = r.requests;
  j["completed"] = r.completed;
  j["failed"] = r.failed;
  j["lost"] = r.lost;
  j["measured"] = r.measured;
  j["deadline_met_pct"] = RoundTo(r.deadline_met_pct, 3);
  j["p50_ms"] = RoundTo(r.p50_ms, 3);
  j["p99_ms"] = RoundTo(r.p99_ms, 3);
  j["p999_ms"] = RoundTo(r.p999_ms, 3);
  j["mean_ms"] = RoundTo(r.mean_ms, 3);
  j["max_ms"] = RoundTo(r.max_ms, 3);
  Json quantiles = Json::array();
  for (const auto& [fraction, ms] : r.latency_quantiles_ms) {
    quantiles.push_back({RoundTo(fraction, 4), RoundTo(ms, 3)});
  }
  j["latency_quantiles_ms"] = quantiles;
  j["invocations"] = r.invocations;
  j["cold_starts"] = r.cold_starts;
  j["cold_start_pct"] = RoundTo(r.cold_start_pct, 3);
  j["unpauses"] = r.unpauses;
  j["prewarm_starts"] = r.prewarm_starts;
  j["p99_floor_ms"] = RoundTo(r.p99_floor_ms, 3);
  Json tail;
  tail["requests"] = r.tail.requests;
  tail["mean_latency_ms"] = RoundTo(r.tail.latency_ms, 3);
  tail["mean_wait_ms"] = RoundTo(r.tail.wait_ms, 3);
  tail["mean_setup_ms"] = RoundTo(r.tail.setup_ms, 3);
  tail["mean_unpause_ms"] = RoundTo(r.tail.unpause_ms, 3);
  tail["mean_floor_ms"] = RoundTo(r.tail.floor_ms, 3);
  tail["cold_starts"] = r.tail.cold_starts;
  tail["dags"] = r.tail.dags;
  tail["top_dag"] = r.tail.top_dag;
  tail["top_dag_share"] = RoundTo(r.tail.top_dag_share, 4);
  j["tail_above_p99"] = tail;
  j["sandbox_memory_avg_gb"] = RoundTo(r.sandbox_memory_avg_gb, 2);
  j["sandbox_memory_peak_gb"] = RoundTo(r.sandbox_memory_peak_gb, 2);
  j["sandboxes_created"] = r.sandboxes_created;
  j["sandboxes_evicted"] = r.sandboxes_evicted;
  j["retries"] = r.retries;
  j["refused_by_admission_control"] = r.refused;
  j["lb_scale_outs"] = r.scale_outs;
  j["lb_scale_ins"] = r.scale_ins;
  j["max_sgs_per_dag"] = r.max_sgs_per_dag;
  j["events"] = r.events;
  j["simulated_s"] = RoundTo(r.simulated_s, 3);
  j["measured_by_burst_period"] = r.measured_by_period;
  j["missed_by_burst_period"] = r.missed_by_period;
  return j;
}

// A run whose every request arrived during the warm-up measured nothing: its table row is zeros.
// Said on stderr even with --quiet (a warning, not progress); the exit status stays 0
// (FaasSimCli.NothingMeasuredWarnsAndExitsZero).
void WarnNothingMeasured(const faas::SimResult& r, const std::string& warmup_option,
                         net::Time warmup, double arrival_span_s) {
  std::fprintf(stderr,
               "faas-sim: warning: %s/%s measured no request: its %llu requests arrive within "
               "about %.1f s, before the warm-up of %.1f s (--warmup %s) ends, so its figures are "
               "not measurements; lower --warmup or raise --requests\n",
               r.platform.c_str(), r.policy.c_str(), static_cast<unsigned long long>(r.requests),
               arrival_span_s, static_cast<double>(warmup) / net::kSecond, warmup_option.c_str());
}

int RunFaasSim(FaasSimOptions o, bool load_given) {
  faas::SimOptions& sim = o.sim;
  uint64_t memory = 0;
  if (!net::ParseBytes(o.worker_memory, &memory) || memory == 0) {
    throw UsageError("--worker-memory '" + o.worker_memory + "': expected a size like 16GiB");
  }
  sim.worker_memory = memory;
  sim.keep_alive = Duration("--keep-alive", o.keep_alive, true);
  sim.proactive_options.keep_window = sim.keep_alive;
  sim.burst_period = Duration("--burst-period", o.burst_period, true);
  sim.dispatch_overhead = Duration("--dispatch-overhead", o.dispatch_overhead, false);
  if (sim.dispatch_overhead > 10 * net::kSecond) {
    throw UsageError("--dispatch-overhead must be at most 10s");
  }
  sim.ow_pause_grace = Duration("--ow-pause-grace", o.ow_pause_grace, false);
  sim.ow_unpause_cost = Duration("--ow-unpause-cost", o.ow_unpause_cost, false);
  if (sim.ow_unpause_cost > 10 * net::kSecond) {
    throw UsageError("--ow-unpause-cost must be at most 10s");
  }
  if (!o.invoker_memory.empty() &&
      (!net::ParseBytes(o.invoker_memory, &sim.invoker_memory) || sim.invoker_memory == 0)) {
    throw UsageError("--invoker-memory '" + o.invoker_memory + "': expected a size like 1GiB");
  }
  if (sim.ow_stem_cells < 0 || sim.ow_stem_cells > 64) {
    throw UsageError("--ow-stem-cells must be 0..64");
  }
  if (!net::ParseBytes(o.ow_stem_cell_memory, &sim.ow_stem_cell_memory) ||
      sim.ow_stem_cell_memory == 0 ||
      sim.ow_stem_cell_memory * static_cast<uint64_t>(sim.ow_stem_cells) > sim.worker_memory) {
    throw UsageError("--ow-stem-cell-memory '" + o.ow_stem_cell_memory +
                     "': expected a size like 256MiB; all stem cells must fit in --worker-memory");
  }
  if (!(sim.ow_stem_cell_init_share >= 0 && sim.ow_stem_cell_init_share <= 1)) {
    throw UsageError("--ow-stem-cell-init-share must be in [0, 1]");
  }
  if (!faas::ParseDurationModel(o.duration_model, &o.workload.duration_model)) {
    throw UsageError("--duration-model '" + o.duration_model + "': expected azure or short");
  }
  o.workload.setup_median = Duration("--setup-median", o.setup_median, true);
  o.workload.duration_median = Duration("--duration-median", o.duration_median, true);
  if (!(o.workload.load > 0 && o.workload.load <= 10)) {
    throw UsageError("--load must be in (0, 10]");
  }
  if (sim.cores < 1 || sim.cores > 1'000'000) throw UsageError("--cores must be 1..1000000");
  if (sim.cores_per_worker < 1 || sim.cores_per_worker > 1024) {
    throw UsageError("--cores-per-worker must be 1..1024");
  }
  if (sim.workers_per_sgs < 1) throw UsageError("--workers-per-sgs must be at least 1");
  if (sim.requests < 1 || sim.requests > 100'000'000) {
    throw UsageError("--requests must be 1..100000000");
  }
  if (o.workload.dags < 1 || o.workload.dags > 100'000) {
    throw UsageError("--apps must be 1..100000");
  }
  if (sim.sparrow_probes < 1 || sim.sparrow_probes > 8) {
    throw UsageError("--sparrow-probes must be 1..8");
  }
  if (!(sim.burst_sigma >= 0 && sim.burst_sigma <= 5)) {
    throw UsageError("--burst-sigma must be in [0, 5]");
  }
  if (sim.max_retries < 0 || sim.max_retries > 100) {
    throw UsageError("--max-retries must be 0..100");
  }
  for (const std::string& kill : o.kills) {
    const size_t at = kill.find('@');
    faas::WorkerKill k;
    try {
      if (at == std::string::npos) throw std::invalid_argument("no @");
      size_t used = 0;
      k.worker = static_cast<uint32_t>(std::stoul(kill.substr(0, at), &used));
      if (used != at) throw std::invalid_argument("worker");
    } catch (const std::exception&) {
      throw UsageError("--kill '" + kill + "': expected WORKER@TIME like 3@20s");
    }
    k.at = Duration("--kill", kill.substr(at + 1), false);
    sim.kills.push_back(k);
  }
  std::vector<faas::Platform> platforms;
  for (const std::string& name : List(o.platforms)) {
    faas::Platform p;
    if (!faas::ParsePlatform(name, &p)) {
      throw UsageError("--platforms: unknown '" + name + "' (archipelago, openwhisk, sparrow)");
    }
    platforms.push_back(p);
  }
  std::vector<faas::QueuePolicy> policies;
  for (const std::string& name : List(o.policies)) {
    faas::QueuePolicy q;
    if (!faas::ParseQueuePolicy(name, &q)) {
      throw UsageError("--policies: unknown '" + name + "' (lsf, edf, fifo, rlsf)");
    }
    policies.push_back(q);
  }
  if (platforms.empty() || policies.empty()) {
    throw UsageError("--platforms and --policies need at least one entry");
  }
  if (o.stem_cells_given && std::find(platforms.begin(), platforms.end(),
                                      faas::Platform::kOpenWhisk) == platforms.end()) {
    throw UsageError(
        "--ow-stem-cells, --ow-stem-cell-memory and --ow-stem-cell-init-share apply "
        "to the openwhisk platform only");
  }

  faas::Catalog catalog;
  o.workload.cores = sim.cores;
  o.workload.seed = sim.seed;
  if (!o.dags.empty()) {
    catalog = faas::ReadDagFile(o.dags);
    if (load_given) faas::ScaleToLoad(&catalog, o.workload.load, sim.cores);
  } else {
    catalog = faas::GenerateWorkload(o.workload);
  }
  std::vector<faas::DurationQuantiles> measured;
  if (!o.durations.empty()) {
    // Measured distributions replace the declared means too (the estimators' prior, the
    // critical paths and the offered load).
    measured = faas::ReadDurationFile(o.durations, catalog);
    for (faas::FunctionId f = 0; f < catalog.functions.size(); ++f) {
      if (!measured[f].empty())
        catalog.functions[f].duration = std::max<net::Time>(1, measured[f].Mean());
    }
    if (o.dags.empty() || load_given) faas::ScaleToLoad(&catalog, o.workload.load, sim.cores);
    sim.measured_durations = &measured;
  }
  MakeDirectories(o.out);

  Json summary;
  summary["format"] = "jigsaw-faas-sim-v1";
  Json inputs;
  inputs["dags"] = o.dags.empty() ? "generated (Azure Functions 2019 calibrated)" : o.dags;
  inputs["dag_count"] = catalog.dags.size();
  inputs["function_count"] = catalog.functions.size();
  double offered = 0, total_rate = 0;
  for (const faas::Dag& dag : catalog.dags) {
    offered += dag.rate_per_s * faas::ExpectedWork(catalog, dag);
    total_rate += dag.rate_per_s;
  }
  inputs["offered_load"] = RoundTo(offered / sim.cores, 4);
  sim.warmup = o.warmup == "auto" ? faas::AutoWarmup(sim.requests, total_rate)
                                  : Duration("--warmup", o.warmup, false);
  // The arrivals span about requests / rate: a warm-up at least that long measures nothing.
  const double arrival_span_s = total_rate > 0 ? sim.requests / total_rate : 0;
  inputs["request_rate_per_s"] = RoundTo(total_rate, 2);
  inputs["requests"] = sim.requests;
  inputs["cores"] = sim.cores;
  inputs["cores_per_worker"] = sim.cores_per_worker;
  inputs["workers_per_sgs"] = sim.workers_per_sgs;
  inputs["worker_memory"] = o.worker_memory;
  inputs["seed"] = sim.seed;
  inputs["warmup"] = o.warmup;
  inputs["warmup_s"] = RoundTo(static_cast<double>(sim.warmup) / net::kSecond, 3);
  inputs["expected_arrival_span_s"] = RoundTo(arrival_span_s, 3);
  inputs["keep_alive"] = o.keep_alive;
  inputs["burst_period"] = o.burst_period;
  inputs["burst_sigma"] = sim.burst_sigma;
  inputs["durations"] = o.durations.empty() ? "lognormal(duration, duration_cv)" : o.durations;
  inputs["dispatch_overhead"] = o.dispatch_overhead;
  inputs["ow_pause_grace"] = o.ow_pause_grace;
  inputs["ow_unpause_cost"] = o.ow_unpause_cost;
  inputs["invoker_memory"] = o.invoker_memory.empty() ? o.worker_memory : o.invoker_memory;
  inputs["ow_stem_cells"] = sim.ow_stem_cells;
  inputs["ow_stem_cell_memory"] = o.ow_stem_cell_memory;
  inputs["ow_stem_cell_init_share"] = sim.ow_stem_cell_init_share;
  inputs["ow_stem_cell_create_ms"] =
      RoundTo(static_cast<double>(sim.ow_stem_cell_create) / net::kMillisecond, 3);
  if (o.dags.empty()) {
    inputs["apps"] = o.workload.dags;
    inputs["setup_median"] = o.setup_median;
    inputs["duration_model"] = faas::DurationModelName(o.workload.duration_model);
    inputs["duration_median"] = o.duration_median;
  }
  summary["inputs"] = inputs;

  std::string csv =
      "platform,policy,requests,completed,failed,lost,measured,deadline_met_pct,p50_ms,p99_ms,p999_"
      "ms,"
      "cold_start_pct,sandbox_memory_avg_gb,sandbox_memory_peak_gb,retries,lb_scale_outs,"
      "lb_scale_ins,max_sgs_per_dag\n";
  std::printf("%-12s %-16s %10s %10s %9s %10s %10s %10s %8s %9s %7s\n", "platform", "policy",
              "requests", "measured", "met%", "p50_ms", "p99_ms", "p99.9_ms", "cold%", "mem_GB",
              "failed");
  Json results = Json::array();
  // Where the deadline misses are: one row per platform/policy and DAG with measured requests.
  std::string per_dag =
      "platform,policy,dag,trigger,functions,rate_per_s,offered_cores,deadline_ms,"
      "critical_path_ms,measured,"
      "missed,missed_pct,missed_mean_latency_ms,missed_mean_wait_ms,missed_mean_cold_ms,"
      "missed_cold_starts\n";
  // When: per DAG and burst period, the rows with a miss, a request above the run's p99, or at
  // least 1 % of the cores offered.
  std::string per_dag_period =
      "platform,policy,dag,period_start_s,arrived,offered_cores,sgs,measured,missed,"
      "missed_mean_wait_ms,above_p99\n";
  const double period_s = static_cast<double>(sim.burst_period) / net::kSecond;
  std::vector<double> critical_path_ms;
  for (const faas::Dag& dag : catalog.dags) {
    std::vector<net::Time> declared;
    for (const faas::Function& f : catalog.functions) declared.push_back(f.duration);
    const std::vector<net::Time> path = faas::CriticalPathFrom(dag, declared);
    critical_path_ms.push_back(static_cast<double>(*std::max_element(path.begin(), path.end())) /
                               net::kMillisecond);
  }
  struct Run {
    faas::Platform platform;
    faas::QueuePolicy policy;
    bool proactive;
    bool demote_late = true;
    bool admission_control = false;
    bool hopeless_admission = false;
  };
  std::vector<Run> runs;
  for (faas::Platform p : platforms) {
    if (p == faas::Platform::kArchipelago) {
      for (faas::QueuePolicy q : policies) runs.push_back({p, q, true});
      if (o.no_proactive_ablation) runs.push_back({p, policies.front(), false});
      if (o.no_demote_ablation) runs.push_back({p, policies.front(), true, false});
      if (o.admission_control) runs.push_back({p, policies.front(), true, true, true});
      if (o.hopeless_admission) runs.push_back({p, policies.front(), true, true, false, true});
    } else {
      runs.push_back({p, faas::QueuePolicy::kFifo, false});
    }
  }
  for (const Run& run : runs) {
    faas::SimOptions options = sim;
    options.platform = run.platform;
    options.queue_policy = run.policy;
    options.proactive = run.proactive;
    options.demote_late = run.demote_late;
    options.admission_control = run.admission_control;
    options.hopeless_admission = run.hopeless_admission;
    Progress progress(std::string("faas-sim ") + faas::PlatformName(run.platform), !o.quiet);
    const uint64_t target = options.requests;
    options.on_tick = [&progress, target](double simulated, uint64_t arrived) {
      if (progress.Due()) {
        progress.Report(static_cast<double>(arrived), static_cast<double>(target),
                        FormatFixed(simulated, 1) + " s simulated, " + std::to_string(arrived) +
                            "/" + std::to_string(target) + " requests arrived");
      }
    };
    const faas::SimResult r = faas::Simulate(catalog, options);
    if (r.lost != 0) {
      throw std::runtime_error("faas-sim: " + std::to_string(r.lost) +
                               " requests neither completed nor failed (a simulator bug)");
    }
    results.push_back(ResultJson(r));
    for (faas::DagId d = 0; d < r.per_dag.size(); ++d) {
      const faas::DagOutcome& out = r.per_dag[d];
      if (out.measured == 0) continue;
      const faas::Dag& dag = catalog.dags[d];
      const double missed = static_cast<double>(std::max<uint64_t>(out.missed, 1));
      per_dag += r.platform + "," + r.policy + "," + dag.name + "," + dag.trigger + "," +
                 std::to_string(dag.nodes.size()) + "," + FormatFixed(dag.rate_per_s, 4) + "," +
                 FormatFixed(dag.rate_per_s * faas::ExpectedWork(catalog, dag), 3) + "," +
                 FormatFixed(static_cast<double>(dag.deadline) / net::kMillisecond, 3) + "," +
                 FormatFixed(critical_path_ms[d], 3) + "," + std::to_string(out.measured) + "," +
                 std::to_string(out.missed) + "," +
                 FormatFixed(100.0 * out.missed / out.measured, 3) + "," +
                 FormatFixed(1000 * out.missed_latency_s / missed, 3) + "," +
                 FormatFixed(1000 * out.missed_wait_s / missed, 3) + "," +
                 FormatFixed(1000 * out.missed_cold_s / missed, 3) + "," +
                 std::to_string(out.missed_cold_starts) + "\n";
    }
    for (const faas::DagPeriodOutcome& e : r.per_dag_period) {
      const faas::Dag& dag = catalog.dags[e.dag];
      const double offered = e.arrived * faas::ExpectedWork(catalog, dag) / period_s;
      if (e.missed == 0 && e.above_p99 == 0 && offered < 0.01 * sim.cores) continue;
      per_dag_period += r.platform + "," + r.policy + "," + dag.name + "," +
                        FormatFixed(e.period * period_s, 1) + "," + std::to_string(e.arrived) +
                        "," + FormatFixed(offered, 2) + "," + std::to_string(e.max_sgs) + "," +
                        std::to_string(e.measured) + "," + std::to_string(e.missed) + "," +
                        FormatFixed(1000 * e.missed_wait_s / std::max<uint64_t>(e.missed, 1), 1) +
                        "," + std::to_string(e.above_p99) + "\n";
    }
    std::printf("%-12s %-16s %10llu %10llu %9.3f %10.2f %10.2f %10.2f %8.3f %9.2f %7llu\n",
                r.platform.c_str(), r.policy.c_str(), static_cast<unsigned long long>(r.requests),
                static_cast<unsigned long long>(r.measured), r.deadline_met_pct, r.p50_ms, r.p99_ms,
                r.p999_ms, r.cold_start_pct, r.sandbox_memory_avg_gb,
                static_cast<unsigned long long>(r.failed));
    std::fflush(stdout);
    csv += r.platform + "," + r.policy + "," + std::to_string(r.requests) + "," +
           std::to_string(r.completed) + "," + std::to_string(r.failed) + "," +
           std::to_string(r.lost) + "," + std::to_string(r.measured) + "," +
           FormatFixed(r.deadline_met_pct, 3) + "," + FormatFixed(r.p50_ms, 3) + "," +
           FormatFixed(r.p99_ms, 3) + "," + FormatFixed(r.p999_ms, 3) + "," +
           FormatFixed(r.cold_start_pct, 3) + "," + FormatFixed(r.sandbox_memory_avg_gb, 2) + "," +
           FormatFixed(r.sandbox_memory_peak_gb, 2) + "," + std::to_string(r.retries) + "," +
           std::to_string(r.scale_outs) + "," + std::to_string(r.scale_ins) + "," +
           std::to_string(r.max_sgs_per_dag) + "\n";
    if (r.measured == 0) WarnNothingMeasured(r, o.warmup, sim.warmup, arrival_span_s);
    if (!o.quiet) {
      std::fprintf(stderr, "faas-sim: %s/%s: %llu events, %.1f s simulated, %.2f s wall\n",
                   r.platform.c_str(), r.policy.c_str(), static_cast<unsigned long long>(r.events),
                   r.simulated_s, r.wall_s);
    }
  }
  summary["results"] = results;
  WriteJsonFile(o.out + "/summary.json", summary);
  WriteFileAtomically(o.out + "/results.csv", csv);
  WriteFileAtomically(o.out + "/per_dag.csv", per_dag);
  WriteFileAtomically(o.out + "/per_dag_period.csv", per_dag_period);
  return 0;
}

}  // namespace

void AddFaasSimCommand(CLI::App& app, CommandAction* action) {
  auto o = std::make_shared<FaasSimOptions>();
  CLI::App* command = app.add_subcommand(
      "faas-sim",
      "serverless DAGs with deadlines: Archipelago vs OpenWhisk-like and Sparrow-like "
      "baselines on a simulated cluster (docs/faas.md)");
  command->add_option("--dags", o->dags,
                      "DAG file (jigsaw-faas-dags-v1); default: a generated Azure-2019-like "
                      "workload");
  CLI::Option* load = command->add_option(
      "--load", o->workload.load,
      "offered load as a fraction of the cores (rates are scaled to it; with --dags only if "
      "given)");
  command->add_option("--apps", o->workload.dags, "generated applications (DAGs)");
  command->add_option("--requests", o->sim.requests, "requests to simulate");
  command->add_option("--cores", o->sim.cores, "cluster cores");
  command->add_option("--cores-per-worker", o->sim.cores_per_worker, "cores per worker");
  command->add_option("--workers-per-sgs", o->sim.workers_per_sgs,
                      "workers in one Archipelago SGS pool");
  command->add_option("--worker-memory", o->worker_memory, "sandbox memory per worker");
  command->add_option("--platforms", o->platforms, "archipelago,openwhisk,sparrow");
  command->add_option("--policies", o->policies,
                      "Archipelago SGS queue policies to run: lsf,edf,fifo,rlsf");
  command->add_option("--seed", o->sim.seed, "seed of the workload and the simulation");
  command->add_option("--warmup", o->warmup,
                      "requests arriving earlier are served but not measured: a duration, or "
                      "auto (a tenth of the expected arrival span, at most 10s)");
  command->add_option("--keep-alive", o->keep_alive,
                      "baselines' idle sandbox keep-alive; Archipelago's keep window");
  command->add_option("--setup-median", o->setup_median, "generated sandbox setup (cold start)");
  command->add_option("--duration-median", o->duration_median, "generated function duration");
  command->add_option("--burst-period", o->burst_period, "length of one burst period");
  command->add_option("--burst-sigma", o->sim.burst_sigma,
                      "lognormal sigma of the per-period rate factor (0: plain Poisson)");
  command->add_option("--sparrow-probes", o->sim.sparrow_probes, "Sparrow probes per task");
  command->add_option("--max-retries", o->sim.max_retries,
                      "retries of a request's functions killed with their worker");
  command->add_option("--kill", o->kills, "WORKER@TIME: kill a worker (repeatable)");
  command->add_flag("--ablation-no-proactive", o->no_proactive_ablation,
                    "also run Archipelago without proactive sandbox allocation");
  command->add_flag("--ablation-no-demote-late", o->no_demote_ablation,
                    "also run Archipelago without moving hopeless tasks behind feasible ones");
  command->add_flag("--admission-control", o->admission_control,
                    "also run Archipelago with admission control (the largest requests refused "
                    "first when more work arrives than the cluster has; docs/faas.md)");
  command->add_flag("--hopeless-admission", o->hopeless_admission,
                    "also run Archipelago refusing requests already hopeless at arrival (slack "
                    "below the work queued ahead of them on their SGS per core; docs/faas.md)");
  command->add_option("--durations", o->durations,
                      "measured per-function duration quantiles (CSV dag,function,quantile,"
                      "duration; docs/faas.md) instead of lognormal(duration, duration_cv)");
  command->add_option("--dispatch-overhead", o->dispatch_overhead,
                      "constant per-task dispatch overhead, holding the core before the run");
  command->add_option("--ow-pause-grace", o->ow_pause_grace,
                      "OpenWhisk-like: a warm sandbox idle longer than this is paused (OpenWhisk's "
                      "pause-grace, 50ms)");
  command->add_option("--ow-unpause-cost", o->ow_unpause_cost,
                      "OpenWhisk-like: resuming a paused sandbox holds the core this long before "
                      "the run (0s: no pausing; docs/faas.md)");
  command->add_option("--invoker-memory", o->invoker_memory,
                      "OpenWhisk-like: memory slots per invoker (OpenWhisk's user-memory; default: "
                      "--worker-memory)");
  CLI::Option* stem_cells = command->add_option(
      "--ow-stem-cells", o->sim.ow_stem_cells,
      "OpenWhisk-like: prewarmed stem cells per invoker (OpenWhisk's runtimes.json: 2; 0: none)");
  CLI::Option* stem_memory = command->add_option(
      "--ow-stem-cell-memory", o->ow_stem_cell_memory,
      "OpenWhisk-like: a stem cell's memory; only functions of this memory take one (256MiB)");
  CLI::Option* stem_share = command->add_option(
      "--ow-stem-cell-init-share", o->sim.ow_stem_cell_init_share,
      "OpenWhisk-like: the share of a function's setup a stem-cell start still pays (its /init; "
      "0.2, our choice; docs/faas.md)");
  command->add_option("--duration-model", o->duration_model,
                      "generated durations: azure (lognormal, median --duration-median, sigma 1) "
                      "or short (log-uniform 10-100 ms; docs/faas.md)");
  command->add_flag("--quiet", o->quiet, "no progress on stderr");
  command
      ->add_option("--out", o->out,
                   "output folder (summary.json, results.csv, per_dag.csv, per_dag_period.csv)")
      ->capture_default_str();
  command->callback([o, action, load, stem_cells, stem_memory, stem_share] {
    o->stem_cells_given = stem_cells->count() + stem_memory->count() + stem_share->count() > 0;
    *action = [o, load] { return RunFaasSim(*o, load->count() > 0); };
  });
}

}  // namespace jigsaw
