#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

#include "cluster/policies/policies.h"
#include "core/error.h"

namespace jigsaw {
namespace {

using Factory = std::function<std::unique_ptr<Policy>(const PolicyOptions&)>;

template <std::unique_ptr<Policy> (*make)()>
std::unique_ptr<Policy> IgnoringOptions(const PolicyOptions&) {
  return make();
}

const std::map<std::string, Factory>& Registry() {
  static const std::map<std::string, Factory> kRegistry = {
      {"fifo", IgnoringOptions<MakeFifoPolicy>},
      {"srtf", IgnoringOptions<MakeSrtfPolicy>},
      {"las", IgnoringOptions<MakeLasPolicy>},
      {"las_perf", IgnoringOptions<MakeLasPerfPolicy>},
      {"min_total_duration", IgnoringOptions<MakeMinTotalDurationPolicy>},
      {"max_min_fairness", IgnoringOptions<MakeMaxMinFairnessPolicy>},
      {"max_min_fairness_perf", IgnoringOptions<MakeMaxMinFairnessPerfPolicy>},
      {"finish_time_fairness", IgnoringOptions<MakeFinishTimeFairnessPolicy>},
      {"gandiva_fair", IgnoringOptions<MakeGandivaFairPolicy>},
      {"allox", IgnoringOptions<MakeAlloxPolicy>},
      {"max_sum_throughput", IgnoringOptions<MakeMaxSumThroughputPolicy>},
      {"shockwave", MakeShockwavePolicy},
      {"packing", MakePackingPolicy},
      {"jigsaw", MakeJigsawPolicy},
      {"spb_only", MakeSpbOnlyPolicy},
  };
  return kRegistry;
}

}  // namespace

std::vector<std::string> PolicyNames() {
  std::vector<std::string> names;
  for (const auto& [name, unused] : Registry()) names.push_back(name);
  return names;
}

std::unique_ptr<Policy> MakePolicy(const std::string& name, const PolicyOptions& options) {
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
  return it->second(options);
}

}  // namespace jigsaw
