// finish_time_fairness (Themis as implemented in Gavel, FinishTimeFairnessPolicyWithPerf):
// minimise max_j rho_j(x), rho_j = (t_j + R_j / (thr_j x_j)) / E_j, where t_j is the time since
// arrival, R_j the remaining iterations and E_j = (isolated time already credited) + R_j / iso_j
// with the isolated (equal-share) throughput iso_j = thr_j * min(1, gpus / (m sf_j)). The
// isolated time credited accumulates across calls, which makes the policy stateful.
// Solved exactly by bisection on rho: the least x reaching rho is l_j = R_j / (thr_j (rho E_j -
// t_j)); rho is feasible iff every l_j <= 1 and sum sf_j l_j <= gpus. The answer at the optimal
// rho is the analytic centre of {x >= l(rho*)} (interior-point behaviour).
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "cluster/allocation_math.h"
#include "cluster/policies/policies.h"

namespace jigsaw {
namespace {

class FinishTimeFairnessPolicy : public Policy {
 public:
  std::string name() const override { return "finish_time_fairness"; }
  std::vector<double> Allocate(const PolicyContext& context,
                               const std::vector<PolicyJob>& jobs) override {
    const size_t m = jobs.size();
    if (m == 0) return {};
    std::vector<double> isolated_fraction(m), expected(m);
    std::vector<int> sfs(m);
    bool degenerate = false;
    for (size_t j = 0; j < m; ++j) {
      const PolicyJob& job = jobs[j];
      sfs[j] = job.scale_factor;
      isolated_fraction[j] =
          std::min(1.0, context.gpus / (static_cast<double>(m) * job.scale_factor));
      auto previous = state_.find(job.id);
      if (previous != state_.end()) {
        credited_[job.id] +=
            (previous->second.remaining - job.remaining_steps) / previous->second.iso_throughput;
      }
      const double iso_throughput = job.throughput * isolated_fraction[j];
      expected[j] = credited_[job.id] + job.remaining_steps / iso_throughput;
      degenerate |= job.remaining_steps <= 0 || job.throughput <= 0;
    }
    state_.clear();
    for (size_t j = 0; j < m; ++j) {
      state_[jobs[j].id] = {jobs[j].remaining_steps, jobs[j].throughput * isolated_fraction[j]};
    }
    if (degenerate) return isolated_fraction;

    auto lower_bounds = [&](double rho, std::vector<double>* lower) {
      double used = 0;
      for (size_t j = 0; j < m; ++j) {
        const double slack = rho * expected[j] - jobs[j].elapsed_s;
        if (slack <= 0) return false;
        (*lower)[j] = jobs[j].remaining_steps / (jobs[j].throughput * slack);
        if ((*lower)[j] > 1.0 + 1e-12) return false;
        used += sfs[j] * (*lower)[j];
      }
      return used <= context.gpus * (1 + 1e-12);
    };
    std::vector<double> lower(m);
    double lo = 0, hi = 1;
    while (!lower_bounds(hi, &lower)) {
      lo = hi;
      hi *= 2;
      if (hi > 1e12) return isolated_fraction;
    }
    for (int iter = 0; iter < 100 && hi - lo > 1e-10 * hi; ++iter) {
      const double mid = (lo + hi) / 2;
      if (lower_bounds(mid, &lower)) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    lower_bounds(hi, &lower);
    for (double& l : lower) l = std::min(l, 1.0);
    return centre_.Solve(lower, sfs, context.gpus);
  }

 private:
  CentredAllocationSearch centre_;  // warm-started from the last reallocation's search
  struct Seen {
    double remaining;
    double iso_throughput;
  };
  std::unordered_map<int, Seen> state_;
  std::unordered_map<int, double> credited_;
};

}  // namespace

std::unique_ptr<Policy> MakeFinishTimeFairnessPolicy() {
  return std::make_unique<FinishTimeFairnessPolicy>();
}

}  // namespace jigsaw
