// Factories for the built-in policies, one per file in this directory. Each file's comment
// states the policy's rule; MakePolicy (policy_registry.cc) maps CLI names to them.
#ifndef JIGSAW_CLUSTER_POLICIES_POLICIES_H_
#define JIGSAW_CLUSTER_POLICIES_POLICIES_H_

#include <functional>
#include <memory>

#include "cluster/policy.h"

namespace jigsaw {

std::unique_ptr<Policy> MakeFifoPolicy();
std::unique_ptr<Policy> MakeSrtfPolicy();
std::unique_ptr<Policy> MakeLasPolicy();
std::unique_ptr<Policy> MakeLasPerfPolicy();
std::unique_ptr<Policy> MakeMinTotalDurationPolicy();
std::unique_ptr<Policy> MakeMaxMinFairnessPolicy();
std::unique_ptr<Policy> MakeMaxMinFairnessPerfPolicy();
std::unique_ptr<Policy> MakeFinishTimeFairnessPolicy();
std::unique_ptr<Policy> MakeGandivaFairPolicy();
std::unique_ptr<Policy> MakeAlloxPolicy();
std::unique_ptr<Policy> MakeMaxSumThroughputPolicy();
std::unique_ptr<Policy> MakeShockwavePolicy(const PolicyOptions& options);
std::unique_ptr<Policy> MakePackingPolicy(const PolicyOptions& options);
std::unique_ptr<Policy> MakeJigsawPolicy(const PolicyOptions& options);
std::unique_ptr<Policy> MakeSpbOnlyPolicy(const PolicyOptions& options);

// Greedy helper for ranking policies: x = 1 for jobs in `ranks_before` order while their gangs
// fit in `gpus`, skipping (and backfilling past) those that do not fit. `ranks_before(a, b)` is
// true if job a ranks before job b. Runs in O(n + k log n) for k jobs looked at (heap selection),
// so deep queues stay cheap.
std::vector<double> GreedyFullAllocation(const std::vector<PolicyJob>& jobs, int gpus,
                                         const std::function<bool(size_t, size_t)>& ranks_before);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_POLICIES_H_
