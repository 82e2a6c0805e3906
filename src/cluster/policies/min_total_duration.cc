// min_total_duration (Gavel's MinTotalDurationPolicyWithPerf, "OSSP"): the smallest horizon T in
// which every job can finish its remaining work: x_j * throughput_j * T >= remaining_j with
// x_j <= 1 and sum sf_j x_j <= gpus. Feasible iff T >= T* = max(max_j R_j, sum_j sf_j R_j / gpus)
// where R_j is the remaining isolated time. Gavel finds T by bisection from [100 s, 1e6 s] to 5%
// precision; we reproduce that search exactly (its answer is the T it reports), then return the
// analytic centre of {x_j >= R_j / T} as its interior-point solver does. Long jobs thus get the
// largest shares: makespan-optimal, poor average JCT.
#include <algorithm>

#include "cluster/allocation_math.h"
#include "cluster/policies/policies.h"

namespace jigsaw {
namespace {

class MinTotalDurationPolicy : public Policy {
 public:
  std::string name() const override { return "min_total_duration"; }
  std::vector<double> Allocate(const PolicyContext& context,
                               const std::vector<PolicyJob>& jobs) override {
    if (jobs.empty()) return {};
    double longest = 0, gpu_work = 0;
    std::vector<int> sfs;
    for (const PolicyJob& job : jobs) {
      const double remaining = std::max(0.0, job.remaining_isolated_s);
      longest = std::max(longest, remaining);
      gpu_work += job.scale_factor * remaining;
      sfs.push_back(job.scale_factor);
    }
    const double critical = std::max(longest, gpu_work / context.gpus);
    auto feasible = [&](double horizon) { return horizon >= critical; };
    double max_t = 1e6, min_t = 100, last_max = 1e6, best = -1;
    while (best < 0) {
      while (1.05 * min_t < max_t) {
        const double horizon = (min_t + max_t) / 2;
        if (feasible(horizon)) {
          best = horizon;
          max_t = horizon;
        } else {
          min_t = horizon;
        }
      }
      max_t = last_max * 10;
      min_t = last_max;
      last_max *= 10;
    }
    std::vector<double> lower;
    for (const PolicyJob& job : jobs)
      lower.push_back(std::max(0.0, job.remaining_isolated_s) / best);
    return centre_.Solve(lower, sfs, context.gpus);
  }

 private:
  CentredAllocationSearch centre_;  // warm-started from the last reallocation's search
};

}  // namespace

std::unique_ptr<Policy> MakeMinTotalDurationPolicy() {
  return std::make_unique<MinTotalDurationPolicy>();
}

}  // namespace jigsaw
