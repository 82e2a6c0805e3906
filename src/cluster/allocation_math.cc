#include "cluster/allocation_math.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace jigsaw {

namespace {

// The free jobs of a CentredAllocation problem and the pass the bisection makes over them.
struct CentreProblem {
  std::vector<double> x;  // the lower bounds (clipped), 1 for pinned jobs
  std::vector<size_t> free_jobs;
  std::vector<double> base, width, sf;  // per free job: max(0, lower), 1 - that, scale factor
  double slack = 0;
  std::vector<double> offset;

  CentreProblem(const std::vector<double>& lower, const std::vector<int>& scale_factors,
                double capacity)
      : x(lower.size()), slack(capacity) {
    for (size_t j = 0; j < lower.size(); ++j) {
      const double l = std::max(0.0, lower[j]);
      if (l >= 1.0) {
        x[j] = 1.0;
        slack -= scale_factors[j];
      } else {
        x[j] = l;
        slack -= scale_factors[j] * l;
        free_jobs.push_back(j);
        base.push_back(l);
        width.push_back(1.0 - l);
        sf.push_back(scale_factors[j]);
      }
    }
    offset.resize(free_jobs.size());
  }

  bool Trivial() const { return slack <= 1e-12 || free_jobs.empty(); }

  // The free jobs' offsets a_j above their lower bounds at multiplier mu (each the root inside
  // (0, width_j) of 1/a - 1/(width_j - a) = sf_j * mu), and sum_j sf_j a_j added up in job
  // order: the order of the additions fixes the rounding. Element-wise first, then the sum, so
  // that the first loop vectorises; each operation is the same IEEE operation as in one loop.
  double Used(double mu) {
    const size_t n = width.size();
    const double* w = width.data();
    const double* f = sf.data();
    double* a = offset.data();
    for (size_t i = 0; i < n; ++i) {
      const double s = f[i] * mu;
      const double b = s * w[i] + 2.0;
      const double disc = std::sqrt(std::max(0.0, b * b - 4.0 * s * w[i]));
      a[i] = 2.0 * w[i] / (b + disc);
    }
    double used = 0;
    for (size_t i = 0; i < n; ++i) used += f[i] * a[i];
    return used;
  }

  // The bisection's test: mu * (capacity - sum sf x) against 1.
  double Balance(double mu, double* used) {
    *used = Used(mu);
    return mu * (slack - *used);
  }

  std::vector<double> Result() {
    for (size_t i = 0; i < free_jobs.size(); ++i) x[free_jobs[i]] = base[i] + offset[i];
    return std::move(x);
  }
};

constexpr double kMinMultiplier = 1e-12, kMaxMultiplier = 1e12;

// One bisection step from [*lo, *hi]; false once the bracket is narrow enough. `offsets_at_hi`
// says whether the problem's offsets are those at *hi.
bool BisectionStep(CentreProblem* problem, double* lo, double* hi, bool* offsets_at_hi) {
  const double mid = std::sqrt(*lo * *hi);
  double used;
  if (problem->Balance(mid, &used) < 1.0) {
    *lo = mid;
    *offsets_at_hi = false;
  } else {
    *hi = mid;
    *offsets_at_hi = true;
  }
  return !(*hi / *lo < 1 + 1e-12);
}

}  // namespace

std::vector<double> CentredAllocation(const std::vector<double>& lower,
                                      const std::vector<int>& scale_factors, double capacity) {
  CentreProblem problem(lower, scale_factors, capacity);
  if (problem.Trivial()) return std::move(problem.x);
  // For a multiplier mu, each free x_j solves 1/(x - l) - 1/(1 - x) = sf * mu; then mu is set
  // so that mu * (capacity - sum sf x) = 1.
  double lo = kMinMultiplier, hi = kMaxMultiplier;
  bool offsets_at_hi = false;
  for (int iter = 0; iter < 200; ++iter) {
    if (!BisectionStep(&problem, &lo, &hi, &offsets_at_hi)) break;
  }
  if (!offsets_at_hi) problem.Used(hi);
  return problem.Result();
}

// Why skipping is exact. Let c bound the relative error of a pass's sum, |used_fp - used| <= c
// used, where `used` is the sum in real arithmetic of the exact roots for the same (rounded)
// inputs: each term is off by at most ~10 roundings (u = 2^-53 each; the discriminant
// b^2 - 4 s w = (s w)^2 + 4 loses at most a factor 2 to cancellation) and the sequential sum of
// n positive terms by (n - 1) u, so c = (n + 64) 2u is generous. In real arithmetic `used`
// decreases in mu. The test value g_fp(m) = fl(m fl(slack - used_fp(m))) then satisfies
//   m (slack - (1 + c) used(m)) (1 - 2u) <= g_fp(m) <= m (slack - (1 - c) used(m)) (1 + 2u)
// (the upper bound when slack - used_fp(m) >= 0; otherwise g_fp(m) <= 0). For m < A:
//   g_fp(m) <= A (slack - (1 - c) used(A)) (1 + 2u) <= (g_fp(A) / (1 - 2u) + 2c A used(A)) (1 +
//   2u),
// so if that is < 1 (with used(A) <= used_fp(A) / (1 - c)) every bisection step whose midpoint
// is <= A moves lo. For m > B: g_fp(m) >= (m / B) B (slack - (1 + c) used(B)) (1 - 2u)
//   >= (g_fp(B) / (1 + 2u) - 2c B used(B)) (1 - 2u),
// so if that is >= 1 every step whose midpoint is >= B moves hi. (8u more on each test covers
// the rounding of the tests themselves.) Such points A and B are found by a few secant steps on
// log g against log mu from the last search's multiplier; the bisection then runs from its
// fixed start, taking the decided steps without a pass.
std::vector<double> CentredAllocationSearch::Solve(const std::vector<double>& lower,
                                                   const std::vector<int>& scale_factors,
                                                   double capacity) {
  skipped_ = 0;
  passes_ = 0;
  CentreProblem problem(lower, scale_factors, capacity);
  if (problem.Trivial()) return std::move(problem.x);
  const double u = 0x1p-53;
  const double c = (static_cast<double>(problem.free_jobs.size()) + 64) * 2 * u;
  double below = kMinMultiplier, above = kMaxMultiplier;  // proven: midpoints <= below move lo,
                                                          // midpoints >= above move hi
  double margin = 0;  // the last test's error term relative to g, 2c m used
  // Evaluates g_fp at m, tightens the proven points; returns g_fp(m).
  auto probe = [&](double m) {
    double used;
    const double g = problem.Balance(m, &used);
    ++passes_;
    const double err = 2 * c * m * used / (1 - c);
    margin = err;
    if (m > below && (g / (1 - 2 * u) + err) * (1 + 2 * u) < 1.0 - 8 * u) below = m;
    if (m < above && (g / (1 + 2 * u) - err) * (1 - 2 * u) >= 1.0 + 8 * u) above = m;
    return g;
  };
  if (last_root_ > 0) {
    // F(m) = (g_fp(m) - 1) / m = slack - used(m) - 1/m increases with m: bracket its root from
    // the last multiplier outwards, then narrow the bracket by regula falsi (Illinois) until the
    // rounding error hides the side; then prove points a few error bounds either side.
    double last_m = 0, last_g = 0, slope = 0;  // slope: d g / d log m between the last probes
    auto f = [&](double m) {
      const double g = probe(m);
      if (last_m > 0 && m != last_m) slope = std::abs((g - last_g) / std::log(m / last_m));
      last_m = m;
      last_g = g;
      return (g - 1) / m;
    };
    double a = std::clamp(last_root_, 1e-11, 1e11);
    double fa = f(a);
    double b = a, fb = fa;
    for (double step = 0.01; fa != 0 && (fb < 0) == (fa < 0) && passes_ < 10; step *= 4) {
      a = b;
      fa = fb;
      b = std::clamp(fa < 0 ? a * (1 + step) : a / (1 + step), 1e-11, 1e11);
      if (b == a) break;
      fb = f(b);
    }
    if (fa != 0 && fb != 0 && (fb < 0) != (fa < 0)) {
      while (passes_ < 16 && std::abs(last_g - 1) > 64 * margin) {
        double m = (a * fb - b * fa) / (fb - fa);
        if (!(m > std::min(a, b) && m < std::max(a, b))) m = std::sqrt(a * b);
        const double fm = f(m);
        if (fm == 0) break;
        if ((fm < 0) != (fb < 0)) {
          a = b;
          fa = fb;
        } else {
          fa /= 2;
        }
        b = m;
        fb = fm;
      }
      const double estimate = last_m;
      double width = slope > 0 ? 4 * (margin + 16 * u) / slope : 1e-9;
      for (int k = 0; k < 3 && !(above / below < 1 + 1e-9); ++k, width *= 16) {
        if (below < estimate * (1 - width)) probe(estimate * (1 - width));
        if (above > estimate * (1 + width)) probe(estimate * (1 + width));
      }
    }
  }
  double lo = kMinMultiplier, hi = kMaxMultiplier;
  bool offsets_at_hi = false;
  for (int iter = 0; iter < 200; ++iter) {
    const double mid = std::sqrt(lo * hi);
    if (mid <= below) {
      lo = mid;
      offsets_at_hi = false;
      ++skipped_;
    } else if (mid >= above) {
      hi = mid;
      offsets_at_hi = false;
      ++skipped_;
    } else {
      double used;
      ++passes_;
      if (problem.Balance(mid, &used) < 1.0) {
        lo = mid;
        offsets_at_hi = false;
      } else {
        hi = mid;
        offsets_at_hi = true;
      }
    }
    if (hi / lo < 1 + 1e-12) break;
  }
  if (!offsets_at_hi) {
    problem.Used(hi);
    ++passes_;
  }
  last_root_ = hi;
  return problem.Result();
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
