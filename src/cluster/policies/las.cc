// las: Tiresias-style discretised two-dimensional least-attained-service. A job's attained
// service is the GPU-seconds it has received (time x GPUs); jobs are put in priority queues by
// thresholds on it (default 1 GPU-hour and 10 GPU-hours, i.e. Tiresias' multi-level feedback
// queue), FIFO by arrival within a queue, and the highest-priority jobs whose gangs fit run.
// Discretising avoids the round-by-round thrashing of continuous LAS.
// On a heterogeneous cluster `las` is heterogeneity-agnostic (the chosen jobs go to types in a
// seeded random order, as Gavel treats agnostic policies); `las_perf` chooses the same jobs and
// gives each the type where its normalised throughput counts most (heterogeneous.h,
// AssignTypesByNormalisedThroughput). On a homogeneous cluster the two are the same.
#include <algorithm>
#include <numeric>

#include "cluster/policies/heterogeneous.h"
#include "cluster/policies/policies.h"

namespace jigsaw {
namespace {

class LasPolicy : public Policy {
 public:
  explicit LasPolicy(bool aware) : aware_(aware) {}
  std::string name() const override { return aware_ ? "las_perf" : "las"; }
  bool HeterogeneityAware() const override { return aware_; }
  std::vector<std::vector<double>> AllocateByType(const PolicyContext& context,
                                                  const std::vector<PolicyJob>& jobs) override {
    return AssignTypesByNormalisedThroughput(context, jobs, Allocate(context, jobs));
  }
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
  bool aware_;
};

}  // namespace

std::unique_ptr<Policy> MakeLasPolicy() { return std::make_unique<LasPolicy>(false); }
std::unique_ptr<Policy> MakeLasPerfPolicy() { return std::make_unique<LasPolicy>(true); }

}  // namespace jigsaw
