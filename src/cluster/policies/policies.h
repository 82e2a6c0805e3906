// Factories for the built-in policies, one per file in this directory. Each file's comment
// states the policy's rule; MakePolicy (policy_registry.cc) maps CLI names to them.
#ifndef JIGSAW_CLUSTER_POLICIES_POLICIES_H_
#define JIGSAW_CLUSTER_POLICIES_POLICIES_H_

#include <algorithm>
#include <functional>
#include <memory>
#include <numeric>

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
// so deep queues stay cheap; when `jobs` is already strictly in rank order (fifo's arrival
// order), one scan that stops when no gang fits replaces the heap. `ranks_before` must be a strict
// total order (ties broken by id), so both ways give the same x.
template <typename RanksBefore>
std::vector<double> GreedyFullAllocation(const std::vector<PolicyJob>& jobs, int gpus,
                                         const RanksBefore& ranks_before) {
  std::vector<double> x(jobs.size(), 0.0);
  int min_scale_factor = gpus + 1;
  bool in_order = true;
  for (size_t j = 0; j < jobs.size(); ++j) {
    min_scale_factor = std::min(min_scale_factor, jobs[j].scale_factor);
    in_order = in_order && (j == 0 || ranks_before(j - 1, j));
  }
  int free_gpus = gpus;
  if (in_order) {
    for (size_t j = 0; j < jobs.size() && free_gpus >= min_scale_factor; ++j) {
      if (jobs[j].scale_factor > free_gpus) continue;
      free_gpus -= jobs[j].scale_factor;
      x[j] = 1.0;
    }
    return x;
  }
  std::vector<size_t> heap(jobs.size());
  std::iota(heap.begin(), heap.end(), 0);
  // std heaps keep the largest on top: invert the ranking.
  auto after = [&](size_t a, size_t b) { return ranks_before(b, a); };
  std::make_heap(heap.begin(), heap.end(), after);
  while (!heap.empty() && free_gpus >= min_scale_factor) {
    std::pop_heap(heap.begin(), heap.end(), after);
    const size_t j = heap.back();
    heap.pop_back();
    if (jobs[j].scale_factor > free_gpus) continue;
    free_gpus -= jobs[j].scale_factor;
    x[j] = 1.0;
  }
  return x;
}

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_POLICIES_H_
