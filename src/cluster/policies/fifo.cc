// fifo: jobs in arrival order hold their whole gang (x = 1) while GPUs last; a job that does not
// fit is skipped so smaller later jobs backfill. Jobs without an allocation never run.
#include <algorithm>
#include <numeric>

#include "cluster/policies/policies.h"

namespace jigsaw {
namespace {

class FifoPolicy : public Policy {
 public:
  std::string name() const override { return "fifo"; }
  bool RunsOnlyAllocatedJobs() const override { return true; }
  bool ReallocateEveryRound() const override { return true; }
  std::vector<double> Allocate(const PolicyContext& context,
                               const std::vector<PolicyJob>& jobs) override {
    return GreedyFullAllocation(jobs, context.gpus, [&](size_t a, size_t b) {
      if (jobs[a].arrival_s != jobs[b].arrival_s) return jobs[a].arrival_s < jobs[b].arrival_s;
      return jobs[a].id < jobs[b].id;
    });
  }
};

}  // namespace

std::unique_ptr<Policy> MakeFifoPolicy() { return std::make_unique<FifoPolicy>(); }

}  // namespace jigsaw
