// Policy: decides what fraction of time each active job should hold its gang of GPUs.
//
// The simulator calls Allocate at decision points (job arrival or completion, and every round for
// policies whose ReallocateEveryRound() is true). The returned fractions x_j in [0, 1] must satisfy
// sum_j x_j * scale_factor_j <= gpus; the round mechanism (see Simulator) turns them into
// whole-round gang assignments, Gavel-style. A policy that simply ranks jobs returns 1 for the
// jobs it would run now and 0 for the rest.
#ifndef JIGSAW_CLUSTER_POLICY_H_
#define JIGSAW_CLUSTER_POLICY_H_

#include <memory>
#include <string>
#include <vector>

namespace jigsaw {

// A job as a policy sees it at a decision point.
struct PolicyJob {
  int id = 0;            // trace id (stable tie-breaker)
  int scale_factor = 1;  // GPUs, gang-scheduled
  double priority_weight = 1;
  double arrival_s = 0;
  double throughput = 0;            // isolated iterations/s now (current batch size)
  double remaining_steps = 0;       // iterations left in the current batch-size phase and after
  double remaining_isolated_s = 0;  // isolated run time left (all future epochs)
  double total_isolated_s = 0;      // isolated run time of the whole job
  double attained_s = 0;            // seconds the job has run so far
  double attained_gpu_s = 0;        // GPU-seconds received so far
  double elapsed_s = 0;             // now - arrival
};

struct PolicyContext {
  double now_s = 0;
  int gpus = 0;
  double round_s = 120;
  int jobs_in_trace = 0;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string name() const = 0;
  virtual std::vector<double> Allocate(const PolicyContext& context,
                                       const std::vector<PolicyJob>& jobs) = 0;
  virtual bool ReallocateEveryRound() const { return false; }
  // True if jobs with a zero allocation must not fill otherwise idle GPUs (Gavel's FIFO).
  virtual bool RunsOnlyAllocatedJobs() const { return false; }
};

// Known names: fifo, srtf (alias min_total_duration is separate), min_total_duration, las,
// max_min_fairness, finish_time_fairness, gandiva_fair, allox, max_sum_throughput.
// Throws UsageError listing the valid names for an unknown one.
std::unique_ptr<Policy> MakePolicy(const std::string& name);
std::vector<std::string> PolicyNames();

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICY_H_
