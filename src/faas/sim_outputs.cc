#include "faas/sim_outputs.h"

#include <algorithm>
#include <cstdio>

#include "core/result_set.h"
#include "faas/workload.h"

namespace jigsaw::faas {
namespace {

constexpr char kResultsHeader[] =
    "platform,policy,requests,completed,failed,lost,measured,deadline_met_pct,p50_ms,p99_ms,"
    "p999_ms,cold_start_pct,sandbox_memory_avg_gb,sandbox_memory_peak_gb,retries,lb_scale_outs,"
    "lb_scale_ins,max_sgs_per_dag\n";
constexpr char kPerDagHeader[] =
    "platform,policy,dag,trigger,functions,rate_per_s,offered_cores,deadline_ms,"
    "critical_path_ms,measured,missed,missed_pct,missed_mean_latency_ms,missed_mean_wait_ms,"
    "missed_mean_cold_ms,missed_cold_starts\n";
constexpr char kPerDagPeriodHeader[] =
    "platform,policy,dag,period_start_s,arrived,offered_cores,sgs,measured,missed,"
    "missed_mean_wait_ms,above_p99\n";

double Ms(Time t) { return static_cast<double>(t) / net::kMillisecond; }

Json TailJson(const TailBreakdown& t) {
  Json tail;
  tail["requests"] = t.requests;
  tail["mean_latency_ms"] = RoundTo(t.latency_ms, 3);
  tail["mean_wait_ms"] = RoundTo(t.wait_ms, 3);
  tail["mean_setup_ms"] = RoundTo(t.setup_ms, 3);
  tail["mean_unpause_ms"] = RoundTo(t.unpause_ms, 3);
  tail["mean_floor_ms"] = RoundTo(t.floor_ms, 3);
  tail["cold_starts"] = t.cold_starts;
  tail["dags"] = t.dags;
  tail["top_dag"] = t.top_dag;
  tail["top_dag_share"] = RoundTo(t.top_dag_share, 4);
  return tail;
}

// The OpenWhisk-like options and the generated workload's, in summary.json's order.
void AddBaselineAndWorkloadInputs(const SimRunOptions& o, const SimRunSpec& spec, Json* inputs) {
  Json& j = *inputs;
  j["dispatch_overhead"] = o.dispatch_overhead;
  j["ow_pause_grace"] = o.ow_pause_grace;
  j["ow_unpause_cost"] = o.ow_unpause_cost;
  j["invoker_memory"] = o.invoker_memory.empty() ? o.worker_memory : o.invoker_memory;
  j["ow_stem_cells"] = spec.sim.ow_stem_cells;
  j["ow_stem_cell_memory"] = o.ow_stem_cell_memory;
  j["ow_stem_cell_init_share"] = spec.sim.ow_stem_cell_init_share;
  j["ow_stem_cell_create_ms"] = RoundTo(Ms(spec.sim.ow_stem_cell_create), 3);
  if (o.dags.empty()) {
    j["apps"] = spec.workload.dags;
    j["setup_median"] = o.setup_median;
    j["duration_model"] = DurationModelName(spec.workload.duration_model);
    j["duration_median"] = o.duration_median;
  }
}

}  // namespace

SimInputFacts FactsOf(const Catalog& catalog, const SimRunSpec& spec) {
  SimInputFacts facts;
  facts.dag_count = catalog.dags.size();
  facts.function_count = catalog.functions.size();
  double offered = 0;
  for (const Dag& dag : catalog.dags) {
    offered += dag.rate_per_s * ExpectedWork(catalog, dag);
    facts.request_rate_per_s += dag.rate_per_s;
  }
  facts.offered_load = offered / spec.sim.cores;
  facts.warmup = spec.sim.warmup;
  // The arrivals span about requests / rate: a warm-up at least that long measures nothing.
  facts.arrival_span_s =
      facts.request_rate_per_s > 0 ? spec.sim.requests / facts.request_rate_per_s : 0;
  return facts;
}

Json SimInputsJson(const SimRunOptions& o, const SimRunSpec& spec, const SimInputFacts& facts) {
  const SimOptions& sim = spec.sim;
  Json j;
  j["dags"] = o.dags.empty() ? "generated (Azure Functions 2019 calibrated)" : o.dags;
  j["dag_count"] = facts.dag_count;
  j["function_count"] = facts.function_count;
  j["offered_load"] = RoundTo(facts.offered_load, 4);
  j["request_rate_per_s"] = RoundTo(facts.request_rate_per_s, 2);
  j["requests"] = sim.requests;
  j["cores"] = sim.cores;
  j["cores_per_worker"] = sim.cores_per_worker;
  j["workers_per_sgs"] = sim.workers_per_sgs;
  j["worker_memory"] = o.worker_memory;
  j["seed"] = sim.seed;
  j["warmup"] = o.warmup;
  j["warmup_s"] = RoundTo(static_cast<double>(facts.warmup) / net::kSecond, 3);
  j["expected_arrival_span_s"] = RoundTo(facts.arrival_span_s, 3);
  j["keep_alive"] = o.keep_alive;
  j["burst_period"] = o.burst_period;
  j["burst_sigma"] = sim.burst_sigma;
  j["durations"] = o.durations.empty() ? "lognormal(duration, duration_cv)" : o.durations;
  AddBaselineAndWorkloadInputs(o, spec, &j);
  return j;
}

Json SimResultJson(const SimResult& r) {
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
  j["tail_above_p99"] = TailJson(r.tail);
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

std::string SimTableHeader() {
  char line[256];
  std::snprintf(line, sizeof(line), "%-12s %-16s %10s %10s %9s %10s %10s %10s %8s %9s %7s\n",
                "platform", "policy", "requests", "measured", "met%", "p50_ms", "p99_ms",
                "p99.9_ms", "cold%", "mem_GB", "failed");
  return line;
}

std::string SimTableRow(const SimResult& r) {
  char line[512];
  std::snprintf(line, sizeof(line),
                "%-12s %-16s %10llu %10llu %9.3f %10.2f %10.2f %10.2f %8.3f %9.2f %7llu\n",
                r.platform.c_str(), r.policy.c_str(), static_cast<unsigned long long>(r.requests),
                static_cast<unsigned long long>(r.measured), r.deadline_met_pct, r.p50_ms, r.p99_ms,
                r.p999_ms, r.cold_start_pct, r.sandbox_memory_avg_gb,
                static_cast<unsigned long long>(r.failed));
  return line;
}

SimOutputs::SimOutputs(const Catalog& catalog, Time burst_period, int cores)
    : catalog_(catalog),
      period_s_(static_cast<double>(burst_period) / net::kSecond),
      cores_(cores),
      results_csv_(kResultsHeader),
      per_dag_csv_(kPerDagHeader),
      per_dag_period_csv_(kPerDagPeriodHeader) {
  std::vector<Time> declared;
  for (const Function& f : catalog.functions) declared.push_back(f.duration);
  for (const Dag& dag : catalog.dags) {
    const std::vector<Time> path = CriticalPathFrom(dag, declared);
    critical_path_ms_.push_back(Ms(*std::max_element(path.begin(), path.end())));
  }
}

void SimOutputs::Add(const SimResult& r) {
  results_.push_back(SimResultJson(r));
  AddPerDag(r);
  AddPerDagPeriod(r);
  results_csv_ +=
      CsvField(r.platform) + "," + CsvField(r.policy) + "," + std::to_string(r.requests) + "," +
      std::to_string(r.completed) + "," + std::to_string(r.failed) + "," + std::to_string(r.lost) +
      "," + std::to_string(r.measured) + "," + FormatFixed(r.deadline_met_pct, 3) + "," +
      FormatFixed(r.p50_ms, 3) + "," + FormatFixed(r.p99_ms, 3) + "," + FormatFixed(r.p999_ms, 3) +
      "," + FormatFixed(r.cold_start_pct, 3) + "," + FormatFixed(r.sandbox_memory_avg_gb, 2) + "," +
      FormatFixed(r.sandbox_memory_peak_gb, 2) + "," + std::to_string(r.retries) + "," +
      std::to_string(r.scale_outs) + "," + std::to_string(r.scale_ins) + "," +
      std::to_string(r.max_sgs_per_dag) + "\n";
}

void SimOutputs::AddPerDag(const SimResult& r) {
  for (DagId d = 0; d < r.per_dag.size(); ++d) {
    const DagOutcome& out = r.per_dag[d];
    if (out.measured == 0) continue;
    const Dag& dag = catalog_.dags[d];
    const double missed = static_cast<double>(std::max<uint64_t>(out.missed, 1));
    per_dag_csv_ += CsvField(r.platform) + "," + CsvField(r.policy) + "," + CsvField(dag.name) +
                    "," + CsvField(dag.trigger) + "," + std::to_string(dag.nodes.size()) + "," +
                    FormatFixed(dag.rate_per_s, 4) + "," +
                    FormatFixed(dag.rate_per_s * ExpectedWork(catalog_, dag), 3) + "," +
                    FormatFixed(Ms(dag.deadline), 3) + "," + FormatFixed(critical_path_ms_[d], 3) +
                    "," + std::to_string(out.measured) + "," + std::to_string(out.missed) + "," +
                    FormatFixed(100.0 * out.missed / out.measured, 3) + "," +
                    FormatFixed(1000 * out.missed_latency_s / missed, 3) + "," +
                    FormatFixed(1000 * out.missed_wait_s / missed, 3) + "," +
                    FormatFixed(1000 * out.missed_cold_s / missed, 3) + "," +
                    std::to_string(out.missed_cold_starts) + "\n";
  }
}

void SimOutputs::AddPerDagPeriod(const SimResult& r) {
  for (const DagPeriodOutcome& e : r.per_dag_period) {
    const Dag& dag = catalog_.dags[e.dag];
    const double offered = e.arrived * ExpectedWork(catalog_, dag) / period_s_;
    if (e.missed == 0 && e.above_p99 == 0 && offered < 0.01 * cores_) continue;
    per_dag_period_csv_ +=
        CsvField(r.platform) + "," + CsvField(r.policy) + "," + CsvField(dag.name) + "," +
        FormatFixed(e.period * period_s_, 1) + "," + std::to_string(e.arrived) + "," +
        FormatFixed(offered, 2) + "," + std::to_string(e.max_sgs) + "," +
        std::to_string(e.measured) + "," + std::to_string(e.missed) + "," +
        FormatFixed(1000 * e.missed_wait_s / std::max<uint64_t>(e.missed, 1), 1) + "," +
        std::to_string(e.above_p99) + "\n";
  }
}

void SimOutputs::Commit(const std::string& out, const Json& inputs) const {
  Json summary;
  summary["format"] = "jigsaw-faas-sim-v1";
  summary["inputs"] = inputs;
  summary["results"] = results_;
  ResultSet files(out);
  files.Add("summary.json", summary.dump(2) + "\n");
  files.Add("results.csv", results_csv_);
  files.Add("per_dag.csv", per_dag_csv_);
  files.Add("per_dag_period.csv", per_dag_period_csv_);
  files.Commit();
}

}  // namespace jigsaw::faas
