#include "faas/sim_metrics.h"

#include <algorithm>

#include "core/stats.h"

namespace jigsaw::faas {

SimMetrics::SimMetrics(size_t dags, Time burst_period) : dags_(dags), burst_period_(burst_period) {
  result_.per_dag.assign(dags, DagOutcome{});
}

DagPeriodOutcome& SimMetrics::DagPeriod(uint32_t dag, Time at) {
  const size_t index = static_cast<size_t>(at / burst_period_) * dags_ + dag;
  if (index >= dag_period_.size()) dag_period_.resize((index / dags_ + 1) * dags_);
  return dag_period_[index];
}

void SimMetrics::Completed(const Request& r, Time now) {
  ++result_.completed;
  if (!r.measured) return;
  ++result_.measured;
  const Time latency = now - r.arrival;
  if (now <= r.deadline) ++result_.measured_met;
  latencies_ms_.push_back(static_cast<double>(latency) / net::kMillisecond);
  CountOutcome(r, now <= r.deadline, now);
}

void SimMetrics::Failed(const Request& r, Time now) {
  ++result_.failed;
  if (!r.measured) return;
  ++result_.measured;  // counted as a missed deadline
  CountOutcome(r, false, now);
}

void SimMetrics::SampleMemory(double gb) {
  memory_sum_gb_ += gb;
  ++memory_samples_;
  result_.sandbox_memory_peak_gb = std::max(result_.sandbox_memory_peak_gb, gb);
}

void SimMetrics::CountOutcome(const Request& r, bool met, Time now) {
  DagOutcome& o = result_.per_dag[r.dag];
  ++o.measured;
  DagPeriodOutcome& at = DagPeriod(r.dag, r.arrival);
  ++at.measured;
  if (met) return;
  ++at.missed;
  at.missed_wait_s += static_cast<double>(r.waited) / net::kSecond;
  ++o.missed;
  o.missed_latency_s += static_cast<double>(now - r.arrival) / net::kSecond;
  o.missed_wait_s += static_cast<double>(r.waited) / net::kSecond;
  o.missed_cold_s += static_cast<double>(r.cold) / net::kSecond;
  o.missed_cold_starts += r.cold_starts;
}

void SimMetrics::Finish(const std::vector<Request>& requests) {
  if (result_.measured > 0) {
    result_.deadline_met_pct = 100.0 * result_.measured_met / result_.measured;
  }
  FinishLatencies();
  FinishDagPeriods(requests);
  FinishTail(requests);
  if (result_.invocations > 0) {
    result_.cold_start_pct = 100.0 * result_.cold_starts / result_.invocations;
  }
  if (memory_samples_ > 0) result_.sandbox_memory_avg_gb = memory_sum_gb_ / memory_samples_;
}

void SimMetrics::FinishLatencies() {
  if (latencies_ms_.empty()) return;
  std::sort(latencies_ms_.begin(), latencies_ms_.end());
  result_.p50_ms = SampleQuantile(latencies_ms_, 0.50);
  result_.p99_ms = SampleQuantile(latencies_ms_, 0.99);
  result_.p999_ms = SampleQuantile(latencies_ms_, 0.999);
  result_.max_ms = latencies_ms_.back();
  result_.mean_ms = Mean(latencies_ms_);
  // The latency CDF at every percent, then every tenth of a percent above 99 (the tail).
  for (int i = 1; i <= 109; ++i) {
    const double p = i <= 99 ? i / 100.0 : 0.99 + (i - 99) / 1000.0;
    result_.latency_quantiles_ms.push_back({p, SampleQuantile(latencies_ms_, p)});
  }
}

// Which requests make the tail: the completed measured ones slower than the p99, per DAG and
// period; then only the entries that saw arrivals are kept, and the per-period totals (up to the
// last period with a measured request) are summed over the DAGs.
void SimMetrics::FinishDagPeriods(const std::vector<Request>& requests) {
  for (const Request& r : requests) {
    if (!r.measured || r.state != RequestState::kCompleted) continue;
    if (static_cast<double>(r.finished - r.arrival) / net::kMillisecond > result_.p99_ms) {
      ++DagPeriod(r.dag, r.arrival).above_p99;
    }
  }
  const size_t dags = dags_;
  size_t periods = 0;
  for (size_t i = 0; i < dag_period_.size(); ++i) {
    if (dag_period_[i].measured > 0) periods = i / dags + 1;
  }
  result_.measured_by_period.assign(periods, 0);
  result_.missed_by_period.assign(periods, 0);
  for (size_t i = 0; i < dag_period_.size(); ++i) {
    DagPeriodOutcome e = dag_period_[i];
    if (e.arrived == 0) continue;
    e.dag = static_cast<uint32_t>(i % dags);
    e.period = static_cast<uint32_t>(i / dags);
    result_.per_dag_period.push_back(e);
    if (e.period < periods) {
      result_.measured_by_period[e.period] += e.measured;
      result_.missed_by_period[e.period] += e.missed;
    }
  }
}

void SimMetrics::FinishTail(const std::vector<Request>& requests) {
  std::vector<double> floors_ms;
  std::vector<uint64_t> per_dag(dags_, 0);
  TailBreakdown& t = result_.tail;
  const double ms = static_cast<double>(net::kMillisecond);
  for (const Request& r : requests) {
    if (!r.measured || r.state != RequestState::kCompleted) continue;
    floors_ms.push_back(static_cast<double>(r.floor) / ms);
    const double latency_ms = static_cast<double>(r.finished - r.arrival) / ms;
    if (latency_ms <= result_.p99_ms) continue;
    ++t.requests;
    t.latency_ms += latency_ms;
    t.wait_ms += static_cast<double>(r.waited) / ms;
    t.setup_ms += static_cast<double>(r.cold) / ms;
    t.unpause_ms += static_cast<double>(r.unpaused) / ms;
    t.floor_ms += static_cast<double>(r.floor) / ms;
    t.cold_starts += r.cold_starts;
    if (per_dag[r.dag]++ == 0) ++t.dags;
  }
  if (!floors_ms.empty()) {
    std::sort(floors_ms.begin(), floors_ms.end());
    result_.p99_floor_ms = SampleQuantile(floors_ms, 0.99);
  }
  if (t.requests == 0) return;
  const double n = static_cast<double>(t.requests);
  t.latency_ms /= n;
  t.wait_ms /= n;
  t.setup_ms /= n;
  t.unpause_ms /= n;
  t.floor_ms /= n;
  t.top_dag =
      static_cast<uint32_t>(std::max_element(per_dag.begin(), per_dag.end()) - per_dag.begin());
  t.top_dag_share = static_cast<double>(per_dag[t.top_dag]) / n;
}

}  // namespace jigsaw::faas
