// max_min_fairness_perf (Gavel's MaxMinFairnessPolicyWithPerf, "LAS w/ Gavel"): on a
// heterogeneous cluster, max-min fairness of normalised effective throughput over the job x
// worker-type matrix (heterogeneous.h, solved with CLP). On a homogeneous cluster every type's
// throughput is the job's own, the program is max_min_fairness's and so is the answer: it
// delegates to it.
#include "cluster/policies/heterogeneous.h"
#include "cluster/policies/policies.h"

namespace jigsaw {
namespace {

class MaxMinFairnessPerfPolicy : public Policy {
 public:
  std::string name() const override { return "max_min_fairness_perf"; }
  std::vector<double> Allocate(const PolicyContext& context,
                               const std::vector<PolicyJob>& jobs) override {
    return homogeneous_->Allocate(context, jobs);
  }
  bool HeterogeneityAware() const override { return true; }
  std::vector<std::vector<double>> AllocateByType(const PolicyContext& context,
                                                  const std::vector<PolicyJob>& jobs) override {
    if (context.worker_types.size() == 1) return OneTypeAllocation(*homogeneous_, context, jobs);
    return MaxMinFairnessByType(context, jobs);
  }

 private:
  std::unique_ptr<Policy> homogeneous_ = MakeMaxMinFairnessPolicy();
};

}  // namespace

std::unique_ptr<Policy> MakeMaxMinFairnessPerfPolicy() {
  return std::make_unique<MaxMinFairnessPerfPolicy>();
}

}  // namespace jigsaw
