// max_sum_throughput (Gavel's ThroughputSumWithPerf on one worker type): maximise
// sum_j throughput_j * x_j subject to x_j <= 1 and sum_j sf_j x_j <= gpus. The LP is a fractional
// knapsack, solved exactly: best throughput per GPU first, one job possibly fractional.
// Throughputs are raw iterations/s, so models with many cheap iterations win (as in Gavel).
// Heterogeneity-aware: on a heterogeneous cluster it solves Gavel's program over the job x
// worker-type matrix with CLP (heterogeneous.h).
#include <algorithm>
#include <numeric>

#include "cluster/policies/heterogeneous.h"
#include "cluster/policies/policies.h"

namespace jigsaw {
namespace {

class MaxSumThroughputPolicy : public Policy {
 public:
  std::string name() const override { return "max_sum_throughput"; }
  std::vector<double> Allocate(const PolicyContext& context,
                               const std::vector<PolicyJob>& jobs) override {
    std::vector<size_t> order(jobs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const double da = jobs[a].throughput / jobs[a].scale_factor;
      const double db = jobs[b].throughput / jobs[b].scale_factor;
      if (da != db) return da > db;
      return jobs[a].id < jobs[b].id;
    });
    std::vector<double> x(jobs.size(), 0.0);
    double capacity = context.gpus;
    for (size_t j : order) {
      if (capacity <= 0) break;
      x[j] = std::min(1.0, capacity / jobs[j].scale_factor);
      capacity -= x[j] * jobs[j].scale_factor;
    }
    return x;
  }
  bool HeterogeneityAware() const override { return true; }
  std::vector<std::vector<double>> AllocateByType(const PolicyContext& context,
                                                  const std::vector<PolicyJob>& jobs) override {
    if (context.worker_types.size() == 1) return OneTypeAllocation(*this, context, jobs);
    return MaxSumThroughputByType(context, jobs);
  }
};

}  // namespace

std::unique_ptr<Policy> MakeMaxSumThroughputPolicy() {
  return std::make_unique<MaxSumThroughputPolicy>();
}

}  // namespace jigsaw
