#include "cluster/allocation_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/rng.h"
#include "solver/linear_program.h"

namespace jigsaw {
namespace {

TEST(AllocationMath, CentreSatisfiesBoundsAndKkt) {
  const std::vector<double> lower = {0.1, 0.3, 0.0, 1.2};
  const std::vector<int> sfs = {1, 2, 4, 1};
  const double capacity = 8;
  std::vector<double> x = CentredAllocation(lower, sfs, capacity);
  double used = 0;
  for (size_t j = 0; j < x.size(); ++j) used += sfs[j] * x[j];
  EXPECT_DOUBLE_EQ(x[3], 1.0);  // lower >= 1 pins the job at 1
  ASSERT_LT(used, capacity);
  const double mu = 1.0 / (capacity - used);
  for (size_t j = 0; j < 3; ++j) {
    ASSERT_GT(x[j], lower[j]);
    ASSERT_LT(x[j], 1.0);
    // Stationarity of the log-barrier objective.
    EXPECT_NEAR(1 / (x[j] - lower[j]) - 1 / (1 - x[j]), sfs[j] * mu, 1e-6 * sfs[j] * mu + 1e-9);
  }
}

TEST(AllocationMath, CentreWithoutSlackReturnsLowerBounds) {
  std::vector<double> x = CentredAllocation({0.5, 0.5}, {2, 2}, 2.0);
  EXPECT_DOUBLE_EQ(x[0], 0.5);
  EXPECT_DOUBLE_EQ(x[1], 0.5);
}

// Max-min fairness of sf_j x_j by water filling must reach the LP optimum that CLP computes.
TEST(AllocationMath, WaterFillingMatchesTheLpOptimum) {
  Rng rng(3);
  const int sf_choices[4] = {1, 2, 4, 8};
  for (int trial = 0; trial < 50; ++trial) {
    const int n = 1 + static_cast<int>(rng.UniformInt(20));
    const double capacity = 1 + static_cast<double>(rng.UniformInt(40));
    std::vector<int> sfs(n);
    for (int& sf : sfs) sf = sf_choices[rng.UniformInt(4)];
    std::vector<double> x = WaterFillingAllocation(sfs, capacity);
    double used = 0, level = 1e300;
    for (int j = 0; j < n; ++j) {
      ASSERT_LE(x[j], 1.0 + 1e-12);
      used += sfs[j] * x[j];
      level = std::min(level, sfs[j] * x[j]);
    }
    ASSERT_LE(used, capacity + 1e-9);

    LinearProgram lp(LinearProgram::Sense::kMaximize);
    const int t = lp.AddVariable(0, LinearProgram::kInfinity, 1.0);
    std::vector<std::pair<int, double>> capacity_row;
    for (int j = 0; j < n; ++j) {
      const int v = lp.AddVariable(0, 1, 0);
      lp.AddRow({{v, static_cast<double>(sfs[j])}, {t, -1.0}}, 0, LinearProgram::kInfinity);
      capacity_row.push_back({v, static_cast<double>(sfs[j])});
    }
    lp.AddRow(capacity_row, -LinearProgram::kInfinity, capacity);
    ASSERT_EQ(lp.Solve(), LinearProgram::Status::kOptimal);
    EXPECT_NEAR(level, lp.objective_value(), 1e-7) << "trial " << trial;
  }
}

// The bisection as first written (one loop, the trial point stored every pass): the reference
// that CentredAllocation and CentredAllocationSearch must match bit for bit.
std::vector<double> PlainCentredAllocation(const std::vector<double>& lower,
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
  auto solve_at = [&](double mu, std::vector<double>* out) {
    double used = 0;
    for (size_t j : free_jobs) {
      const double l = std::max(0.0, lower[j]);
      const double width = 1.0 - l;
      const double s = scale_factors[j] * mu;
      const double b = s * width + 2.0;
      const double disc = std::sqrt(std::max(0.0, b * b - 4.0 * s * width));
      const double a = 2.0 * width / (b + disc);
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

bool BitwiseEqual(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * 8) == 0);
}

// Sequences of similar problems, as a policy's reallocations give: jobs arrive and leave, a few
// lower bounds move a little, sometimes all of them scale (min_total_duration's horizon moves),
// sometimes the capacity jumps. Every result must equal the plain bisection's bit for bit, and
// the warm start must actually skip steps.
TEST(AllocationMath, WarmStartedSearchEqualsThePlainBisectionBitForBit) {
  Rng rng(11);
  const int sf_choices[4] = {1, 2, 4, 8};
  long long skipped = 0, searches = 0, passes = 0;
  for (int sequence = 0; sequence < 40; ++sequence) {
    CentredAllocationSearch search;
    std::vector<double> lower;
    std::vector<int> sfs;
    const int n0 = 1 + static_cast<int>(rng.UniformInt(sequence < 20 ? 30 : 400));
    const double tiny = sequence % 3 == 0 ? 1e-4 : 1.0;  // heavily loaded: tiny lower bounds
    for (int j = 0; j < n0; ++j) {
      sfs.push_back(sf_choices[rng.UniformInt(4)]);
      lower.push_back(rng.UniformInt(10) == 0 ? 1.5 - rng.Uniform() : tiny * rng.Uniform() * 0.6);
    }
    double capacity = 1 + static_cast<double>(rng.UniformInt(64));
    for (int call = 0; call < 30; ++call) {
      const std::vector<double> expected = PlainCentredAllocation(lower, sfs, capacity);
      ASSERT_TRUE(BitwiseEqual(CentredAllocation(lower, sfs, capacity), expected))
          << "sequence " << sequence << " call " << call;
      ASSERT_TRUE(BitwiseEqual(search.Solve(lower, sfs, capacity), expected))
          << "sequence " << sequence << " call " << call;
      skipped += search.skipped_steps();
      passes += search.passes();
      ++searches;
      // The next problem: small changes, now and then a large one.
      const int change = static_cast<int>(rng.UniformInt(10));
      if (change == 0) {
        const double factor = 0.9 + 0.2 * rng.Uniform();
        for (double& l : lower) l *= factor;
      } else if (change == 1) {
        capacity = 1 + static_cast<double>(rng.UniformInt(64));
      } else if (change == 2 && lower.size() > 1) {
        const size_t j = rng.UniformInt(lower.size());
        lower.erase(lower.begin() + static_cast<long>(j));
        sfs.erase(sfs.begin() + static_cast<long>(j));
      } else if (change == 3) {
        sfs.push_back(sf_choices[rng.UniformInt(4)]);
        lower.push_back(tiny * rng.Uniform() * 0.6);
      } else {
        for (int k = 0; k < 3; ++k) {
          double& l = lower[rng.UniformInt(lower.size())];
          l *= 1 - 1e-3 * rng.Uniform();
        }
      }
    }
  }
  EXPECT_GT(skipped, 10 * searches);  // most searches skip most of the ~46 steps
  EXPECT_LT(passes, 30 * searches);
}

}  // namespace
}  // namespace jigsaw
