#include "cli/run_record.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/sha256.h"
#include "core/version.h"

namespace jigsaw {
namespace {

bool IsHelp(const CLI::Option* option) {
  for (const std::string& name : option->get_lnames()) {
    if (name == "help" || name == "help-all") return true;
  }
  return false;
}

std::string OptionName(const CLI::Option* option) {
  return option->get_lnames().empty() ? option->get_name() : "--" + option->get_lnames().front();
}

// Numbers as numbers (so runs.csv and tools can compare them), everything else as text.
Json Value(const std::string& text) {
  if (text.empty()) return text;
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (end == text.c_str() + text.size() && text.find_first_of("xXnN") == std::string::npos) {
    const bool integral = text.find_first_of(".eE") == std::string::npos;
    if (integral && std::abs(number) < 9e15) return static_cast<long long>(number);
    return number;
  }
  return text;
}

std::vector<std::string> Values(const CLI::Option* option) {
  if (option->count() > 0) return option->results();
  const std::string fallback = option->get_default_str();
  if (fallback.empty() || fallback == "[]") return {};  // "[]": an empty repeatable option
  return {fallback};
}

}  // namespace

Json EffectiveOptions(const CLI::App& command) {
  Json options = Json::object();
  for (const CLI::Option* option : command.get_options()) {
    // Where the results go and how much is printed do not change them (and would make equal
    // runs differ).
    const std::string name = OptionName(option);
    if (IsHelp(option) || name == "--out" || name == "--quiet" || name == "--verbose") continue;
    if (option->get_type_size() == 0) {  // a flag: given or not
      options[name] = option->count() > 0;
      continue;
    }
    const std::vector<std::string> values = Values(option);
    const bool repeatable = option->get_expected_max() > 1 || option->get_items_expected_max() > 1;
    if (values.empty()) {
      options[name] = repeatable ? Json::array() : Json("");
    } else if (values.size() == 1 && !repeatable) {
      options[name] = Value(values.front());
    } else {
      Json list = Json::array();
      for (const std::string& v : values) list.push_back(Value(v));
      options[name] = list;
    }
  }
  return options;
}

Json InputFileHashes(const CLI::App& command) {
  Json inputs = Json::object();
  for (const CLI::Option* option : command.get_options()) {
    if (IsHelp(option) || OptionName(option) == "--out") continue;
    for (const std::string& value : Values(option)) {
      // MODEL=FILE pairs (--spb-profile) name their file after the '='.
      std::string path = value;
      std::error_code ec;
      if (!std::filesystem::is_regular_file(path, ec) && value.find('=') != std::string::npos) {
        path = value.substr(value.find('=') + 1);
      }
      if (path.empty() || !std::filesystem::is_regular_file(path, ec)) continue;
      Json entry;
      entry["path"] = path;
      entry["sha256"] = Sha256FileHex(path);
      if (option->count() > 1 || option->get_expected_max() > 1) {
        if (!inputs.contains(OptionName(option))) inputs[OptionName(option)] = Json::array();
        inputs[OptionName(option)].push_back(entry);
      } else {
        inputs[OptionName(option)] = entry;
      }
    }
  }
  return inputs;
}

Json RunRecord(const CLI::App& command) {
  Json run;
  run["version"] = ProjectVersion();
  run["git"] = GitDescribe();
  run["command"] = command.get_name();
  run["options"] = EffectiveOptions(command);
  run["inputs"] = InputFileHashes(command);
  return run;
}

std::string OutputFolder(const CLI::App& command) {
  const CLI::Option* out = command.get_option_no_throw("--out");
  if (out == nullptr) return "";
  if (out->count() > 0 && !out->results().empty()) return out->results().front();
  return out->get_default_str();
}

void RecordRunInSummary(const CLI::App& command, const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / "summary.json").string();
  std::ifstream in(path);
  if (!in) return;
  std::stringstream text;
  text << in.rdbuf();
  Json summary = Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!summary.is_object()) return;
  summary["run"] = RunRecord(command);
  WriteJsonFile(path, summary);
}

std::string NearestName(const std::string& name, const std::vector<std::string>& known) {
  std::string best;
  size_t best_distance = std::string::npos;
  for (const std::string& candidate : known) {
    // Levenshtein distance, one row at a time.
    std::vector<size_t> row(candidate.size() + 1);
    for (size_t j = 0; j <= candidate.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= name.size(); ++i) {
      size_t diagonal = row[0];
      row[0] = i;
      for (size_t j = 1; j <= candidate.size(); ++j) {
        const size_t up = row[j];
        row[j] = std::min(
            {row[j] + 1, row[j - 1] + 1, diagonal + (name[i - 1] == candidate[j - 1] ? 0 : 1)});
        diagonal = up;
      }
    }
    if (row[candidate.size()] < best_distance) {
      best_distance = row[candidate.size()];
      best = candidate;
    }
  }
  const size_t allowed = std::max<size_t>(2, name.size() / 3);
  return best_distance <= allowed ? best : "";
}

}  // namespace jigsaw
