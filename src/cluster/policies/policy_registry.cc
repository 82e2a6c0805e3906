#include <functional>
#include <map>

#include "cluster/policies/policies.h"
#include "core/error.h"

namespace jigsaw {
namespace {

const std::map<std::string, std::function<std::unique_ptr<Policy>()>>& Registry() {
  static const std::map<std::string, std::function<std::unique_ptr<Policy>()>> kRegistry = {
      {"fifo", MakeFifoPolicy},
      {"srtf", MakeSrtfPolicy},
      {"las", MakeLasPolicy},
      {"min_total_duration", MakeMinTotalDurationPolicy},
      {"max_min_fairness", MakeMaxMinFairnessPolicy},
      {"finish_time_fairness", MakeFinishTimeFairnessPolicy},
      {"gandiva_fair", MakeGandivaFairPolicy},
      {"allox", MakeAlloxPolicy},
      {"max_sum_throughput", MakeMaxSumThroughputPolicy},
  };
  return kRegistry;
}

}  // namespace

std::vector<double> GreedyFullAllocation(const std::vector<PolicyJob>& jobs,
                                         const std::vector<size_t>& order, int gpus) {
  std::vector<double> x(jobs.size(), 0.0);
  int free_gpus = gpus;
  for (size_t j : order) {
    if (jobs[j].scale_factor > free_gpus) continue;
    free_gpus -= jobs[j].scale_factor;
    x[j] = 1.0;
  }
  return x;
}

std::vector<std::string> PolicyNames() {
  std::vector<std::string> names;
  for (const auto& [name, unused] : Registry()) names.push_back(name);
  return names;
}

std::unique_ptr<Policy> MakePolicy(const std::string& name) {
  std::string canonical = name;
  if (canonical == "max_sum_throughput_perf") canonical = "max_sum_throughput";
  if (canonical == "ossp") canonical = "min_total_duration";
  if (canonical == "themis") canonical = "finish_time_fairness";
  if (canonical == "gavel") canonical = "max_min_fairness";
  auto it = Registry().find(canonical);
  if (it == Registry().end()) {
    std::string valid;
    for (const std::string& n : PolicyNames()) valid += (valid.empty() ? "" : ", ") + n;
    throw UsageError("unknown policy '" + name + "' (expected one of: " + valid + ")");
  }
  return it->second();
}

}  // namespace jigsaw
