#include "spb/statistical_efficiency.h"

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
      entry.batch_per_worker = e.at("batch_per_worker").get<int>();
      entry.plan_iterations = e.at("plan_iterations").get<int>();
      if (!v2) entry.epoch_test_accuracy = e.at("epoch_test_accuracy").get<std::vector<double>>();
      entry.statistical_efficiency = e.at("statistical_efficiency").get<double>();
      entry.command = e.at("command").get<std::string>();
      if (v2) {
        entry.dataset = e.at("dataset").get<std::string>();
        entry.seeds = e.at("seeds").get<int>();
        const std::vector<double> ci = e.at("ci_95").get<std::vector<double>>();
        if (ci.size() != 2 || !(ci[0] <= ci[1])) {
          throw InputError(path, line, "expected \"ci_95\": [low, high] with low <= high");
        }
        entry.ci_low = ci[0];
        entry.ci_high = ci[1];
      }
    } catch (const Json::exception& ex) {
      throw InputError(path, line,
                       std::string("expected an entry with model, plan, workers, "
                                   "batch_per_worker, plan_iterations, statistical_efficiency, "
                                   "command and (v1) epoch_test_accuracy or (v2) dataset, seeds "
                                   "and ci_95: ") +
                           ex.what());
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
    table.entries.push_back(entry);
  }
  return table;
}

StatisticalEfficiency LookupStatisticalEfficiency(const StatisticalEfficiencyTable& table,
                                                  const std::string& model, const SpbPlan& plan,
                                                  int workers) {
  StatisticalEfficiency result;
  if (plan.kind == SpbPlanKind::kFull) {
    result.known = true;
    result.efficiency = 1.0;
    result.source = "reference";
    return result;
  }
  const StatisticalEfficiencyEntry* best = nullptr;
  for (const StatisticalEfficiencyEntry& e : table.entries) {
    if (e.model != model || !SamePlan(e.plan, plan)) continue;
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
  result.measured_workers = best->workers;
  result.ci_low = best->ci_low;
  result.ci_high = best->ci_high;
  result.seeds = best->seeds;
  result.source = table.path + ":" + std::to_string(best->line);
  return result;
}

}  // namespace jigsaw
