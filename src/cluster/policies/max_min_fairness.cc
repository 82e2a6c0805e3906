// max_min_fairness (Gavel's MaxMinFairnessPolicy, throughputs set to 1): maximise
// min_j sf_j * x_j subject to x_j <= 1, sum_j sf_j x_j <= gpus: every job gets the same
// GPU-time. The optimum level is t* = min(gpus / m, min_j sf_j). When capacity binds the answer
// is unique, x_j = gpus / (m sf_j); otherwise we return the analytic centre of the optimal face
// (x_j >= t*/sf_j), the point an interior-point LP solver returns.
#include <algorithm>

#include "cluster/allocation_math.h"
#include "cluster/policies/policies.h"

namespace jigsaw {
namespace {

class MaxMinFairnessPolicy : public Policy {
 public:
  std::string name() const override { return "max_min_fairness"; }
  std::vector<double> Allocate(const PolicyContext& context,
                               const std::vector<PolicyJob>& jobs) override {
    if (jobs.empty()) return {};
    const double m = static_cast<double>(jobs.size());
    int min_sf = jobs[0].scale_factor;
    std::vector<int> sfs;
    for (const PolicyJob& job : jobs) {
      min_sf = std::min(min_sf, job.scale_factor);
      sfs.push_back(job.scale_factor);
    }
    const double level = std::min(context.gpus / m, static_cast<double>(min_sf));
    std::vector<double> lower;
    for (const PolicyJob& job : jobs) lower.push_back(level / job.scale_factor);
    if (context.gpus / m <= min_sf) return lower;
    return centre_.Solve(lower, sfs, context.gpus);
  }

 private:
  CentredAllocationSearch centre_;  // warm-started from the last reallocation's search
};

}  // namespace

std::unique_ptr<Policy> MakeMaxMinFairnessPolicy() {
  return std::make_unique<MaxMinFairnessPolicy>();
}

}  // namespace jigsaw
