#include "cluster/allocation_math.h"

#include <gtest/gtest.h>

#include <cmath>

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

}  // namespace
}  // namespace jigsaw
