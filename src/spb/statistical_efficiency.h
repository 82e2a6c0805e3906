// Statistical efficiency of SPB plans: progress per iteration relative to full backpropagation,
// taken from measured training runs (data/spb_statistical_efficiency.json, written by
// bench/spb_bench.sh; definition and provenance in docs/spb_statistical_efficiency.md).
//
// Format v2 (bench/spb_bench.sh): efficiency of a (model, data set, plan, workers) entry = mean
// over seeds of (iterations full backprop needs to reach a fixed target test accuracy) /
// (iterations the plan needs), capped at 1, with the 95% t-interval of the uncapped mean and the
// seed count. Format v1 (one seed): (iterations full backprop needed to reach the plan's final
// test accuracy) / (iterations the plan used), capped at 1; no interval. Torch-free.
//
// A v1 entry needs model, plan, workers and statistical_efficiency; it may give
// "statistical_efficiency_interval": [low, high] (low <= value <= high) and "seeds", and the
// provenance fields batch_per_worker, plan_iterations, epoch_test_accuracy and command. A v2
// entry needs all of model, dataset, plan, workers, batch_per_worker, plan_iterations, seeds,
// statistical_efficiency, ci_95 and command (ci_95 null for a single seed).
//
// Lookup contract:
//   * plan kind full: always known, 1.0 (full is the reference), measured or not;
//   * otherwise the entries with the same model (names compared without case and punctuation:
//     the trace's "ResNet-18" is the runtime's "resnet18") and the same plan (kind, and the
//     freeze depth or explicit depths) are candidates; the one with the nearest measured worker
//     count is used (ties: the smaller worker count), and `measured_workers` says which;
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
  std::vector<double> epoch_test_accuracy;  // v1 only, optional
  double statistical_efficiency = 0;        // in [0, 1]
  std::string dataset;                      // v2; "" in v1
  int seeds = 1;
  // v2: "ci_95", the 95% t-interval of the uncapped mean over seeds (may pass 1); v1: the
  // optional "statistical_efficiency_interval" (inside [0, 1], containing the value).
  bool has_interval = false;
  double ci_low = 0;
  double ci_high = 0;
  std::string command;  // the exact command that produced the run
  int line = 0;         // where the entry starts in the data file
  // Optional (phase plans, adaptive entries): progress per iteration during the iterations after
  // the first freeze, relative to full backpropagation, and its 95% interval clamped to [0, 1]
  // ("frozen_phase_efficiency", "frozen_phase_ci_95"; docs/spb_statistical_efficiency.md).
  bool has_frozen_phase = false;
  double frozen_phase_efficiency = 0, frozen_phase_low = 0, frozen_phase_high = 0;
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
  double efficiency = 0;  // valid when known
  // The entry's interval as written (v2: of the uncapped mean, so it may pass 1); equal to
  // `efficiency` when it gives none (and for full).
  double low = 0, high = 0;
  bool has_interval = false;
  int seeds = 0;
  int measured_workers = 0;    // the worker count of the entry used (0 for full or unknown)
  std::string measured_model;  // the entry's model name
  std::string source;          // "reference" (full), "file:line" of the entry, or why unknown
  // The entry's frozen-phase efficiency, when it gives one (see StatisticalEfficiencyEntry).
  bool frozen_phase_known = false;
  double frozen_phase_efficiency = 0, frozen_phase_low = 0, frozen_phase_high = 0;
};

// "ResNet-18" -> "resnet18": lower case, letters and digits only.
std::string NormalizedModelName(const std::string& model);

StatisticalEfficiency LookupStatisticalEfficiency(const StatisticalEfficiencyTable& table,
                                                  const std::string& model, const SpbPlan& plan,
                                                  int workers);

}  // namespace jigsaw

#endif  // JIGSAW_SPB_STATISTICAL_EFFICIENCY_H_
