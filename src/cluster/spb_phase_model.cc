#include "cluster/spb_phase_model.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/limits.h"
#include "model/gpu_memory.h"
#include "spb/iteration_estimate.h"
#include "spb/statistical_efficiency.h"

namespace jigsaw {
namespace {

// A saving phase's efficiency under the options (an end of its interval, or a fixed value).
double PhaseEfficiency(const SpbPhase& p, const SpbPhaseModelOptions& options) {
  if (!p.SavesWork()) return 1.0;
  if (options.fixed_efficiency >= 0) return options.fixed_efficiency;
  switch (options.bound) {
    case SpbPhaseModelOptions::Bound::kLow:
      return p.efficiency_low;
    case SpbPhaseModelOptions::Bound::kHigh:
      return p.efficiency_high;
    case SpbPhaseModelOptions::Bound::kValue:
      break;
  }
  return p.efficiency;
}

// Phase fractions with the warm-up share overridden (the first phase, when it saves nothing).
std::vector<double> Fractions(const SpbPhasePlan& plan, double warmup) {
  std::vector<double> fractions;
  for (const SpbPhase& p : plan.phases) fractions.push_back(p.fraction);
  if (warmup < 0 || plan.phases.size() < 2 || plan.phases.front().SavesWork()) return fractions;
  const double rest = 1.0 - fractions.front();
  fractions.front() = warmup;
  for (size_t i = 1; i < fractions.size(); ++i) {
    fractions[i] = rest > 0 ? fractions[i] / rest * (1.0 - warmup) : 0.0;
  }
  return fractions;
}

}  // namespace

void SpbPhaseModelOptions::Validate() const {
  if (fixed_efficiency >= 0) RequireOptionInRange("--spb-efficiency", fixed_efficiency, 0, 1);
  if (warmup_fraction >= 0) {
    RequireOptionInRange("--spb-phase-warmup", warmup_fraction, 0, 0.999);
  }
  if (frozen_share >= 0) RequireOptionInRange("--spb-phase-frozen-share", frozen_share, 0, 1);
  RequireOptionInRange("--spb-phase-compute-bound", compute_bound, 0, 1);
  if (proxy_model.empty()) throw UsageError("--spb-proxy-model must not be empty");
}

int JobPhases::Index(double progress) const {
  const double p = std::clamp(progress, 0.0, 1.0);
  for (size_t i = 0; i + 1 < phases.size(); ++i) {
    if (p < phases[i].end) return static_cast<int>(i);
  }
  return static_cast<int>(phases.size()) - 1;
}

SpbPhaseModel::SpbPhaseModel(const SpbPhaseModelOptions& options) : options_(options) {
  options_.Validate();
  if (!options_.file.empty()) file_ = ReadSpbPhasePlans(options_.file);
  for (const auto& [model, path] : options_.profiles) {
    ModelProfile profile = ReadProfile(path);
    profile.steps = StepProfile();  // one worker per device
    if (profile.comm.empty()) {
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
}

void SpbPhaseModel::Cost(const std::string& model, int batch, int workers, const SpbPhase& measured,
                         bool own, JobPhase* phase, std::string* cost_source) const {
  const double share = options_.frozen_share >= 0 && measured.SavesWork()
                           ? options_.frozen_share
                           : static_cast<double>(measured.frozen_blocks) / measured.blocks;
  phase->frozen_share = share;
  const double activation = ActivationMemoryShare(model, batch);
  auto profile = profiles_.find(model);
  if (own && options_.frozen_share < 0) {
    *cost_source = "phase plan";
    phase->compute = measured.MaxCompute();
    phase->memory = 1.0 - activation * (1.0 - measured.MaxActivation());
    phase->bytes = measured.bytes;
  } else if (profile != profiles_.end()) {
    const ModelProfile& p = profile->second;
    *cost_source = "profile " + options_.profiles.at(model);
    const int blocks = static_cast<int>(p.blocks.size());
    const int depth = std::clamp(static_cast<int>(std::lround((1.0 - share) * blocks)), 0, blocks);
    const SpbIterationEstimate full =
        EstimateSpbIteration(p, p.comm, workers, ParseSpbPlan("full"), p.batch);
    const SpbIterationEstimate frozen = EstimateSpbIteration(
        p, p.comm, workers, ParseSpbPlan("freeze:" + std::to_string(depth)), p.batch);
    const SpbWorkerEstimate& f = full.workers.front();
    const SpbWorkerEstimate& w = frozen.workers.front();
    phase->compute = f.compute_s > 0 ? w.compute_s / f.compute_s : 1.0;
    phase->memory = f.memory_bytes > 0 ? w.memory_bytes / f.memory_bytes : 1.0;
    phase->bytes = f.bytes_sent > 0 ? w.bytes_sent / f.bytes_sent : 1.0 - share;
  } else {
    *cost_source = "fallback";
    const double r = options_.fallback.backward_ratio;
    phase->compute = (1.0 + r * (1.0 - share)) / (1.0 + r);
    phase->memory = 1.0 - activation * share;
    phase->bytes = 1.0 - share;
  }
  phase->iteration_time = 1.0 - options_.compute_bound * (1.0 - phase->compute);
}

SpbPhaseUse SpbPhaseModel::Compute(const std::string& model, int batch, int workers) const {
  SpbPhaseUse use;
  use.model = model;
  use.workers = workers;
  const SpbPhasePlan* plan = FindSpbPhasePlan(file_, model, "adaptive", workers);
  if (plan == nullptr) {
    plan = FindSpbPhasePlan(file_, options_.proxy_model, "adaptive", workers);
    use.proxy = true;
  }
  const bool costable = profiles_.count(model) > 0 || ProfiledGpuMemoryMb(model, batch) > 0 ||
                        (plan != nullptr && !use.proxy);
  if (plan == nullptr || !costable) {
    use.source = plan == nullptr
                     ? "no phase plan of " + model + " or of the proxy " + options_.proxy_model +
                           " in " + (options_.file.empty() ? "(no file)" : options_.file)
                     : "no cost shape of " + model + " (no profile, no memory profile)";
    return use;
  }
  use.known = true;
  use.measured_model = plan->model;
  use.measured_workers = plan->workers;
  use.source = file_.path + ":" + std::to_string(plan->line);
  const std::vector<double> fractions = Fractions(*plan, options_.warmup_fraction);
  double end = 0;
  for (size_t i = 0; i < plan->phases.size(); ++i) {
    const SpbPhase& measured = plan->phases[i];
    JobPhase phase;
    phase.name = measured.name;
    end += fractions[i];
    phase.end = i + 1 == plan->phases.size() ? 1.0 : std::min(1.0, end);
    phase.saves = measured.SavesWork();
    phase.efficiency = PhaseEfficiency(measured, options_);
    if (phase.saves) {
      Cost(model, batch, workers, measured, !use.proxy, &phase, &use.cost_source);
    }
    use.phases.phases.push_back(phase);
  }
  if (use.cost_source.empty()) use.cost_source = "phase plan";
  return use;
}

const JobPhases* SpbPhaseModel::Phases(const std::string& model, int batch, int workers) const {
  const auto key = std::make_tuple(model, batch, workers);
  auto it = cache_.find(key);
  if (it == cache_.end()) it = cache_.emplace(key, Compute(model, batch, workers)).first;
  return it->second.known ? &it->second.phases : nullptr;
}

std::vector<SpbPhaseUse> SpbPhaseModel::Uses() const {
  std::vector<SpbPhaseUse> uses;
  for (const auto& [key, use] : cache_) uses.push_back(use);
  return uses;
}

Json SpbPhaseUsesJson(const SpbPhaseModel& model, std::FILE* warnings) {
  Json uses = Json::array();
  for (const SpbPhaseUse& use : model.Uses()) {
    Json u;
    u["model"] = use.model;
    u["workers"] = use.workers;
    u["known"] = use.known;
    u["proxy"] = use.proxy;
    u["source"] = use.source;
    if (use.known) {
      u["measured_model"] = use.measured_model;
      u["measured_workers"] = use.measured_workers;
      u["cost_source"] = use.cost_source;
      Json phases = Json::array();
      for (const JobPhase& p : use.phases.phases) {
        phases.push_back({{"name", p.name},
                          {"end", p.end},
                          {"frozen_share", p.frozen_share},
                          {"compute", p.compute},
                          {"iteration_time", p.iteration_time},
                          {"memory", p.memory},
                          {"bytes", p.bytes},
                          {"efficiency", p.efficiency}});
      }
      u["phases"] = phases;
      if (use.proxy && warnings != nullptr) {
        std::fprintf(warnings,
                     "sim: warning: PROXY phase plan: %s on %d workers has no phase plan of its "
                     "own; used %s's (%d workers) from %s, costed by its %s\n",
                     use.model.c_str(), use.workers, use.measured_model.c_str(),
                     use.measured_workers, use.source.c_str(), use.cost_source.c_str());
      }
    }
    uses.push_back(u);
  }
  return uses;
}

}  // namespace jigsaw
