// What the simulator measures (faas::Simulate's engine, private to src/faas): the SimResult
// counters, the measured latencies, the per-DAG and per-burst-period outcomes and the sandbox
// memory samples, and the summary computed from them at the end of the run.
//
// Contract: a request counts as measured when it arrived after the warm-up; Completed and Failed
// are called once per request, when it ends; Finish is called once, after the last event, with
// every request of the run.
#ifndef JIGSAW_FAAS_SIM_METRICS_H_
#define JIGSAW_FAAS_SIM_METRICS_H_

#include <cstddef>
#include <vector>

#include "faas/sim_records.h"
#include "faas/simulator.h"

namespace jigsaw::faas {

class SimMetrics {
 public:
  SimMetrics(size_t dags, Time burst_period);

  // The counters the engine bumps directly (requests, invocations, cold starts, sandboxes, ...).
  SimResult& result() { return result_; }

  // The outcome of `dag`'s requests arriving in the burst period holding `at`.
  DagPeriodOutcome& DagPeriod(uint32_t dag, Time at);
  // A request completed at `now` (latency and deadline counted when measured).
  void Completed(const Request& r, Time now);
  // A request failed at `now` (a missed deadline when measured).
  void Failed(const Request& r, Time now);
  // Sandbox memory in use over the cluster, sampled once per tick.
  void SampleMemory(double gb);

  // The percentiles, the tail breakdown, the per-period totals and the averages.
  void Finish(const std::vector<Request>& requests);

 private:
  void CountOutcome(const Request& r, bool met, Time now);
  void FinishLatencies();
  void FinishDagPeriods(const std::vector<Request>& requests);
  void FinishTail(const std::vector<Request>& requests);

  size_t dags_;
  Time burst_period_;
  SimResult result_;
  std::vector<double> latencies_ms_;
  std::vector<DagPeriodOutcome> dag_period_;  // period * dags + dag
  double memory_sum_gb_ = 0;
  uint64_t memory_samples_ = 0;
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_SIM_METRICS_H_
