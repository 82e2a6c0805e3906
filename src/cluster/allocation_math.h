// Closed-form and numerical helpers shared by the time-fraction policies.
//
// Gavel's LPs (max-min fairness, min total duration, Themis) often have a whole face of optimal
// allocations; the interior-point solvers the reference used return a point near the analytic
// centre of that face. CentredAllocation computes that centre exactly, so our closed forms pick
// the same kind of answer without any LP solver.
#ifndef JIGSAW_CLUSTER_ALLOCATION_MATH_H_
#define JIGSAW_CLUSTER_ALLOCATION_MATH_H_

#include <vector>

namespace jigsaw {

// Analytic centre of {x : lower_j <= x_j <= 1, sum_j sf_j x_j <= capacity}: the maximiser of
// sum_j [log(x_j - lower_j) + log(1 - x_j)] + log(capacity - sum_j sf_j x_j). Jobs with
// lower_j >= 1 get 1; if the lower bounds leave no slack, returns the lower bounds (clipped).
std::vector<double> CentredAllocation(const std::vector<double>& lower,
                                      const std::vector<int>& scale_factors, double capacity);

// CentredAllocation for a sequence of similar inputs (a policy's successive reallocations): the
// same result, bit for bit, with fewer passes over the jobs. CentredAllocation finds its
// multiplier by ~46 steps of bisection on a log scale from a fixed bracket, each step a pass over
// the free jobs. This first probes a few multipliers near the last search's root (secant steps)
// and keeps those whose test value is so far from 1 that the rounding error of a pass (bounded
// in allocation_math.cc) cannot change the side: every bisection midpoint below such a point
// moves the bracket up, every one above moves it down, without a pass. The steps in between are
// the plain bisection's steps.
class CentredAllocationSearch {
 public:
  std::vector<double> Solve(const std::vector<double>& lower, const std::vector<int>& scale_factors,
                            double capacity);

  // Bisection steps the last Solve took without a pass, and passes over the jobs it made.
  int skipped_steps() const { return skipped_; }
  int passes() const { return passes_; }

 private:
  double last_root_ = 0;  // the last search's multiplier; 0: none yet
  int skipped_ = 0;
  int passes_ = 0;
};

// Water-filling max-min fair share of sf_j * x_j with x_j <= 1 and sum sf_j x_j <= capacity.
std::vector<double> WaterFillingAllocation(const std::vector<int>& scale_factors, double capacity);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_ALLOCATION_MATH_H_
