// Structured partial backpropagation (SPB) plans, and the communication they imply.
//
// A model is a sequence of L blocks. A worker of "depth" d backpropagates only through the last d
// blocks (indices L-d .. L-1); the other blocks run forward without autograd. A plan assigns a
// depth to each of the N workers at each iteration:
//   full          every worker depth L
//   staircase     worker k depth ceil(L*(k+1)/N), so every block has >= 1 contributor
//   rotating      staircase, rotated by one worker every iteration
//   freeze:D      every worker depth D (0 <= D <= L; blocks before L-D are never updated)
//   d0,d1,...     explicit depths, one per worker ("depths:d0,d1,..." is also accepted)
//   adaptive      depths chosen at run time per phase (adaptive_plan.h); full until then
// The contributors of a block are the workers whose depth covers it; its gradient is averaged over
// them. Everything here is torch-free so the plan math is cheap to test and to use in simulators.
#ifndef JIGSAW_SPB_SPB_PLAN_H_
#define JIGSAW_SPB_SPB_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

namespace jigsaw {

enum class SpbPlanKind { kFull, kStaircase, kRotating, kFreeze, kExplicit, kAdaptive };

struct SpbPlan {
  SpbPlanKind kind = SpbPlanKind::kFull;
  int freeze_depth = 0;     // kFreeze only
  std::vector<int> depths;  // kExplicit only
  std::string text;         // as given, for reports
};

// Throws UsageError naming the plan string and what was expected.
SpbPlan ParseSpbPlan(const std::string& text);

// Depth of each worker at `iteration`. Throws UsageError if the plan does not fit `blocks` blocks
// and `workers` workers (explicit vector of the wrong length, depth out of [0, blocks]).
std::vector<int> WorkerDepths(const SpbPlan& plan, int blocks, int workers, int64_t iteration);

// Number of distinct iterations before the plan repeats (N for rotating, else 1).
int PlanPeriod(const SpbPlan& plan, int workers);

// For each block, the ascending ranks of the workers whose depth covers it (possibly empty).
std::vector<std::vector<int>> BlockContributors(const std::vector<int>& depths, int blocks);

// One collective of an iteration's gradient exchange. Allreduce: members sum the gradients of
// `blocks` (then divide by the member count). Broadcast: `root` (a contributor) sends the averaged
// gradients to the members that did not compute them, so every replica applies the same update.
struct Collective {
  enum class Kind { kAllreduce, kBroadcast };
  Kind kind = Kind::kAllreduce;
  std::vector<int> members;  // ascending world ranks, size >= 2
  int root = 0;              // world rank; kBroadcast only
  std::vector<int> blocks;   // descending block indices
};

// The gradient exchange of one iteration, in the order every worker must issue it (each worker
// skips the collectives it is not a member of; a common order makes the schedule deadlock-free).
// Blocks with no contributor are not updated; blocks whose only contributor is one worker need no
// allreduce, only the broadcast.
std::vector<Collective> PlanCollectives(const std::vector<std::vector<int>>& contributors,
                                        int workers);

// Distinct member sets of the collectives over one plan period, sorted: the communication groups
// every worker must create (in this order) before training.
std::vector<std::vector<int>> PlanGroups(const SpbPlan& plan, int blocks, int workers);

// Estimated bytes `rank` sends for a collective over `bytes` of gradients (0 if not a member).
// Allreduce (ring): 2(n-1)/n * bytes per member. Broadcast: (n-1) * bytes sent in total by any
// tree, attributed evenly, (n-1)/n * bytes per member.
double EstimatedBytesSent(const Collective& collective, int rank, double bytes);

std::string DescribeGroup(const std::vector<int>& members);

}  // namespace jigsaw

#endif  // JIGSAW_SPB_SPB_PLAN_H_
