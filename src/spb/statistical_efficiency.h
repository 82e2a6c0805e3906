// Statistical efficiency of SPB plans: progress per iteration relative to full backpropagation,
// taken from measured training runs (data/spb_statistical_efficiency.json, written by
// bench/spb_stat_eff.sh; definition and provenance in docs/spb_statistical_efficiency.md).
//
// Format v2 (bench/spb_bench.sh): efficiency of a (model, data set, plan, workers) entry = mean
// over seeds of (iterations full backprop needs to reach a fixed target test accuracy) /
// (iterations the plan needs), capped at 1, with the 95% t-interval of the uncapped mean and the
// seed count. Format v1 (one seed): (iterations full backprop needed to reach the plan's final
// test accuracy) / (iterations the plan used), capped at 1; no interval. Torch-free.
//
// Lookup contract:
//   * plan kind full: always known, 1.0 (full is the reference), measured or not;
//   * otherwise the entries with the same model and the same plan (kind, and the freeze depth or
//     explicit depths) are candidates; the one with the nearest measured worker count is used
//     (ties: the smaller worker count), and `measured_workers` says which;
//   * no candidate (a model or plan never measured): known = false. Callers must decide what to
//     assume; no number is invented here.
#ifndef JIGSAW_SPB_STATISTICAL_EFFICIENCY_H_
#define JIGSAW_SPB_STATISTICAL_EFFICIENCY_H_

#include <string>
#include <vector>

#include "spb/spb_plan.h"

namespace jigsaw {

struct StatisticalEfficiencyEntry {
  std::string model;
  SpbPlan plan;
  int workers = 0;
  int batch_per_worker = 0;
  int plan_iterations = 0;
  std::vector<double> epoch_test_accuracy;  // v1 only
  double statistical_efficiency = 0;        // in [0, 1]
  std::string dataset;                      // v2; "" in v1
  int seeds = 1;
  double ci_low = -1;  // the 95% interval of the mean, v2; -1 when not measured
  double ci_high = -1;
  std::string command;  // the exact command that produced the run
  int line = 0;         // where the entry starts in the data file
};

struct StatisticalEfficiencyTable {
  std::string path;
  std::vector<StatisticalEfficiencyEntry> entries;
};

// Reads the data file. Throws InputError(path, line, what was expected) on malformed input: the
// line is that of the offending entry (or of the JSON syntax error; 0 for the file as a whole).
StatisticalEfficiencyTable ReadStatisticalEfficiency(const std::string& path);

struct StatisticalEfficiency {
  bool known = false;
  double efficiency = 0;     // valid when known
  int measured_workers = 0;  // the worker count of the entry used (0 for full or unknown)
  double ci_low = -1;        // the entry's 95% interval (-1: none)
  double ci_high = -1;
  int seeds = 0;
  std::string source;  // "reference" (full), "file:line" of the entry, or why unknown
};

StatisticalEfficiency LookupStatisticalEfficiency(const StatisticalEfficiencyTable& table,
                                                  const std::string& model, const SpbPlan& plan,
                                                  int workers);

}  // namespace jigsaw

#endif  // JIGSAW_SPB_STATISTICAL_EFFICIENCY_H_
