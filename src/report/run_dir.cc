#include "report/run_dir.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include "core/error.h"
#include "core/json_input.h"
#include "core/text_input.h"
#include "report/csv_table.h"

namespace jigsaw::report {
namespace fs = std::filesystem;
namespace {

bool IsFile(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

std::string ListEntries(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  std::string out;
  for (size_t i = 0; i < names.size() && i < 12; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 12) out += ", ... (" + std::to_string(names.size()) + " entries)";
  return out.empty() ? "nothing" : out;
}

void CollectRuns(const fs::path& dir, int depth, std::vector<std::string>* runs) {
  std::vector<fs::path> children;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    if (it->is_directory(error)) children.push_back(it->path());
  }
  std::sort(children.begin(), children.end());
  for (const fs::path& child : children) {
    if (IsFile(child / "summary.json")) {
      runs->push_back(child.string());
    } else if (depth > 1) {
      CollectRuns(child, depth - 1, runs);
    }
  }
}

std::string TrimSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace

const std::vector<RunKind>& RunKinds() {
  static const std::vector<RunKind> kinds = {RunKind::kSim, RunKind::kNet,       RunKind::kTrain,
                                             RunKind::kD2r, RunKind::kFaasSim,   RunKind::kFaasLoad,
                                             RunKind::kFl,  RunKind::kServeBench};
  return kinds;
}

const char* RunKindName(RunKind kind) {
  switch (kind) {
    case RunKind::kSim:
      return "sim";
    case RunKind::kNet:
      return "net";
    case RunKind::kTrain:
      return "train";
    case RunKind::kD2r:
      return "d2r";
    case RunKind::kFaasSim:
      return "faas-sim";
    case RunKind::kFaasLoad:
      return "faas-load";
    case RunKind::kFl:
      return "fl";
    case RunKind::kServeBench:
      return "serve-bench";
    case RunKind::kSweep:
      return "sweep";
  }
  return "?";
}

RunKind DetectRunKind(const std::string& dir) {
  const fs::path path(dir);
  std::error_code error;
  if (!fs::exists(path, error))
    throw InputError(dir, 0, "expected a run folder; it does not exist");
  if (!fs::is_directory(path, error)) {
    throw InputError(dir, 0,
                     "expected a run folder (the --out of jigsaw sim/net/train/sweep), got "
                     "a file");
  }
  fs::directory_iterator probe(path, error);
  if (error) throw InputError(dir, 0, "cannot read the folder: " + error.message());
  if (IsFile(path / "runs.csv")) return RunKind::kSweep;
  if (IsFile(path / "summary.json")) {
    if (IsFile(path / "jobs.csv") && IsFile(path / "rounds.csv")) return RunKind::kSim;
    if (IsFile(path / "flows.csv")) return RunKind::kNet;
    if (IsFile(path / "iterations.csv")) return RunKind::kTrain;
    if (IsFile(path / "scenarios.csv")) return RunKind::kD2r;
    if (IsFile(path / "results.csv")) return RunKind::kFaasSim;
    if (IsFile(path / "requests.csv")) return RunKind::kFaasLoad;
    if (IsFile(path / "rounds.csv") && IsFile(path / "clients.csv")) return RunKind::kFl;
    if (ReadSummary(dir).contains("answered_after_blocks")) return RunKind::kServeBench;
  }
  throw InputError(dir, 0,
                   "expected a jigsaw run folder: summary.json with jobs.csv + rounds.csv (sim), "
                   "flows.csv (net), iterations.csv (train), scenarios.csv (d2r), results.csv "
                   "(faas-sim), requests.csv (faas-load), rounds.csv + clients.csv (fl) or "
                   "answered_after_blocks (serve-bench), or a sweep's runs.csv; found " +
                       ListEntries(path));
}

Json ReadSummary(const std::string& dir) {
  const std::string path = dir + "/summary.json";
  Json summary =
      ParseJsonInput<Json>(path, ReadWholeFile(path), "expected the run's summary JSON object");
  if (!summary.is_object()) throw InputError(path, 1, "expected a JSON object");
  return summary;
}

std::vector<std::string> UniqueRunNames(const std::vector<std::string>& paths) {
  std::vector<std::vector<std::string>> parts;
  for (const std::string& p : paths) {
    std::vector<std::string> components;
    for (const fs::path& c : fs::path(TrimSlashes(p))) {
      if (!c.empty() && c != "/" && c != ".") components.push_back(c.string());
    }
    if (components.empty()) components.push_back(p);
    parts.push_back(components);
  }
  auto suffix = [&](size_t i, size_t count) {
    const auto& c = parts[i];
    count = std::min(count, c.size());
    std::string name;
    for (size_t k = c.size() - count; k < c.size(); ++k) name += (name.empty() ? "" : "/") + c[k];
    return name;
  };
  std::vector<std::string> names(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    for (size_t count = 1;; ++count) {
      names[i] = suffix(i, count);
      if (count >= parts[i].size()) break;
      bool shared = false;
      for (size_t j = 0; j < paths.size() && !shared; ++j) {
        shared = j != i && suffix(j, count) == names[i];
      }
      if (!shared) break;
    }
  }
  return names;
}

std::map<std::string, std::string> SweepRunLabels(const std::string& sweep_dir) {
  const CsvTable table = CsvTable::Read(sweep_dir + "/runs.csv");
  std::map<std::string, std::string> labels;
  if (!table.Has("run")) return labels;
  std::vector<size_t> axes;
  for (size_t c = 0; c < table.header().size(); ++c) {
    if (table.header()[c].rfind("--", 0) != 0) continue;
    for (size_t r = 1; r < table.rows(); ++r) {
      if (table.Cell(r, c) != table.Cell(0, c)) {
        axes.push_back(c);
        break;
      }
    }
  }
  if (axes.empty()) return labels;
  const size_t run = table.Column("run");
  for (size_t r = 0; r < table.rows(); ++r) {
    std::string label;
    for (size_t c : axes) {
      std::string value = table.Cell(r, c);
      // A path: its file name without the extension (the sweep's folder names do the same).
      if (value.find('/') != std::string::npos) value = fs::path(value).stem().string();
      label += (label.empty() ? "" : " ") + table.header()[c].substr(2) + "=" + value;
    }
    labels[table.Cell(r, run)] = label;
  }
  return labels;
}

std::vector<RunDir> ExpandRunDirs(const std::vector<std::string>& args) {
  std::vector<std::string> paths;
  for (const std::string& arg : args) {
    const std::string dir = TrimSlashes(arg);
    if (DetectRunKind(dir) != RunKind::kSweep) {
      paths.push_back(dir);
      continue;
    }
    std::vector<std::string> runs;
    CollectRuns(dir, 3, &runs);
    if (runs.empty()) {
      throw InputError(dir + "/runs.csv", 0,
                       "expected the sweep's run folders (with summary.json) beside runs.csv; "
                       "found " +
                           ListEntries(dir));
    }
    paths.insert(paths.end(), runs.begin(), runs.end());
  }
  std::vector<std::string> names = UniqueRunNames(paths);
  // A sweep's runs are named by their axis values where runs.csv gives them (and they stay unique).
  std::set<std::string> taken;
  std::vector<std::string> labelled = names;
  std::vector<std::string> sweeps;
  for (const std::string& arg : args) {
    if (DetectRunKind(TrimSlashes(arg)) == RunKind::kSweep) sweeps.push_back(TrimSlashes(arg));
  }
  for (const std::string& dir : sweeps) {
    // Several sweeps: each label starts with its sweep's folder name.
    const std::string prefix =
        sweeps.size() > 1 ? fs::path(dir).filename().string() + ": " : std::string();
    std::map<std::string, std::string> labels = SweepRunLabels(dir);
    for (auto& [run, label] : labels) label = prefix + label;
    for (size_t i = 0; i < paths.size(); ++i) {
      if (paths[i].rfind(dir + "/", 0) != 0) continue;
      const auto label = labels.find(fs::path(paths[i]).filename().string());
      if (label != labels.end()) labelled[i] = label->second;
    }
  }
  for (const std::string& name : labelled) taken.insert(name);
  if (taken.size() == labelled.size()) names = labelled;
  std::vector<RunDir> dirs;
  for (size_t i = 0; i < paths.size(); ++i) {
    RunDir run;
    run.path = paths[i];
    run.name = names[i];
    run.kind = DetectRunKind(paths[i]);
    if (run.kind == RunKind::kSweep) {
      throw InputError(paths[i], 0, "expected a run folder inside a sweep, got another sweep");
    }
    run.summary = ReadSummary(paths[i]);
    dirs.push_back(std::move(run));
  }
  return dirs;
}

}  // namespace jigsaw::report
