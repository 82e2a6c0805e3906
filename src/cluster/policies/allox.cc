// allox (AlloX as implemented in Gavel, alpha = 0.2): among the oldest max(0.2 * candidates,
// free slots) jobs not yet holding a full GPU, pick the ones with the shortest remaining
// isolated time (the min-cost matching of AlloX reduces to shortest-processing-time first on a
// homogeneous cluster) and give them 1/sf; earlier choices keep their allocation, so a chosen
// single-GPU job is never preempted. Stateful across calls.
#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "cluster/policies/policies.h"

namespace jigsaw {
namespace {

class AlloxPolicy : public Policy {
 public:
  std::string name() const override { return "allox"; }
  std::vector<double> Allocate(const PolicyContext& context,
                               const std::vector<PolicyJob>& jobs) override {
    const size_t m = jobs.size();
    std::vector<size_t> candidates;
    int slots = context.gpus;
    for (size_t j = 0; j < m; ++j) {
      auto it = previous_.find(jobs[j].id);
      if (it != previous_.end() && it->second == 1.0) {
        --slots;
      } else {
        candidates.push_back(j);
      }
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](size_t a, size_t b) { return jobs[a].elapsed_s > jobs[b].elapsed_s; });
    const size_t considered = std::min(
        candidates.size(), static_cast<size_t>(std::max(
                               static_cast<int>(kAlpha * candidates.size()), std::max(slots, 0))));
    candidates.resize(considered);
    std::stable_sort(candidates.begin(), candidates.end(), [&](size_t a, size_t b) {
      const double pa = jobs[a].remaining_isolated_s, pb = jobs[b].remaining_isolated_s;
      if (pa != pb) return pa < pb;
      return jobs[a].id < jobs[b].id;
    });
    if (slots < 0) slots = 0;
    if (candidates.size() > static_cast<size_t>(slots)) candidates.resize(slots);

    std::vector<double> x(m, 0.0);
    for (size_t j = 0; j < m; ++j) {
      auto it = previous_.find(jobs[j].id);
      if (it != previous_.end()) x[j] = it->second;
    }
    for (size_t j : candidates) x[j] = 1.0 / jobs[j].scale_factor;
    previous_.clear();
    for (size_t j = 0; j < m; ++j) previous_[jobs[j].id] = x[j];
    return x;
  }

 private:
  static constexpr double kAlpha = 0.2;
  std::unordered_map<int, double> previous_;
};

}  // namespace

std::unique_ptr<Policy> MakeAlloxPolicy() { return std::make_unique<AlloxPolicy>(); }

}  // namespace jigsaw
