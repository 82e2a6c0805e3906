// Factories for the built-in policies, one per file in this directory. Each file's comment
// states the policy's rule; MakePolicy (policy_registry.cc) maps CLI names to them.
#ifndef JIGSAW_CLUSTER_POLICIES_POLICIES_H_
#define JIGSAW_CLUSTER_POLICIES_POLICIES_H_

#include <memory>

#include "cluster/policy.h"

namespace jigsaw {

std::unique_ptr<Policy> MakeFifoPolicy();
std::unique_ptr<Policy> MakeSrtfPolicy();
std::unique_ptr<Policy> MakeLasPolicy();
std::unique_ptr<Policy> MakeMinTotalDurationPolicy();
std::unique_ptr<Policy> MakeMaxMinFairnessPolicy();
std::unique_ptr<Policy> MakeFinishTimeFairnessPolicy();
std::unique_ptr<Policy> MakeGandivaFairPolicy();
std::unique_ptr<Policy> MakeAlloxPolicy();
std::unique_ptr<Policy> MakeMaxSumThroughputPolicy();

// Greedy helper: x = 1 for jobs in `order` while their gangs fit in `gpus`, skipping (and
// backfilling past) those that do not fit.
std::vector<double> GreedyFullAllocation(const std::vector<PolicyJob>& jobs,
                                         const std::vector<size_t>& order, int gpus);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_POLICIES_H_
