#include "cluster/spb_cost_model.h"

#include <algorithm>

#include "core/error.h"
#include "spb/iteration_estimate.h"

namespace jigsaw {
namespace {

// Worker estimates sorted by depth, shallowest first (the order SpbOption promises).
std::vector<SpbWorkerEstimate> ByDepth(std::vector<SpbWorkerEstimate> workers) {
  std::stable_sort(
      workers.begin(), workers.end(),
      [](const SpbWorkerEstimate& a, const SpbWorkerEstimate& b) { return a.depth < b.depth; });
  return workers;
}

double MeanBytesSent(const SpbIterationEstimate& estimate) {
  double total = 0;
  for (const SpbWorkerEstimate& w : estimate.workers) total += w.bytes_sent;
  return estimate.workers.empty() ? 0 : total / estimate.workers.size();
}

}  // namespace

SpbCostModel::SpbCostModel(const SpbCostModelOptions& options) : options_(options) {
  if (options_.fixed_efficiency > 1) {
    throw UsageError("--spb-efficiency must be in [0, 1], got " +
                     std::to_string(options_.fixed_efficiency));
  }
  for (const auto& [model, path] : options_.profiles) {
    ModelProfile profile = ReadProfile(path);
    profile.steps = StepProfile();  // one worker per device: the per-block times apply
    if (profile.comm.empty()) {     // a v1 profile: communication is not modelled, only compute
      profile.comm.method = "none (the profile has no comm section)";
      for (auto kind : {Collective::Kind::kAllreduce, Collective::Kind::kBroadcast}) {
        CollectiveFit fit;
        fit.kind = kind;
        fit.bandwidth_bytes_per_s = 1e15;
        profile.comm.fits.push_back(fit);
      }
    }
    profiles_.emplace(model, std::move(profile));
  }
  if (options_.fixed_efficiency < 0 && !options_.efficiency_file.empty()) {
    efficiency_ = ReadStatisticalEfficiency(options_.efficiency_file);
  }
}

SpbEfficiencyUse SpbCostModel::Efficiency(const std::string& model,
                                          const std::string& profile_model, int workers) const {
  SpbEfficiencyUse use;
  use.model = model;
  use.workers = workers;
  const SpbPlan staircase = ParseSpbPlan("staircase");
  if (options_.fixed_efficiency >= 0) {
    use.known = options_.fixed_efficiency > 0;
    use.efficiency = use.low = use.high = options_.fixed_efficiency;
    use.source = "--spb-efficiency";
    return use;
  }
  StatisticalEfficiency found = LookupStatisticalEfficiency(efficiency_, model, staircase, workers);
  if (!found.known && !profile_model.empty()) {
    found = LookupStatisticalEfficiency(efficiency_, profile_model, staircase, workers);
  }
  if (!found.known) {
    found = LookupStatisticalEfficiency(efficiency_, options_.proxy_model, staircase, workers);
    use.proxy = true;
  }
  use.known = found.known;
  if (!found.known) {
    use.source = found.source;
    return use;
  }
  // The interval is of the uncapped mean: an efficiency above 1 means no loss.
  use.low = std::clamp(found.low, 0.0, 1.0);
  use.high = std::clamp(found.high, 0.0, 1.0);
  use.seeds = found.seeds;
  use.efficiency = options_.bound == SpbCostModelOptions::Bound::kLow    ? use.low
                   : options_.bound == SpbCostModelOptions::Bound::kHigh ? use.high
                                                                         : found.efficiency;
  use.source = found.source + " (" + found.measured_model + ", " +
               std::to_string(found.measured_workers) + " workers, " + std::to_string(found.seeds) +
               " seed" + (found.seeds == 1 ? "" : "s") + (use.proxy ? ", proxy for " + model : "") +
               ")";
  return use;
}

std::vector<SpbEfficiencyUse> SpbCostModel::Uses() const {
  std::vector<SpbEfficiencyUse> uses;
  for (const auto& [key, use] : uses_) uses.push_back(use);
  return uses;
}

const SpbCostModel::Costs& SpbCostModel::Lookup(const std::string& model, int batch,
                                                int workers) const {
  const auto key = std::make_tuple(model, batch, workers);
  auto it = cache_.find(key);
  if (it == cache_.end()) it = cache_.emplace(key, ComputeCosts(model, batch, workers)).first;
  return it->second;
}

const std::vector<SpbOption>& SpbCostModel::Options(const std::string& model, int batch,
                                                    int workers) const {
  return Lookup(model, batch, workers).options;
}

double SpbCostModel::FullBytesPerWorker(const std::string& model, int batch, int workers) const {
  return Lookup(model, batch, workers).full_bytes_per_worker;
}

SpbCostModel::Costs SpbCostModel::ComputeCosts(const std::string& model, int batch,
                                               int workers) const {
  Costs costs;
  std::vector<SpbOption>& options = costs.options;
  std::string measured_model;
  auto profile = profiles_.find(model);
  if (profile != profiles_.end()) {
    const ModelProfile& p = profile->second;
    measured_model = p.model;
    const SpbIterationEstimate full =
        EstimateSpbIteration(p, p.comm, workers, ParseSpbPlan("full"), p.batch);
    if (workers > 1) costs.full_bytes_per_worker = MeanBytesSent(full);
    SpbOption option;
    option.source = "profile " + options_.profiles.at(model);
    for (const SpbWorkerEstimate& w : full.workers) {
      option.worker_busy.push_back(w.compute_s / full.iteration_s);
      option.worker_memory.push_back(1.0);
    }
    options.push_back(option);
    if (workers > 1) {
      const SpbIterationEstimate spb =
          EstimateSpbIteration(p, p.comm, workers, ParseSpbPlan("staircase"), p.batch);
      SpbOption staircase;
      staircase.plan = "staircase";
      staircase.source = option.source;
      staircase.iteration_time = spb.iteration_s / full.iteration_s;
      const std::vector<SpbWorkerEstimate> sorted = ByDepth(spb.workers);
      const double full_memory = full.workers.front().memory_bytes;
      for (const SpbWorkerEstimate& w : sorted) {
        staircase.worker_busy.push_back(w.compute_s / spb.iteration_s);
        staircase.worker_memory.push_back(full_memory > 0 ? w.memory_bytes / full_memory : 1.0);
      }
      const double full_bytes = MeanBytesSent(full);
      staircase.bytes = full_bytes > 0 ? MeanBytesSent(spb) / full_bytes : 1.0;
      options.push_back(staircase);
    }
  } else {
    options = FallbackSpbOptions(model, batch, workers, options_.fallback);
    if (workers > 1) {
      costs.full_bytes_per_worker = 2.0 * (workers - 1) / workers * FallbackParameterBytes(model);
    }
  }
  if (options.size() > 1) {
    const SpbEfficiencyUse efficiency = Efficiency(model, measured_model, workers);
    uses_.emplace(std::make_pair(model, workers), efficiency);
    if (!efficiency.known) {
      options.resize(1);
    } else {
      options[1].statistical_efficiency = efficiency.efficiency;
      options[1].efficiency_source = efficiency.source;
    }
  }
  return costs;
}

}  // namespace jigsaw
