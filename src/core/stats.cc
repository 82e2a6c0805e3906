#include "core/stats.h"

#include <algorithm>
#include <cmath>

namespace jigsaw {

double Mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / values.size();
}

double GeometricMean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double log_sum = 0;
  for (double v : values) log_sum += std::log(v);
  return std::exp(log_sum / values.size());
}

double HarmonicMean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double inverse_sum = 0;
  for (double v : values) inverse_sum += 1.0 / v;
  return values.size() / inverse_sum;
}

double Max(const std::vector<double>& values) {
  if (values.empty()) return 0;
  return *std::max_element(values.begin(), values.end());
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  double rank = p / 100.0 * (values.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(rank));
  size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (rank - lo) * (values[hi] - values[lo]);
}

double SampleQuantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t i = static_cast<size_t>(q * (sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

double FractionAbove(const std::vector<double>& values, double threshold) {
  if (values.empty()) return 0;
  size_t count =
      std::count_if(values.begin(), values.end(), [&](double v) { return v > threshold; });
  return static_cast<double>(count) / values.size();
}

}  // namespace jigsaw
