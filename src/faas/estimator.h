// Online estimates the schedulers and the sandbox allocator act on.
//
// DurationEstimator: per function, an exponentially weighted moving average of observed execution
// times, starting from the function's declared duration (the prior), so an SGS's slack follows
// what functions really take. RateEstimator: per key (function or DAG), arrivals counted per
// window of length `window` and folded into an EWMA of the rate, in events per second.
#ifndef JIGSAW_FAAS_ESTIMATOR_H_
#define JIGSAW_FAAS_ESTIMATOR_H_

#include <cstddef>
#include <vector>

#include "faas/dag.h"

namespace jigsaw::faas {

class DurationEstimator {
 public:
  // weight: how much one observation moves the average, in (0, 1].
  DurationEstimator(const Catalog& catalog, double weight = 0.1);

  void Observe(FunctionId function, Time duration);
  Time Estimate(FunctionId function) const { return estimate_[function]; }
  const std::vector<Time>& estimates() const { return estimate_; }

 private:
  double weight_;
  std::vector<Time> estimate_;
};

class RateEstimator {
 public:
  RateEstimator(size_t keys, Time window, double weight = 0.3);

  void Count(size_t key, unsigned events = 1) { current_[key] += events; }
  // Closes the current window (call once per `window`): rate = (1-w) rate + w count/window.
  void CloseWindow();
  double RatePerSecond(size_t key) const { return rate_[key]; }
  // Largest single-window rate seen in the last few windows (bursts), per second.
  double PeakPerSecond(size_t key) const { return peak_[key]; }
  Time window() const { return window_; }

 private:
  Time window_;
  double weight_;
  std::vector<unsigned> current_;
  std::vector<double> rate_;
  std::vector<double> peak_;
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_ESTIMATOR_H_
