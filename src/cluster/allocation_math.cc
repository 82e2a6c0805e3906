#include "cluster/allocation_math.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace jigsaw {

std::vector<double> CentredAllocation(const std::vector<double>& lower,
                                      const std::vector<int>& scale_factors, double capacity) {
  const size_t n = lower.size();
  std::vector<double> x(n);
  std::vector<size_t> free_jobs;
  double slack = capacity;
  for (size_t j = 0; j < n; ++j) {
    const double l = std::max(0.0, lower[j]);
    if (l >= 1.0) {
      x[j] = 1.0;
      slack -= scale_factors[j];
    } else {
      x[j] = l;
      slack -= scale_factors[j] * l;
      free_jobs.push_back(j);
    }
  }
  if (slack <= 1e-12 || free_jobs.empty()) return x;

  // For a multiplier mu, each free x_j solves 1/(x - l) - 1/(1 - x) = sf * mu; then mu is set
  // so that mu * (capacity - sum sf x) = 1.
  auto solve_at = [&](double mu, std::vector<double>* out) {
    double used = 0;
    for (size_t j : free_jobs) {
      const double l = std::max(0.0, lower[j]);
      const double width = 1.0 - l;
      const double s = scale_factors[j] * mu;
      const double b = s * width + 2.0;
      const double disc = std::sqrt(std::max(0.0, b * b - 4.0 * s * width));
      const double a = 2.0 * width / (b + disc);  // the root inside (0, width)
      (*out)[j] = l + a;
      used += scale_factors[j] * a;
    }
    return mu * (slack - used);
  };
  double lo = 1e-12, hi = 1e12;
  std::vector<double> trial = x;
  for (int iter = 0; iter < 200; ++iter) {
    const double mid = std::sqrt(lo * hi);
    if (solve_at(mid, &trial) < 1.0) {
      lo = mid;
    } else {
      hi = mid;
    }
    if (hi / lo < 1 + 1e-12) break;
  }
  solve_at(hi, &x);
  return x;
}

std::vector<double> WaterFillingAllocation(const std::vector<int>& scale_factors, double capacity) {
  const size_t n = scale_factors.size();
  std::vector<double> x(n, 0.0);
  if (n == 0) return x;
  // Level t = sf_j * x_j, raised for all unfrozen jobs; job j freezes at t = sf_j (x_j = 1).
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scale_factors[a] < scale_factors[b]; });
  double remaining = capacity;
  size_t unfrozen = n;
  double level = 0;
  for (size_t k = 0; k < n; ++k) {
    const size_t j = order[k];
    const double cap_level = scale_factors[j];
    const double cost = (cap_level - level) * unfrozen;
    if (cost <= remaining) {
      remaining -= cost;
      level = cap_level;
      x[j] = 1.0;
      --unfrozen;
    } else {
      level += remaining / unfrozen;
      for (size_t m = k; m < n; ++m) x[order[m]] = level / scale_factors[order[m]];
      return x;
    }
  }
  return x;
}

}  // namespace jigsaw
