// Measured duration distributions, so the simulator can replay what a real run's functions took
// (`jigsaw faas-sim --durations FILE`) instead of a lognormal around a mean.
//
// DurationQuantiles: a piecewise-linear inverse CDF through (quantile, duration) points, the
// first at quantile 0 (the fastest run) and the last at 1 (the slowest); Sample(u) for u uniform
// in [0, 1) interpolates between the two points around u.
//
// Duration files (CSV, written by bench/faas_real.sh from the SGSs' /stats; '#' lines and blank
// lines are skipped):
//   dag,function,quantile,duration
//   thumbnail,resize,0,11.2ms
//   thumbnail,resize,0.5,14ms
//   thumbnail,resize,1,41ms
// Every row names a function of the catalog; each function listed needs a row at quantile 0 and
// one at 1, no quantile twice, and durations that do not decrease as the quantile grows.
// Violations are InputError(file, line, what was expected). Functions not in the file keep the
// catalog's duration and duration_cv.
//
// RecentDurations: the last `capacity` durations of each function (a ring), and their quantiles:
// what an SGS reports.
#ifndef JIGSAW_FAAS_DURATION_TABLE_H_
#define JIGSAW_FAAS_DURATION_TABLE_H_

#include <string>
#include <vector>

#include "faas/dag.h"

namespace jigsaw::faas {

struct DurationQuantiles {
  std::vector<double> quantiles;  // increasing, from 0 to 1
  std::vector<Time> durations;    // non-decreasing
  int line = 0;                   // of the first row (for errors)

  bool empty() const { return quantiles.empty(); }
  Time Sample(double u) const;
  // Mean of the piecewise-linear distribution.
  Time Mean() const;
};

// One entry per FunctionId of `catalog` (empty where the file has no rows for it).
std::vector<DurationQuantiles> ReadDurationFile(const std::string& path, const Catalog& catalog);
std::vector<DurationQuantiles> ParseDurationText(const std::string& name, const std::string& text,
                                                 const Catalog& catalog);

class RecentDurations {
 public:
  RecentDurations(size_t functions, size_t capacity = 4096);
  void Add(FunctionId function, Time duration);
  size_t count(FunctionId function) const { return seen_[function]; }
  // The durations at `quantiles` (each in [0, 1], nearest rank) of the kept samples; empty when
  // the function has none.
  std::vector<Time> Quantiles(FunctionId function, const std::vector<double>& quantiles) const;

 private:
  size_t capacity_;
  std::vector<std::vector<Time>> ring_;
  std::vector<size_t> seen_;
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_DURATION_TABLE_H_
