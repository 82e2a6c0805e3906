// srtf: shortest remaining (isolated) time first, preemptive: re-ranked every round, x = 1 for
// the shortest jobs whose gangs fit.
#include <algorithm>
#include <numeric>

#include "cluster/policies/policies.h"

namespace jigsaw {
namespace {

class SrtfPolicy : public Policy {
 public:
  std::string name() const override { return "srtf"; }
  bool RunsOnlyAllocatedJobs() const override { return true; }
  bool ReallocateEveryRound() const override { return true; }
  std::vector<double> Allocate(const PolicyContext& context,
                               const std::vector<PolicyJob>& jobs) override {
    return GreedyFullAllocation(jobs, context.gpus, [&](size_t a, size_t b) {
      if (jobs[a].remaining_isolated_s != jobs[b].remaining_isolated_s) {
        return jobs[a].remaining_isolated_s < jobs[b].remaining_isolated_s;
      }
      return jobs[a].id < jobs[b].id;
    });
  }
};

}  // namespace

std::unique_ptr<Policy> MakeSrtfPolicy() { return std::make_unique<SrtfPolicy>(); }

}  // namespace jigsaw
