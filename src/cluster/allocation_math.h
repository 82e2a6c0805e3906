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

// Water-filling max-min fair share of sf_j * x_j with x_j <= 1 and sum sf_j x_j <= capacity.
std::vector<double> WaterFillingAllocation(const std::vector<int>& scale_factors, double capacity);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_ALLOCATION_MATH_H_
