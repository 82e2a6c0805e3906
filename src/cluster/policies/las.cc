// las: Tiresias-style discretised two-dimensional least-attained-service. A job's attained
// service is the GPU-seconds it has received (time x GPUs); jobs are put in priority queues by
// thresholds on it (default 1 GPU-hour and 10 GPU-hours, i.e. Tiresias' multi-level feedback
// queue), FIFO by arrival within a queue, and the highest-priority jobs whose gangs fit run.
// Discretising avoids the round-by-round thrashing of continuous LAS.
#include <algorithm>
#include <numeric>

#include "cluster/policies/policies.h"

namespace jigsaw {
namespace {

class LasPolicy : public Policy {
 public:
  std::string name() const override { return "las"; }
  bool RunsOnlyAllocatedJobs() const override { return true; }
  bool ReallocateEveryRound() const override { return true; }
  std::vector<double> Allocate(const PolicyContext& context,
                               const std::vector<PolicyJob>& jobs) override {
    std::vector<int> queue(jobs.size());
    for (size_t j = 0; j < jobs.size(); ++j) {
      int q = 0;
      for (double threshold : kThresholdsGpuSeconds) q += jobs[j].attained_gpu_s >= threshold;
      queue[j] = q;
    }
    return GreedyFullAllocation(jobs, context.gpus, [&](size_t a, size_t b) {
      if (queue[a] != queue[b]) return queue[a] < queue[b];
      if (jobs[a].arrival_s != jobs[b].arrival_s) return jobs[a].arrival_s < jobs[b].arrival_s;
      return jobs[a].id < jobs[b].id;
    });
  }

 private:
  static constexpr double kThresholdsGpuSeconds[] = {3600.0, 36000.0};
};

}  // namespace

std::unique_ptr<Policy> MakeLasPolicy() { return std::make_unique<LasPolicy>(); }

}  // namespace jigsaw
