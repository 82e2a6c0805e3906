#include "spb/statistical_efficiency.h"

#include <cctype>
#include <cstdlib>

#include "core/error.h"
#include "core/json_input.h"
#include "core/limits.h"
#include "core/output.h"
#include "core/text_input.h"

namespace jigsaw {
namespace {

bool SamePlan(const SpbPlan& a, const SpbPlan& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == SpbPlanKind::kFreeze) return a.freeze_depth == b.freeze_depth;
  if (a.kind == SpbPlanKind::kExplicit) return a.depths == b.depths;
  return true;
}

// The optional frozen-phase efficiency: a number in [0, 1] and an interval [low, high] with
// 0 <= low <= value <= high <= 1 (or null for a single seed).
void ReadFrozenPhase(const Json& e, StatisticalEfficiencyEntry* entry) {
  if (!e.contains("frozen_phase_efficiency") || e.at("frozen_phase_efficiency").is_null()) return;
  entry->has_frozen_phase = true;
  entry->frozen_phase_efficiency =
      JsonNumber(e.at("frozen_phase_efficiency"), "frozen_phase_efficiency", 0, 1);
  entry->frozen_phase_low = entry->frozen_phase_high = entry->frozen_phase_efficiency;
  if (e.contains("frozen_phase_ci_95") && !e.at("frozen_phase_ci_95").is_null()) {
    const Json& interval = e.at("frozen_phase_ci_95");
    if (!interval.is_array() || interval.size() != 2) {
      throw JsonValueError("frozen_phase_ci_95: expected [low, high], two numbers in [0, 1]");
    }
    entry->frozen_phase_low = JsonNumber(interval[0], "frozen_phase_ci_95", 0, 1);
    entry->frozen_phase_high = JsonNumber(interval[1], "frozen_phase_ci_95", 0, 1);
    if (!(entry->frozen_phase_low <= entry->frozen_phase_efficiency &&
          entry->frozen_phase_efficiency <= entry->frozen_phase_high)) {
      throw JsonValueError(
          "frozen_phase_ci_95: expected [low, high] with low <= frozen_phase_efficiency <= high");
    }
  }
}

}  // namespace

StatisticalEfficiencyTable ReadStatisticalEfficiency(const std::string& path) {
  const std::string text = ReadWholeFile(path);
  const Json json = ParseJsonInput<Json>(path, text, "not valid JSON");
  const std::string format = json.is_object() ? json.value("format", "") : "";
  const bool v2 = format == "jigsaw-spb-statistical-efficiency-v2";
  if (!v2 && format != "jigsaw-spb-statistical-efficiency-v1") {
    throw InputError(path, 0,
                     "expected an object with \"format\": "
                     "\"jigsaw-spb-statistical-efficiency-v2\" (or -v1)");
  }
  if (!json.contains("entries") || !json["entries"].is_array()) {
    throw InputError(path, 0, "expected an \"entries\" array");
  }
  const std::vector<int> lines = JsonArrayEntryLines(text);
  StatisticalEfficiencyTable table;
  table.path = path;
  for (size_t i = 0; i < json["entries"].size(); ++i) {
    const Json& e = json["entries"][i];
    const int line = i < lines.size() ? lines[i] : 0;
    StatisticalEfficiencyEntry entry;
    entry.line = line;
    try {
      entry.model = e.at("model").get<std::string>();
      entry.plan = ParseSpbPlan(e.at("plan").get<std::string>());
      entry.workers = static_cast<int>(JsonInteger(e.at("workers"), "workers", 1, kMaxWorkers));
      entry.statistical_efficiency =
          JsonNumber(e.at("statistical_efficiency"), "statistical_efficiency", -1e9, 1e9);
      // Provenance: required in v2, optional in v1.
      if (v2 || e.contains("batch_per_worker")) {
        entry.batch_per_worker = static_cast<int>(
            JsonInteger(e.at("batch_per_worker"), "batch_per_worker", 1, kMaxBatchSize));
      }
      entry.plan_iterations = 1;
      if (v2 || e.contains("plan_iterations")) {
        entry.plan_iterations = static_cast<int>(
            JsonInteger(e.at("plan_iterations"), "plan_iterations", 1, 1'000'000'000));
      }
      if (v2 || e.contains("command")) entry.command = e.at("command").get<std::string>();
      if (!v2 && e.contains("epoch_test_accuracy")) {
        if (!e.at("epoch_test_accuracy").is_array()) {
          throw JsonValueError("epoch_test_accuracy: expected an array of accuracies");
        }
        for (const Json& accuracy : e.at("epoch_test_accuracy")) {
          entry.epoch_test_accuracy.push_back(JsonNumber(accuracy, "epoch_test_accuracy", 0, 1));
        }
      }
      if (v2 || e.contains("seeds")) {
        entry.seeds = static_cast<int>(JsonInteger(e.at("seeds"), "seeds", 1, 1'000'000));
      }
      if (v2) entry.dataset = e.at("dataset").get<std::string>();
      // v2: the 95% interval of the uncapped mean over seeds (may pass 1; null for a single
      // seed, which has none); v1: an optional interval that must contain the value.
      const char* interval_key = v2 ? "ci_95" : "statistical_efficiency_interval";
      const bool single_seed_v2 = v2 && entry.seeds == 1 && e.at(interval_key).is_null();
      if ((v2 && !single_seed_v2) || (!v2 && e.contains(interval_key))) {
        const Json& interval = e.at(interval_key);
        if (!interval.is_array() || interval.size() != 2) {
          throw InputError(path, line,
                           std::string("expected ") + interval_key +
                               " as [low, high], two numbers (null only for one seed)");
        }
        entry.ci_low = JsonNumber(interval[0], interval_key, -1e9, 1e9);
        entry.ci_high = JsonNumber(interval[1], interval_key, -1e9, 1e9);
        if (!(entry.ci_low <= entry.ci_high)) {
          throw InputError(
              path, line,
              std::string("expected ") + interval_key + " [low, high] with low <= high");
        }
        entry.has_interval = true;
      }
      ReadFrozenPhase(e, &entry);
    } catch (const Json::exception& ex) {
      throw InputError(path, line,
                       std::string("expected an entry with model, plan, workers, "
                                   "statistical_efficiency and (v2) dataset, batch_per_worker, "
                                   "plan_iterations, seeds, ci_95, command: ") +
                           ex.what());
    } catch (const UsageError& ex) {
      throw InputError(path, line, std::string("expected an SPB plan: ") + ex.what());
    } catch (const std::invalid_argument& ex) {
      throw InputError(path, line, ex.what());
    }
    if (entry.workers < 1 || entry.plan_iterations < 1) {
      throw InputError(path, line, "expected workers >= 1 and plan_iterations >= 1");
    }
    if (!(entry.statistical_efficiency >= 0 && entry.statistical_efficiency <= 1)) {
      throw InputError(path, line,
                       "expected statistical_efficiency in [0, 1], got " +
                           std::to_string(entry.statistical_efficiency));
    }
    if (!v2 && entry.has_interval) {
      if (!(entry.ci_low >= 0 && entry.ci_low <= entry.statistical_efficiency &&
            entry.statistical_efficiency <= entry.ci_high && entry.ci_high <= 1)) {
        throw InputError(path, line,
                         "expected statistical_efficiency_interval [low, high] with 0 <= low <= "
                         "statistical_efficiency <= high <= 1");
      }
    }
    table.entries.push_back(entry);
  }
  return table;
}

std::string NormalizedModelName(const std::string& model) {
  std::string out;
  for (char c : model) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

StatisticalEfficiency LookupStatisticalEfficiency(const StatisticalEfficiencyTable& table,
                                                  const std::string& model, const SpbPlan& plan,
                                                  int workers) {
  StatisticalEfficiency result;
  if (plan.kind == SpbPlanKind::kFull) {
    result.known = true;
    result.efficiency = result.low = result.high = 1.0;
    result.source = "reference";
    return result;
  }
  const std::string wanted = NormalizedModelName(model);
  const StatisticalEfficiencyEntry* best = nullptr;
  for (const StatisticalEfficiencyEntry& e : table.entries) {
    if (NormalizedModelName(e.model) != wanted || !SamePlan(e.plan, plan)) continue;
    const int distance = std::abs(e.workers - workers);
    const int best_distance = best == nullptr ? 0 : std::abs(best->workers - workers);
    if (best == nullptr || distance < best_distance ||
        (distance == best_distance && e.workers < best->workers)) {
      best = &e;
    }
  }
  if (best == nullptr) {
    result.source =
        "no measurement of model " + model + " with plan " + plan.text + " in " + table.path;
    return result;
  }
  result.known = true;
  result.efficiency = best->statistical_efficiency;
  result.has_interval = best->has_interval;
  result.low = best->has_interval ? best->ci_low : result.efficiency;
  result.high = best->has_interval ? best->ci_high : result.efficiency;
  result.measured_workers = best->workers;
  result.seeds = best->seeds;
  result.measured_model = best->model;
  result.source = table.path + ":" + std::to_string(best->line);
  result.frozen_phase_known = best->has_frozen_phase;
  result.frozen_phase_efficiency = best->frozen_phase_efficiency;
  result.frozen_phase_low = best->frozen_phase_low;
  result.frozen_phase_high = best->frozen_phase_high;
  return result;
}

}  // namespace jigsaw
