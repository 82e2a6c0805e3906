#include "spb/statistical_efficiency.h"

#include <cctype>
#include <cstdlib>

#include "core/error.h"
#include "core/output.h"
#include "core/text_input.h"

namespace jigsaw {
namespace {

// 1-based line of every object that is an element of an array that is a value of the root
// object, in file order: the entries of {"entries": [{...}, ...]}.
std::vector<int> EntryLines(const std::string& text) {
  std::vector<int> lines;
  std::vector<char> stack;
  int line = 1;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (c == '{' && stack.size() == 2 && stack[0] == '{' && stack[1] == '[')
        lines.push_back(line);
      stack.push_back(c);
    } else if ((c == '}' || c == ']') && !stack.empty()) {
      stack.pop_back();
    }
  }
  return lines;
}

bool SamePlan(const SpbPlan& a, const SpbPlan& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == SpbPlanKind::kFreeze) return a.freeze_depth == b.freeze_depth;
  if (a.kind == SpbPlanKind::kExplicit) return a.depths == b.depths;
  return true;
}

}  // namespace

StatisticalEfficiencyTable ReadStatisticalEfficiency(const std::string& path) {
  const std::string text = ReadWholeFile(path);
  Json json;
  try {
    json = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw InputError(path, LineOfOffset(text, e.byte), std::string("not valid JSON: ") + e.what());
  }
  if (!json.is_object() || json.value("format", "") != "jigsaw-spb-statistical-efficiency-v1") {
    throw InputError(path, 0,
                     "expected an object with \"format\": "
                     "\"jigsaw-spb-statistical-efficiency-v1\"");
  }
  if (!json.contains("entries") || !json["entries"].is_array()) {
    throw InputError(path, 0, "expected an \"entries\" array");
  }
  const std::vector<int> lines = EntryLines(text);
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
      entry.workers = e.at("workers").get<int>();
      entry.statistical_efficiency = e.at("statistical_efficiency").get<double>();
      entry.batch_per_worker = e.value("batch_per_worker", 0);
      entry.plan_iterations = e.value("plan_iterations", 1);
      if (e.contains("epoch_test_accuracy")) {
        entry.epoch_test_accuracy = e.at("epoch_test_accuracy").get<std::vector<double>>();
      }
      entry.command = e.value("command", std::string());
      entry.seeds = e.value("seeds", 0);
      if (e.contains("statistical_efficiency_interval")) {
        const std::vector<double> interval =
            e.at("statistical_efficiency_interval").get<std::vector<double>>();
        if (interval.size() != 2) throw InputError(path, line, "");
        entry.interval_low = interval[0];
        entry.interval_high = interval[1];
      }
    } catch (const Json::exception& ex) {
      throw InputError(path, line,
                       std::string("expected an entry with model, plan, workers and "
                                   "statistical_efficiency (optionally batch_per_worker, "
                                   "plan_iterations, epoch_test_accuracy, command, seeds, "
                                   "statistical_efficiency_interval [low, high]): ") +
                           ex.what());
    } catch (const InputError&) {
      throw InputError(path, line,
                       "expected statistical_efficiency_interval as [low, high], two numbers");
    } catch (const UsageError& ex) {
      throw InputError(path, line, std::string("expected an SPB plan: ") + ex.what());
    }
    if (entry.workers < 1 || entry.plan_iterations < 1) {
      throw InputError(path, line, "expected workers >= 1 and plan_iterations >= 1");
    }
    if (!(entry.statistical_efficiency >= 0 && entry.statistical_efficiency <= 1)) {
      throw InputError(path, line,
                       "expected statistical_efficiency in [0, 1], got " +
                           std::to_string(entry.statistical_efficiency));
    }
    if (entry.interval_low >= 0 || entry.interval_high >= 0) {
      if (!(entry.interval_low >= 0 && entry.interval_low <= entry.statistical_efficiency &&
            entry.statistical_efficiency <= entry.interval_high && entry.interval_high <= 1)) {
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
  result.has_interval = best->interval_low >= 0;
  result.low = result.has_interval ? best->interval_low : result.efficiency;
  result.high = result.has_interval ? best->interval_high : result.efficiency;
  result.measured_workers = best->workers;
  result.measured_model = best->model;
  result.source = table.path + ":" + std::to_string(best->line);
  return result;
}

}  // namespace jigsaw
