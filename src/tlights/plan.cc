#include "tlights/plan.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "core/error.h"
#include "core/units.h"

namespace jigsaw::tlights {
namespace {

constexpr const char* kGuaranteedRate = "100kbit";  // TensorLights' per-class rate

bool IsRate(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) return false;
  static const std::set<std::string> kUnits = {"bit", "kbit", "mbit", "gbit", "tbit",
                                               "bps", "kbps", "mbps", "gbps", "tbps"};
  std::string unit = text.substr(digits);
  std::transform(unit.begin(), unit.end(), unit.begin(), ::tolower);
  return kUnits.count(unit) > 0;
}

TcCommand Tc(const TlightsConfig& config, std::initializer_list<std::string> arguments) {
  TcCommand command{config.tc};
  command.insert(command.end(), arguments);
  return command;
}

TcCommand JobClass(const TlightsConfig& config, const std::string& verb, int job, int band) {
  return Tc(config,
            {"class", verb, "dev", config.dev, "parent", "1:1", "classid", JobClassId(job), "htb",
             "rate", kGuaranteedRate, "ceil", config.rate, "prio", std::to_string(band)});
}

}  // namespace

double ParseDuration(const std::string& text, const std::string& what) {
  // core/units.h, the parser every subcommand uses; a bare number stays seconds here.
  double seconds = 0;
  if (!ParseDurationSeconds(text, &seconds, /*bare_is_seconds=*/true)) {
    throw UsageError(what + " '" + text + "': expected a duration such as 20s, 500ms or 2m");
  }
  if (!(seconds > 0)) throw UsageError(what + " '" + text + "': must be positive");
  return seconds;
}

std::vector<int> ParsePorts(const std::string& text) {
  std::vector<int> ports;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string field = text.substr(start, comma - start);
    try {
      size_t used = 0;
      const int port = std::stoi(field, &used);
      if (used != field.size() || port < 1 || port > 65535) throw 0;
      ports.push_back(port);
    } catch (...) {
      throw UsageError("--ports '" + text + "': '" + field + "' is not a port (1..65535)");
    }
    start = comma + 1;
  }
  std::set<int> distinct(ports.begin(), ports.end());
  if (distinct.size() != ports.size()) throw UsageError("--ports '" + text + "': repeated port");
  if (ports.size() > static_cast<size_t>(kMaxJobs)) {
    throw UsageError("--ports: at most " + std::to_string(kMaxJobs) + " PS jobs");
  }
  return ports;
}

void ValidateConfig(const TlightsConfig& config) {
  if (config.dev.empty()) throw UsageError("--dev: the PS host's interface is required");
  if (config.ports.empty() && config.policy != Policy::kFifo) {
    throw UsageError("--ports: the PS jobs' ports are required for static and rotate");
  }
  if (!IsRate(config.rate)) {
    throw UsageError("--rate '" + config.rate + "': expected a tc rate such as 10gbit or 200mbit");
  }
  if (!(config.interval_s > 0)) throw UsageError("--interval must be positive");
}

BandSchedule AgentSchedule(const TlightsConfig& config) {
  return BandSchedule(config.policy, static_cast<int>(config.ports.size()), config.interval_s);
}

std::string JobClassId(int job) { return "1:" + std::to_string(11 + job); }

std::vector<TcCommand> InstallPlan(const TlightsConfig& config, int rotation) {
  std::vector<TcCommand> plan;
  plan.push_back(Tc(
      config, {"qdisc", "add", "dev", config.dev, "root", "handle", "1:", "htb", "default", "10"}));
  plan.push_back(Tc(config, {"class", "add", "dev", config.dev, "parent", "1:", "classid", "1:1",
                             "htb", "rate", config.rate, "ceil", config.rate}));
  if (config.policy == Policy::kFifo) {
    plan.push_back(
        Tc(config, {"class", "add", "dev", config.dev, "parent", "1:1", "classid", "1:10", "htb",
                    "rate", config.rate, "ceil", config.rate, "prio", "0"}));
    return plan;
  }
  plan.push_back(Tc(config, {"class", "add", "dev", config.dev, "parent", "1:1", "classid", "1:10",
                             "htb", "rate", kGuaranteedRate, "ceil", config.rate, "prio", "7"}));
  const int jobs = static_cast<int>(config.ports.size());
  const std::vector<int> bands = AgentSchedule(config).Bands(rotation);
  for (int j = 0; j < jobs; ++j) plan.push_back(JobClass(config, "add", j, bands[j]));
  for (int j = 0; j < jobs; ++j) {
    plan.push_back(
        Tc(config, {"filter", "add", "dev", config.dev, "protocol", "ip", "parent", "1:", "prio",
                    "1", "u32", "match", "ip", "sport", std::to_string(config.ports[j]), "0xffff",
                    "flowid", JobClassId(j)}));
  }
  return plan;
}

std::vector<TcCommand> RotatePlan(const TlightsConfig& config, int rotation) {
  std::vector<TcCommand> plan;
  const BandSchedule schedule = AgentSchedule(config);
  const std::vector<int> after = schedule.Bands(rotation);
  for (int j : schedule.ChangedJobs(rotation)) {
    plan.push_back(JobClass(config, "change", j, after[static_cast<size_t>(j)]));
  }
  return plan;
}

std::vector<TcCommand> RemovePlan(const TlightsConfig& config) {
  return {Tc(config, {"qdisc", "del", "dev", config.dev, "root"})};
}

std::string FormatCommand(const TcCommand& command) {
  std::string text;
  for (const std::string& argument : command) {
    if (!text.empty()) text += ' ';
    const bool plain =
        !argument.empty() && argument.find_first_of(" \t'\"\\$`") == std::string::npos;
    text += plain ? argument : "'" + argument + "'";
  }
  return text;
}

}  // namespace jigsaw::tlights
