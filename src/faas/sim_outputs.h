// The output format of `jigsaw faas-sim` (docs/faas.md, "Outputs"): summary.json
// ("jigsaw-faas-sim-v1": the inputs and one result object per run), results.csv (one row per
// run), per_dag.csv (per run and DAG with measured requests: where the deadline misses are) and
// per_dag_period.csv (per run, DAG and burst period with a miss, a request above the run's p99,
// or at least 1 % of the cores offered: when they happen), and the table printed on stdout.
// Numbers are rounded as written here so equal runs give equal bytes; text fields go through
// CsvField. SimOutputs::Commit writes the four files as one core ResultSet (a kill never leaves
// one run's summary beside another's CSV files).
#ifndef JIGSAW_FAAS_SIM_OUTPUTS_H_
#define JIGSAW_FAAS_SIM_OUTPUTS_H_

#include <string>
#include <vector>

#include "core/output.h"
#include "faas/dag.h"
#include "faas/sim_options.h"
#include "faas/simulator.h"

namespace jigsaw::faas {

// What summary.json's "inputs" echoes besides the options: the catalog and the resolved warm-up.
struct SimInputFacts {
  size_t dag_count = 0, function_count = 0;
  double offered_load = 0;        // sum of rate x expected work, per core
  double request_rate_per_s = 0;  // summed over the DAGs
  Time warmup = 0;
  double arrival_span_s = 0;  // requests / request rate
};

// The catalog's facts for `spec` (with its warm-up already resolved).
SimInputFacts FactsOf(const Catalog& catalog, const SimRunSpec& spec);
// Options as spelled, typed values from `spec`.
Json SimInputsJson(const SimRunOptions& options, const SimRunSpec& spec,
                   const SimInputFacts& facts);
// One element of summary.json's "results".
Json SimResultJson(const SimResult& r);

// The stdout table: its header line and one line per run.
std::string SimTableHeader();
std::string SimTableRow(const SimResult& r);

// Collects the runs' results and rows; Commit writes the output folder.
class SimOutputs {
 public:
  // `catalog` must outlive this object.
  SimOutputs(const Catalog& catalog, Time burst_period, int cores);
  void Add(const SimResult& r);
  // summary.json, results.csv, per_dag.csv and per_dag_period.csv in `out` (created if absent).
  void Commit(const std::string& out, const Json& inputs) const;

  const std::string& results_csv() const { return results_csv_; }
  const std::string& per_dag_csv() const { return per_dag_csv_; }
  const std::string& per_dag_period_csv() const { return per_dag_period_csv_; }

 private:
  void AddPerDag(const SimResult& r);
  void AddPerDagPeriod(const SimResult& r);

  const Catalog& catalog_;
  double period_s_;
  int cores_;
  std::vector<double> critical_path_ms_;  // per DAG, from the declared durations
  Json results_ = Json::array();
  std::string results_csv_, per_dag_csv_, per_dag_period_csv_;
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_SIM_OUTPUTS_H_
