#include "sweep/sweep_config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/error.h"
#include "core/sha256.h"
#include "core/text_input.h"

namespace jigsaw::sweep {
namespace {

constexpr size_t kMaxRuns = 100000;

int Line(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

std::string ValueText(const toml::node& node, const std::string& file, const std::string& key) {
  if (auto s = node.value<std::string>(); s && node.is_string()) return *s;
  if (node.is_integer()) return std::to_string(*node.value<int64_t>());
  if (node.is_floating_point()) {
    std::string text = std::to_string(*node.value<double>());
    // Shortest form that reads back: 0.500000 -> 0.5.
    while (text.size() > 1 && text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
    return text;
  }
  if (node.is_boolean()) return *node.value<bool>() ? "true" : "false";
  throw InputError(file, Line(node),
                   "'" + key +
                       "' must be a string, number or boolean (or, under [axes], a list "
                       "of them)");
}

// "shockwave_120" for a path, the value itself otherwise; only [A-Za-z0-9._-] kept.
std::string Slug(const std::string& value) {
  std::string base = value;
  if (value.find('/') != std::string::npos) {
    base = std::filesystem::path(value).stem().string();
  }
  std::string slug;
  for (char c : base) {
    slug += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-') ? c : '_';
  }
  return slug.substr(0, 40);
}

// A value naming a file: it holds a '/' or ends in a data file's extension.
bool LooksLikePath(const std::string& value) {
  if (value.find('/') != std::string::npos) return true;
  const std::string extension = std::filesystem::path(value).extension().string();
  for (const char* known : {".trace", ".json", ".csv", ".txt", ".graphml", ".et", ".gz"}) {
    if (extension == known) return true;
  }
  return false;
}

// `value` of `option` with its path resolved against `base_dir` (sweep_config.h says which values
// are paths) and checked to exist; unchanged when `base_dir` is empty or it is no path.
std::string ResolvePath(const std::string& option, const std::string& value,
                        const std::string& base_dir, const std::string& file, int line) {
  if (base_dir.empty() || option == "write-trace") return value;
  // NAME=PATH (sim --spb-profile resnet20=profile.json): the path is after the '='.
  const size_t equals = value.find('=');
  const bool named = equals != std::string::npos && value.find('/') > equals;
  const std::string prefix = named ? value.substr(0, equals + 1) : "";
  const std::string path = named ? value.substr(equals + 1) : value;
  if (!LooksLikePath(path) || path.find(':') != std::string::npos) return value;
  std::filesystem::path resolved(path);
  if (resolved.is_relative()) resolved = (std::filesystem::path(base_dir) / resolved);
  resolved = resolved.lexically_normal();
  std::error_code error;
  if (!std::filesystem::exists(resolved, error)) {
    throw InputError(file, line,
                     "'" + option + "' = '" + path + "': expected an existing file; looked for " +
                         resolved.string() +
                         " (relative paths are resolved against the sweep file's folder)");
  }
  return prefix + resolved.string();
}

}  // namespace

SweepConfig ParseSweepConfig(const std::string& text, const std::string& file,
                             const std::string& base_dir) {
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw InputError(file, static_cast<int>(e.source().begin.line), std::string(e.description()));
  }
  SweepConfig config;
  for (const auto& [key, node] : root) {
    const std::string name(key.str());
    if (name == "command" || name == "out") {
      if (!node.is_string()) throw InputError(file, Line(node), "'" + name + "' must be a string");
      (name == "command" ? config.command : config.out) = *node.value<std::string>();
    } else if (name == "fixed" || name == "axes") {
      const toml::table* table = node.as_table();
      if (table == nullptr) throw InputError(file, Line(node), "[" + name + "] must be a table");
      // In file order (toml++ keeps tables sorted by key).
      std::vector<std::pair<std::string, const toml::node*>> entries;
      for (const auto& [option_key, option_value] : *table) {
        entries.emplace_back(std::string(option_key.str()), &option_value);
      }
      std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
        const auto& pa = a.second->source().begin;
        const auto& pb = b.second->source().begin;
        return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
      });
      for (const auto& [option, value_pointer] : entries) {
        const toml::node& value = *value_pointer;
        if (option == "out") {
          throw InputError(file, Line(value),
                           "'out' is set per run by the sweep; use the "
                           "top-level 'out' for the sweep folder");
        }
        if (name == "fixed") {
          config.fixed.emplace_back(option, ResolvePath(option, ValueText(value, file, option),
                                                        base_dir, file, Line(value)));
          continue;
        }
        const toml::array* list = value.as_array();
        if (list == nullptr || list->empty()) {
          throw InputError(file, Line(value),
                           "[axes] " + option + " must be a non-empty list of values");
        }
        SweepConfig::Axis axis;
        for (size_t from = 0;;) {
          const size_t plus = option.find('+', from);
          axis.names.push_back(option.substr(from, plus - from));
          if (axis.names.back().empty()) throw InputError(file, Line(value), "empty option name");
          if (plus == std::string::npos) break;
          from = plus + 1;
        }
        for (const toml::node& item : *list) {
          if (axis.names.size() == 1) {
            axis.values.push_back(
                {ResolvePath(option, ValueText(item, file, option), base_dir, file, Line(item))});
            continue;
          }
          const toml::array* tuple = item.as_array();
          if (tuple == nullptr || tuple->size() != axis.names.size()) {
            throw InputError(file, Line(item),
                             "[axes] " + option + ": each point must be a list of " +
                                 std::to_string(axis.names.size()) + " values");
          }
          std::vector<std::string> point;
          for (size_t n = 0; n < tuple->size(); ++n) {
            const toml::node& v = *tuple->get(n);
            point.push_back(
                ResolvePath(axis.names[n], ValueText(v, file, option), base_dir, file, Line(v)));
          }
          axis.values.push_back(std::move(point));
        }
        config.axes.push_back(std::move(axis));
      }
    } else {
      throw InputError(file, Line(node),
                       "unknown key '" + name + "' (expected command, out, [fixed], [axes])");
    }
  }
  if (config.command != "sim" && config.command != "net") {
    throw InputError(file, 0, "'command' must be \"sim\" or \"net\", got '" + config.command + "'");
  }
  if (config.out.empty()) config.out = "out/sweep";
  size_t runs = 1;
  for (const auto& axis : config.axes) {
    runs *= axis.values.size();
    if (runs > kMaxRuns) {
      throw InputError(file, 0,
                       "the cross product has more than " + std::to_string(kMaxRuns) + " runs");
    }
  }
  return config;
}

SweepConfig LoadSweepConfig(const std::string& path) {
  std::string base = std::filesystem::path(path).parent_path().string();
  if (base.empty()) base = ".";
  return ParseSweepConfig(ReadWholeFile(path), path, base);
}

std::vector<RunSpec> ExpandRuns(const SweepConfig& config) {
  size_t total = 1;
  for (const auto& axis : config.axes) total *= axis.values.size();
  std::vector<RunSpec> runs;
  for (size_t index = 0; index < total; ++index) {
    RunSpec run;
    run.index = static_cast<int>(index);
    // Mixed radix, last axis fastest.
    std::vector<size_t> digits(config.axes.size());
    size_t rest = index;
    for (size_t a = config.axes.size(); a-- > 0;) {
      digits[a] = rest % config.axes[a].values.size();
      rest /= config.axes[a].values.size();
    }
    for (size_t a = 0; a < config.axes.size(); ++a) {
      const SweepConfig::Axis& axis = config.axes[a];
      for (size_t n = 0; n < axis.names.size(); ++n) {
        run.axis_values.emplace_back(axis.names[n], axis.values[digits[a]][n]);
      }
    }
    // Axis values override fixed ones of the same name.
    for (const auto& [name, value] : config.fixed) {
      bool overridden = false;
      for (const auto& axis : run.axis_values) overridden = overridden || axis.first == name;
      if (overridden) continue;
      run.arguments.push_back("--" + name);
      run.arguments.push_back(value);
    }
    std::string slug;
    for (const auto& [name, value] : run.axis_values) {
      run.arguments.push_back("--" + name);
      run.arguments.push_back(value);
      slug += (slug.empty() ? "" : "_") + Slug(value);
    }
    std::string identity = config.command;
    for (const std::string& argument : run.arguments) identity += '\0' + argument;
    run.name = (slug.empty() ? "run" : slug) + "-" + Sha256Hex(identity).substr(0, 8);
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace jigsaw::sweep
