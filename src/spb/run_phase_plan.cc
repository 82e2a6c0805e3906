#include "spb/run_phase_plan.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>

#include "core/error.h"
#include "core/json_input.h"
#include "core/limits.h"
#include "core/output.h"
#include "core/text_input.h"
#include "spb/cost_model.h"
#include "spb/iteration_estimate.h"
#include "spb/statistical_efficiency.h"

namespace jigsaw {
namespace {

struct RunFacts {
  std::string model;
  int workers = 0;
  int batch = 0;
  int blocks = 0;
  // Per phase, in order: the sorted depths and the iterations it lasted.
  std::vector<std::pair<std::vector<int>, int64_t>> phases;
  int64_t iterations = 0;
};

RunFacts ReadSummary(const std::string& dir) {
  const std::string path = dir + "/summary.json";
  const std::string text = ReadWholeFile(path);
  const Json json = ParseJsonInput<Json>(path, text, "expected a jigsaw train summary.json");
  RunFacts facts;
  try {
    facts.model = json.at("model").get<std::string>();
    facts.workers = static_cast<int>(JsonInteger(json.at("workers"), "workers", 1, kMaxWorkers));
    facts.batch = static_cast<int>(
        JsonInteger(json.at("batch_per_worker"), "batch_per_worker", 1, kMaxBatchSize));
    facts.blocks = static_cast<int>(JsonInteger(json.at("blocks"), "blocks", 1, 100000));
  } catch (const Json::exception& e) {
    throw InputError(
        path, 0, std::string("expected model, workers, batch_per_worker and blocks: ") + e.what());
  } catch (const std::invalid_argument& e) {
    throw InputError(path, 0, e.what());
  }
  return facts;
}

int Column(const TextFile& file, const std::vector<std::string_view>& header,
           std::string_view name) {
  for (size_t i = 0; i < header.size(); ++i) {
    if (Trim(header[i]) == name) return static_cast<int>(i);
  }
  file.Fail("expected a column named " + std::string(name) + " in the header");
}

// Reads iterations.csv: the depth of every rank at every iteration, grouped into phases.
void ReadIterations(const std::string& dir, RunFacts* facts) {
  TextFile file(dir + "/iterations.csv");
  std::string_view line;
  if (!file.NextLine(&line)) file.Fail("expected a header line");
  const std::vector<std::string_view> header = SplitFields(line, ',');
  const int rank_col = Column(file, header, "rank");
  const int iter_col = Column(file, header, "iteration");
  const int depth_col = Column(file, header, "depth");
  std::map<int64_t, std::vector<int>> depths;  // iteration -> depth per rank
  while (file.NextLine(&line)) {
    if (Trim(line).empty()) continue;
    const std::vector<std::string_view> f = SplitFields(line, ',');
    file.RequireColumns(f, header.size(), "the header's columns");
    const int rank =
        static_cast<int>(file.ParseIntInRange(f[rank_col], "rank", 0, facts->workers - 1));
    const int64_t iteration = file.ParseIntInRange(f[iter_col], "iteration", 0, 1'000'000'000'000);
    const int depth =
        static_cast<int>(file.ParseIntInRange(f[depth_col], "depth", 0, facts->blocks));
    std::vector<int>& at = depths[iteration];
    at.resize(facts->workers, -1);
    at[rank] = depth;
  }
  int64_t expected = 0;
  for (auto& [iteration, ranks] : depths) {
    if (iteration != expected || std::find(ranks.begin(), ranks.end(), -1) != ranks.end()) {
      throw InputError(file.name(), 0,
                       "expected one row per rank for every iteration from 0, missing at "
                       "iteration " +
                           std::to_string(expected));
    }
    ++expected;
    std::sort(ranks.begin(), ranks.end());
    if (facts->phases.empty() || facts->phases.back().first != ranks) {
      facts->phases.push_back({ranks, 0});
    }
    ++facts->phases.back().second;
  }
  facts->iterations = expected;
  if (expected == 0) throw InputError(file.name(), 0, "expected at least one iteration");
}

std::string DepthsText(const std::vector<int>& depths) {
  std::string text = "depths:";
  for (size_t k = 0; k < depths.size(); ++k) text += (k ? "," : "") + std::to_string(depths[k]);
  return text;
}

double ParameterShare(const ModelProfile& profile, int depth) {
  double all = 0, updated = 0;
  const int blocks = static_cast<int>(profile.blocks.size());
  for (int b = 0; b < blocks; ++b) {
    all += static_cast<double>(profile.blocks[b].parameter_bytes);
    if (b >= blocks - depth) updated += static_cast<double>(profile.blocks[b].parameter_bytes);
  }
  return all > 0 ? updated / all : 1.0;
}

// One phase's costs relative to full backpropagation.
SpbPhase CostPhase(const ModelProfile& profile, const RunFacts& facts,
                   const std::vector<int>& depths) {
  const SpbIterationEstimate full =
      EstimateSpbIteration(profile, profile.comm, facts.workers, ParseSpbPlan("full"), facts.batch);
  const SpbIterationEstimate phase = EstimateSpbIteration(
      profile, profile.comm, facts.workers, ParseSpbPlan(DepthsText(depths)), facts.batch);
  SpbPhase p;
  p.blocks = facts.blocks;
  p.frozen_blocks = facts.blocks - *std::max_element(depths.begin(), depths.end());
  p.iteration_time = full.iteration_s > 0 ? phase.iteration_s / full.iteration_s : 1.0;
  double full_sent = 0, sent = 0;
  for (int k = 0; k < facts.workers; ++k) {
    const SpbWorkerEstimate& f = full.workers[k];
    const SpbWorkerEstimate& w = phase.workers[k];
    p.worker_compute.push_back(f.compute_s > 0 ? w.compute_s / f.compute_s : 1.0);
    p.worker_activation.push_back(f.activation_bytes > 0 ? w.activation_bytes / f.activation_bytes
                                                         : 1.0);
    full_sent += f.bytes_sent;
    sent += w.bytes_sent;
  }
  p.bytes = facts.workers > 1 ? (full_sent > 0 ? sent / full_sent : 1.0)
                              : ParameterShare(profile, depths.front());
  return p;
}

}  // namespace

void RunPhasePlanOptions::Validate() const {
  if (runs.empty()) throw UsageError("--run: give at least one train run folder");
  if (profile.empty()) throw UsageError("--profile: give the model's `jigsaw profile` output");
  if (efficiency_file.empty()) throw UsageError("--efficiency-file must not be empty");
}

SpbPhasePlan PhasePlanFromRuns(const RunPhasePlanOptions& options) {
  options.Validate();
  std::vector<RunFacts> runs;
  for (const std::string& dir : options.runs) {
    RunFacts facts = ReadSummary(dir);
    ReadIterations(dir, &facts);
    if (!runs.empty()) {
      const RunFacts& first = runs.front();
      bool same = facts.model == first.model && facts.workers == first.workers &&
                  facts.batch == first.batch && facts.phases.size() == first.phases.size();
      for (size_t i = 0; same && i < facts.phases.size(); ++i) {
        same = facts.phases[i].first == first.phases[i].first;
      }
      if (!same) {
        throw UsageError("--run " + dir + " followed another phase sequence (or model, workers, " +
                         "batch) than --run " + options.runs.front() + ": give one run");
      }
    }
    runs.push_back(std::move(facts));
  }
  const RunFacts& first = runs.front();
  ModelProfile profile = ReadProfile(options.profile);
  if (NormalizedModelName(profile.model) != NormalizedModelName(first.model) ||
      static_cast<int>(profile.blocks.size()) != first.blocks) {
    throw UsageError("--profile " + options.profile + " is of model " + profile.model + " (" +
                     std::to_string(profile.blocks.size()) + " blocks), the run of " + first.model +
                     " (" + std::to_string(first.blocks) + " blocks)");
  }
  profile.steps = StepProfile();  // one worker per device: the per-block times apply
  if (profile.comm.empty()) {     // compute-only, as the simulator's cost model
    profile.comm.method = "none (the profile has no comm section)";
    for (auto kind : {Collective::Kind::kAllreduce, Collective::Kind::kBroadcast}) {
      CollectiveFit fit;
      fit.kind = kind;
      fit.bandwidth_bytes_per_s = 1e15;
      profile.comm.fits.push_back(fit);
    }
  }
  SpbPhasePlan plan;
  plan.model = first.model;
  plan.workers = first.workers;
  plan.batch_per_worker = first.batch;
  plan.plan = "adaptive";
  plan.source =
      "jigsaw phase-plan from " + std::to_string(runs.size()) + " run(s) and " + options.profile;
  const StatisticalEfficiencyTable table = ReadStatisticalEfficiency(options.efficiency_file);
  const StatisticalEfficiency measured =
      LookupStatisticalEfficiency(table, first.model, ParseSpbPlan("adaptive"), first.workers);
  int frozen_phases = 0;
  for (const auto& [depths, length] : first.phases) {
    frozen_phases += *std::min_element(depths.begin(), depths.end()) < first.blocks;
  }
  int frozen_index = 0;
  for (size_t i = 0; i < first.phases.size(); ++i) {
    SpbPhase phase = CostPhase(profile, first, first.phases[i].first);
    double fraction = 0;
    for (const RunFacts& r : runs) {
      fraction += static_cast<double>(r.phases[i].second) / static_cast<double>(r.iterations);
    }
    phase.fraction = fraction / static_cast<double>(runs.size());
    const std::vector<int>& depths = first.phases[i].first;
    const bool full = *std::min_element(depths.begin(), depths.end()) == first.blocks;
    if (full) {
      phase.name = i == 0 ? "warmup" : "full";
    } else {
      ++frozen_index;
      phase.name = frozen_phases == 1 ? "frozen" : "frozen" + std::to_string(frozen_index);
      if (!measured.frozen_phase_known) {
        throw UsageError("no frozen-phase efficiency of " + first.model + " (adaptive, " +
                         std::to_string(first.workers) + " workers) in " + options.efficiency_file +
                         ": measure it with bench/spb_bench.sh WRITE_EFFICIENCY=1");
      }
      phase.efficiency = measured.frozen_phase_efficiency;
      phase.efficiency_low = measured.frozen_phase_low;
      phase.efficiency_high = measured.frozen_phase_high;
      if (frozen_index == 1) {  // file:line, without the folder (it depends on the machine)
        plan.source += "; efficiency " +
                       std::filesystem::path(options.efficiency_file).filename().string() +
                       measured.source.substr(measured.source.rfind(':'));
      }
    }
    plan.phases.push_back(phase);
  }
  // Renormalise the rounding of the averaged fractions.
  double sum = 0;
  for (const SpbPhase& p : plan.phases) sum += p.fraction;
  for (SpbPhase& p : plan.phases) p.fraction /= sum;
  return plan;
}

void MergeSpbPhasePlan(const SpbPhasePlan& plan, std::vector<SpbPhasePlan>* plans) {
  for (SpbPhasePlan& p : *plans) {
    if (NormalizedModelName(p.model) == NormalizedModelName(plan.model) &&
        p.workers == plan.workers && p.plan == plan.plan) {
      p = plan;
      return;
    }
  }
  plans->push_back(plan);
}

}  // namespace jigsaw
