#include "faas/estimator.h"

#include <algorithm>

namespace jigsaw::faas {

DurationEstimator::DurationEstimator(const Catalog& catalog, double weight) : weight_(weight) {
  estimate_.reserve(catalog.functions.size());
  for (const Function& f : catalog.functions) estimate_.push_back(f.duration);
}

void DurationEstimator::Observe(FunctionId function, Time duration) {
  const double updated =
      (1 - weight_) * static_cast<double>(estimate_[function]) + weight_ * duration;
  estimate_[function] = std::max<Time>(1, static_cast<Time>(updated));
}

RateEstimator::RateEstimator(size_t keys, Time window, double weight)
    : window_(window), weight_(weight), current_(keys, 0), rate_(keys, 0), peak_(keys, 0) {}

void RateEstimator::CloseWindow() {
  const double seconds = static_cast<double>(window_) / net::kSecond;
  // The peak loses 10% per window, so a burst is remembered for a few tens of windows.
  constexpr double kPeakDecay = 0.9;
  for (size_t key = 0; key < current_.size(); ++key) {
    const double observed = current_[key] / seconds;
    rate_[key] = (1 - weight_) * rate_[key] + weight_ * observed;
    peak_[key] = std::max(observed, peak_[key] * kPeakDecay);
    current_[key] = 0;
  }
}

}  // namespace jigsaw::faas
