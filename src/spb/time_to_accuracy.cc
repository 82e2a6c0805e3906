#include "spb/time_to_accuracy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/error.h"
#include "core/json_input.h"
#include "core/limits.h"
#include "core/output.h"
#include "core/text_input.h"

namespace jigsaw {
namespace {

int Column(const TextFile& file, const std::vector<std::string_view>& header,
           std::string_view name) {
  for (size_t i = 0; i < header.size(); ++i) {
    if (Trim(header[i]) == name) return static_cast<int>(i);
  }
  file.Fail("expected a column named " + std::string(name) + " in the header");
}

void ReadEvals(const std::string& path, RunCurve* curve) {
  TextFile file(path);
  std::string_view line;
  if (!file.NextLine(&line)) file.Fail("expected a header line");
  const std::vector<std::string_view> header = SplitFields(line, ',');
  const int it_col = Column(file, header, "iteration");
  const int acc_col = Column(file, header, "test_accuracy");
  while (file.NextLine(&line)) {
    if (Trim(line).empty()) continue;
    const std::vector<std::string_view> f = SplitFields(line, ',');
    file.RequireColumns(f, header.size(), "the header's columns");
    const double it = file.ParseDoubleInRange(f[it_col], "iteration", 0, 1e15);
    const double acc = file.ParseDoubleInRange(f[acc_col], "test_accuracy", 0, 1);
    if (!curve->evals.empty() && it < curve->evals.back().first) {
      file.Fail("expected evaluations in ascending iteration order");
    }
    curve->evals.push_back({it, acc});
  }
}

// The run's blocks and final accuracy from summary.json.
int ReadSummary(const std::string& path, RunCurve* curve) {
  const Json json = ParseJsonInput<Json>(path, ReadWholeFile(path), "expected a summary.json");
  try {
    curve->final_accuracy = JsonNumber(json.at("test_accuracy"), "test_accuracy", 0, 1);
    return static_cast<int>(JsonInteger(json.at("blocks"), "blocks", 1, 100000));
  } catch (const Json::exception& e) {
    throw InputError(path, 0, std::string("expected test_accuracy and blocks: ") + e.what());
  } catch (const std::invalid_argument& e) {
    throw InputError(path, 0, e.what());
  }
}

void ReadIterations(const std::string& path, int blocks, const std::vector<double>& costs,
                    RunCurve* curve) {
  TextFile file(path);
  std::string_view line;
  if (!file.NextLine(&line)) file.Fail("expected a header line");
  const std::vector<std::string_view> header = SplitFields(line, ',');
  const int rank_col = Column(file, header, "rank");
  const int it_col = Column(file, header, "iteration");
  const int depth_col = Column(file, header, "depth");
  const int fw_col = Column(file, header, "forward_s");
  const int bw_col = Column(file, header, "backward_s");
  // iteration -> per rank compute; and whether some rank saved work.
  std::map<int64_t, std::map<int, double>> compute;
  while (file.NextLine(&line)) {
    if (Trim(line).empty()) continue;
    const std::vector<std::string_view> f = SplitFields(line, ',');
    file.RequireColumns(f, header.size(), "the header's columns");
    const int rank = static_cast<int>(file.ParseIntInRange(f[rank_col], "rank", 0, kMaxWorkers));
    const int64_t it = file.ParseIntInRange(f[it_col], "iteration", 0, 1'000'000'000'000);
    const int depth = static_cast<int>(file.ParseIntInRange(f[depth_col], "depth", 0, blocks));
    double seconds = 0;
    if (!costs.empty()) {
      if (depth >= static_cast<int>(costs.size())) file.Fail("depth beyond the profile's blocks");
      seconds = costs[depth];
    } else {
      seconds = file.ParseDoubleInRange(f[fw_col], "forward_s", 0, 1e9) +
                file.ParseDoubleInRange(f[bw_col], "backward_s", 0, 1e9);
    }
    compute[it][rank] = seconds;
    if (depth < blocks &&
        (curve->first_saving_iteration < 0 || it < curve->first_saving_iteration)) {
      curve->first_saving_iteration = it;
    }
  }
  std::map<int, double> running;
  int64_t expected = 0;
  for (const auto& [it, ranks] : compute) {
    if (it != expected) {
      throw InputError(path, 0,
                       "expected rows for every iteration from 0, missing iteration " +
                           std::to_string(expected));
    }
    ++expected;
    double busiest = 0;
    for (const auto& [rank, seconds] : ranks) busiest = std::max(busiest, running[rank] += seconds);
    curve->compute.push_back(busiest);
  }
  curve->iterations = expected;
  if (expected == 0) throw InputError(path, 0, "expected at least one iteration");
}

}  // namespace

std::optional<double> IterationsTo(const RunCurve& curve, double target) {
  std::pair<double, double> previous{0.0, 0.1};
  for (const auto& [it, acc] : curve.evals) {
    if (acc >= target) {
      const auto [i0, a0] = previous;
      if (acc == a0 || target <= a0) return target <= a0 ? i0 : it;
      return i0 + (target - a0) / (acc - a0) * (it - i0);
    }
    previous = {it, acc};
  }
  return std::nullopt;
}

double ComputeAfter(const RunCurve& curve, double iterations) {
  if (curve.compute.empty() || iterations <= 0) return 0;
  const double n = static_cast<double>(curve.compute.size());
  const double at = std::min(iterations, n);
  const int64_t whole = static_cast<int64_t>(std::floor(at));
  const double before = whole == 0 ? 0.0 : curve.compute[whole - 1];
  if (whole >= static_cast<int64_t>(curve.compute.size())) return before;
  return before + (at - static_cast<double>(whole)) * (curve.compute[whole] - before);
}

const char* ScoreRuleName(ScoreRule rule) {
  switch (rule) {
    case ScoreRule::kTarget:
      return "target";
    case ScoreRule::kBeforeSaving:
      return "target reached before saving: scored at the final accuracy";
    case ScoreRule::kBelowTarget:
      return "target not reached: scored at the final accuracy";
  }
  return "?";
}

SeedScore ScoreSeed(const RunCurve& full, const RunCurve& plan, double target) {
  SeedScore score;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double w = static_cast<double>(plan.first_saving_iteration);
  const bool saves = plan.first_saving_iteration >= 0;
  const std::optional<double> t_full = IterationsTo(full, target);
  const std::optional<double> t_plan = IterationsTo(plan, target);
  if (t_full && t_plan && (!saves || *t_plan > w)) {
    score.rule = ScoreRule::kTarget;
    score.full_iterations = *t_full;
    score.plan_iterations = *t_plan;
  } else {
    score.rule = t_plan && t_full ? ScoreRule::kBeforeSaving : ScoreRule::kBelowTarget;
    const std::optional<double> t_final = IterationsTo(full, plan.final_accuracy);
    score.full_iterations = t_final ? std::min(*t_final, static_cast<double>(full.iterations))
                                    : static_cast<double>(full.iterations);
    score.plan_iterations = static_cast<double>(plan.iterations);
  }
  score.iteration_ratio =
      score.plan_iterations > 0 ? score.full_iterations / score.plan_iterations : 0.0;
  const double plan_compute = ComputeAfter(plan, score.plan_iterations);
  score.compute_ratio =
      plan_compute > 0 ? ComputeAfter(full, score.full_iterations) / plan_compute : 0.0;
  score.frozen_phase_efficiency =
      saves && score.plan_iterations > w
          ? std::max(0.0, (score.full_iterations - w) / (score.plan_iterations - w))
          : (saves ? 0.0 : nan);
  return score;
}

RunCurve ReadRunCurve(const std::string& dir, const std::vector<double>& profile_costs) {
  RunCurve curve;
  const int blocks = ReadSummary(dir + "/summary.json", &curve);
  ReadEvals(dir + "/evals.csv", &curve);
  ReadIterations(dir + "/iterations.csv", blocks, profile_costs, &curve);
  return curve;
}

}  // namespace jigsaw
