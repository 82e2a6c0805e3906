#include "cluster/policies/shockwave_options.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_input.h"
#include "core/limits.h"
#include "core/text_input.h"

namespace jigsaw {
namespace {

constexpr double kMaxOptionMagnitude = 1e9;

int LineOfKey(const std::string& text, const std::string& key) {
  const size_t at = text.find("\"" + key + "\"");
  return at == std::string::npos ? 0 : LineOfOffset(text, at);
}

class ConfigReader {
 public:
  ConfigReader(const std::string& name, const std::string& text, const nlohmann::json& root)
      : name_(name), text_(text), root_(root) {}

  [[noreturn]] void Fail(const std::string& key, const std::string& expected) const {
    throw InputError(name_, LineOfKey(text_, key), "\"" + key + "\": expected " + expected);
  }

  // Reads a finite number into *value if the key is present; `check` tells whether it is valid.
  template <typename Check>
  void Number(const std::string& key, double* value, Check check, const std::string& expected) {
    if (!root_.contains(key)) return;
    const nlohmann::json& v = root_.at(key);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || !check(v.get<double>()) ||
        std::fabs(v.get<double>()) > kMaxOptionMagnitude) {
      Fail(key, expected + " of magnitude at most 1e9 (docs/limits.md)");
    }
    *value = v.get<double>();
  }

  void PositiveInteger(const std::string& key, int* value) {
    if (!root_.contains(key)) return;
    const nlohmann::json& v = root_.at(key);
    if (!v.is_number_integer() || v.get<long long>() <= 0 || v.get<long long>() > 1000000) {
      Fail(key, "a positive integer");
    }
    *value = v.get<int>();
  }

 private:
  const std::string& name_;
  const std::string& text_;
  const nlohmann::json& root_;
};

bool ValidBases(const std::vector<double>& bases) {
  if (bases.size() < 2 || bases.front() != 0 || bases.back() > 1) return false;
  for (size_t i = 1; i < bases.size(); ++i) {
    if (!(bases[i] > bases[i - 1])) return false;
  }
  return true;
}

}  // namespace

ShockwaveOptions LoadShockwaveOptions(const std::string& path) {
  return ParseShockwaveOptions(path, ReadWholeFile(path));
}

ShockwaveOptions ParseShockwaveOptions(const std::string& name, const std::string& text) {
  const nlohmann::json root = ParseJsonInput<nlohmann::json>(
      name, text, "malformed JSON (expected a Shockwave config object)");
  if (!root.is_object()) throw InputError(name, 1, "expected a JSON object of Shockwave options");
  static const char* const kKeys[] = {
      "future_rounds",           "k",       "lambda",         "rhomax",
      "log_approximation_bases", "gpu_ram", "solver_rel_gap", "solver_num_threads",
      "solver_timeout"};
  for (const auto& [key, unused] : root.items()) {
    bool known = false;
    for (const char* k : kKeys) known = known || key == k;
    if (!known) {
      std::string valid;
      for (const char* k : kKeys) valid += (valid.empty() ? "" : ", ") + std::string(k);
      throw InputError(
          name, LineOfKey(text, key),
          "unknown Shockwave option \"" + Excerpt(key) + "\" (expected one of: " + valid + ")");
    }
  }
  ShockwaveOptions options;
  ConfigReader reader(name, text, root);
  auto positive = [](double v) { return v > 0; };
  auto non_negative = [](double v) { return v >= 0; };
  reader.PositiveInteger("future_rounds", &options.future_rounds);
  reader.Number("k", &options.k, positive, "a positive number");
  reader.Number("lambda", &options.lambda, non_negative, "a non-negative number");
  reader.Number("rhomax", &options.rhomax, positive, "a positive number");
  reader.Number("gpu_ram", &options.gpu_ram_gb, positive, "a positive number");
  reader.Number("solver_rel_gap", &options.solver_rel_gap, non_negative, "a non-negative number");
  reader.PositiveInteger("solver_num_threads", &options.solver_threads);
  reader.Number("solver_timeout", &options.solver_timeout_s, positive, "a positive number");
  if (root.contains("log_approximation_bases")) {
    const nlohmann::json& v = root.at("log_approximation_bases");
    const std::string expected =
        "an array of at least two increasing numbers in [0, 1] starting at 0";
    if (!v.is_array()) reader.Fail("log_approximation_bases", expected);
    std::vector<double> bases;
    for (const nlohmann::json& b : v) {
      if (!b.is_number()) reader.Fail("log_approximation_bases", expected);
      bases.push_back(b.get<double>());
    }
    if (!ValidBases(bases)) reader.Fail("log_approximation_bases", expected);
    options.log_bases = bases;
  }
  return options;
}

void ValidateShockwaveOptions(const ShockwaveOptions& options) {
  RequireCountInRange("--shockwave-future-rounds", options.future_rounds, 1, 1000);
  RequireOptionInRange("--shockwave-k", options.k, 1e-12, kMaxOptionMagnitude);
  RequireOptionInRange("--shockwave-lambda", options.lambda, 0, 1000);
  RequireOptionInRange("--shockwave-rhomax", options.rhomax, 1e-6, 1e6);
  RequireCountInRange("--shockwave-reopt-rounds", options.reopt_rounds, 1, 1'000'000);
  RequireCountInRange("--shockwave-max-planned-jobs", options.max_planned_jobs, 0, 1'000'000'000);
  RequireCountInRange("--shockwave-event-replan-max-jobs", options.event_replan_max_jobs, 0,
                      1'000'000'000);
  RequireCountInRange("--shockwave-busy-reopt-rounds", options.busy_reopt_rounds, 1, 1'000'000);
  RequireCountInRange("--shockwave-full-scan-max-jobs", options.full_scan_max_jobs, 0,
                      1'000'000'000);
  RequireOptionInRange("--shockwave-solver-timeout-s", options.solver_timeout_s, 1e-3, 1e6);
  RequireCountInRange("--shockwave-work-limit", options.planner_work_limit, 1, 1'000'000'000'000);
  RequireOptionInRange("--shockwave-wall-clock-limit-s", options.planner_wall_clock_s, 0, 1e6);
  if (!ValidBases(options.log_bases)) {
    throw UsageError("Shockwave log_approximation_bases must increase from 0 to at most 1");
  }
}

}  // namespace jigsaw
