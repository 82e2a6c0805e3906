#include "tlights/report.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "core/error.h"
#include "core/json_input.h"
#include "core/limits.h"
#include "core/stats.h"
#include "core/text_input.h"

namespace jigsaw::tlights {
namespace fs = std::filesystem;

namespace {

// Sorted subdirectories named <prefix><number>, by number.
std::vector<fs::path> NumberedDirs(const fs::path& dir, const std::string& prefix) {
  std::vector<std::pair<int, fs::path>> found;
  if (!fs::is_directory(dir)) return {};
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) {
      continue;
    }
    const std::string digits = name.substr(prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) {
      continue;
    }
    found.emplace_back(std::stoi(digits), entry.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> paths;
  for (auto& [number, path] : found) paths.push_back(path);
  return paths;
}

// Subfolders that hold rep<r>/ folders: fifo, static and rotate first, then the others (e.g.
// rotate-20s) by name.
std::vector<std::string> PolicyFolders(const std::string& dir) {
  std::vector<std::string> names;
  if (!fs::is_directory(dir)) return names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory() && !NumberedDirs(entry.path(), "rep").empty()) {
      names.push_back(entry.path().filename().string());
    }
  }
  auto rank = [](const std::string& name) {
    return name == "fifo" ? 0 : name == "static" ? 1 : name == "rotate" ? 2 : 3;
  };
  std::sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
  });
  return names;
}

std::string Percent(double value, double base) {
  if (base <= 0) return "n/a";
  const double change = 100.0 * (value - base) / base;
  std::string text = FormatFixed(change, 1) + "%";
  if (change >= 0) text.insert(0, 1, '+');  // not "+" + text: GCC 12 warns (false -Wrestrict)
  return text;
}

}  // namespace

std::vector<IterationRow> ParseWorkerCsv(const std::string& name, const std::string& contents) {
  TextFile file(name, contents);
  std::string_view line;
  if (!file.NextLine(&line) || line.rfind("job,rank,iteration,", 0) != 0) {
    file.Fail("expected the header job,rank,iteration,start_wall_s,...,end_wall_s,loss");
  }
  std::vector<IterationRow> rows;
  while (file.NextLine(&line)) {
    if (Trim(line).empty()) continue;
    std::vector<std::string_view> fields = SplitFields(line, ',');
    file.RequireColumns(fields, 9,
                        "job,rank,iteration,start_wall_s,compute_s,push_s,pull_s,end_wall_s,loss");
    IterationRow row;
    row.rank = static_cast<int>(file.ParseIntInRange(fields[1], "column 2 (rank)", 0, kMaxWorkers));
    row.iteration = static_cast<int>(
        file.ParseIntInRange(fields[2], "column 3 (iteration)", 0, kMaxPsIterations));
    row.end_wall_s = file.ParseDouble(fields[7], "column 8 (end_wall_s)");
    rows.push_back(row);
  }
  return rows;
}

std::vector<IterationRow> ReadWorkerCsv(const std::string& path) {
  return ParseWorkerCsv(path, ReadWholeFile(path));
}

double JobCompletionTime(double start_wall_s, const std::vector<IterationRow>& rows) {
  if (rows.empty()) throw std::invalid_argument("no iterations");
  double end = rows.front().end_wall_s;
  for (const IterationRow& row : rows) end = std::max(end, row.end_wall_s);
  return end - start_wall_s;
}

std::vector<double> StragglerSpreads(const std::vector<IterationRow>& rows, int workers) {
  std::map<int, std::vector<double>> by_iteration;
  int last = -1;
  for (const IterationRow& row : rows) {
    by_iteration[row.iteration].push_back(row.end_wall_s);
    last = std::max(last, row.iteration);
  }
  std::vector<double> spreads;
  for (int t = 0; t <= last; ++t) {
    auto found = by_iteration.find(t);
    const size_t have = found == by_iteration.end() ? 0 : found->second.size();
    if (have != static_cast<size_t>(workers)) {
      throw std::invalid_argument("iteration " + std::to_string(t) + " has " +
                                  std::to_string(have) + " worker rows, expected " +
                                  std::to_string(workers));
    }
    const auto [low, high] = std::minmax_element(found->second.begin(), found->second.end());
    spreads.push_back(*high - *low);
  }
  return spreads;
}

JobResult AnalyzeJobDir(const std::string& dir) {
  const std::string server_path = (fs::path(dir) / "server.json").string();
  const Json server =
      ParseJsonInput<Json>(server_path, ReadWholeFile(server_path), "not valid JSON");
  JobResult result;
  try {
    result.job = server.at("job").get<std::string>();
    result.workers = static_cast<int>(JsonInteger(server.at("workers"), "workers", 1, 100000));
    std::vector<IterationRow> rows;
    for (int k = 0; k < result.workers; ++k) {
      const std::string path = (fs::path(dir) / ("worker" + std::to_string(k) + ".csv")).string();
      std::vector<IterationRow> worker = ReadWorkerCsv(path);
      rows.insert(rows.end(), worker.begin(), worker.end());
    }
    result.jct_s = JobCompletionTime(
        JsonNumber(server.at("start_wall_s"), "start_wall_s", 0, kMaxWallClockS), rows);
    result.spreads_s = StragglerSpreads(rows, result.workers);
    result.iterations = static_cast<int>(result.spreads_s.size());
  } catch (const Json::exception& e) {
    throw InputError(server_path, 0, std::string("missing or bad field: ") + e.what());
  } catch (const std::invalid_argument& e) {
    throw InputError(dir, 0, e.what());
  }
  return result;
}

std::vector<PolicyResult> AnalyzeExperiment(const std::string& dir) {
  std::vector<PolicyResult> results;
  for (const std::string& policy : PolicyFolders(dir)) {
    const std::vector<fs::path> reps = NumberedDirs(fs::path(dir) / policy, "rep");
    if (reps.empty()) continue;
    PolicyResult result;
    result.policy = policy;
    std::vector<double> spreads;
    for (const fs::path& rep : reps) {
      const std::vector<fs::path> jobs = NumberedDirs(rep, "job");
      if (jobs.empty()) throw InputError(rep.string(), 0, "no job<j> folders");
      if (result.jobs.empty()) {
        result.job_jct_s.assign(jobs.size(), 0.0);
      } else if (jobs.size() != result.jobs.size() && result.repetitions > 0) {
        throw InputError(rep.string(), 0, "a different number of jobs than the first repetition");
      }
      std::vector<double> jcts;
      std::vector<double> rep_spreads;
      std::vector<std::string> names;
      for (size_t j = 0; j < jobs.size(); ++j) {
        JobResult job = AnalyzeJobDir(jobs[j].string());
        names.push_back(job.job);
        jcts.push_back(job.jct_s);
        result.job_jct_s[j] += job.jct_s;
        spreads.insert(spreads.end(), job.spreads_s.begin(), job.spreads_s.end());
        rep_spreads.insert(rep_spreads.end(), job.spreads_s.begin(), job.spreads_s.end());
      }
      if (result.jobs.empty()) result.jobs = names;
      result.rep_avg_jct_s.push_back(Mean(jcts));
      result.rep_mean_spread_s.push_back(Mean(rep_spreads));
      ++result.repetitions;
    }
    for (double& jct : result.job_jct_s) jct /= result.repetitions;
    result.avg_jct_s = Mean(result.rep_avg_jct_s);
    result.mean_spread_s = Mean(spreads);
    result.p95_spread_s = Percentile(spreads, 95);
    results.push_back(result);
  }
  if (results.empty()) {
    throw InputError(dir, 0, "no <policy>/rep<r>/ folders (fifo, static, rotate, rotate-20s, ...)");
  }
  return results;
}

Json ExperimentJson(const std::vector<PolicyResult>& results) {
  Json json = Json::object();
  const PolicyResult* fifo = nullptr;
  for (const PolicyResult& r : results) {
    if (r.policy == "fifo") fifo = &r;
  }
  for (const PolicyResult& r : results) {
    Json entry;
    entry["repetitions"] = r.repetitions;
    entry["avg_jct_s"] = RoundTo(r.avg_jct_s, 3);
    entry["rep_avg_jct_s"] = Json::array();
    for (double v : r.rep_avg_jct_s) entry["rep_avg_jct_s"].push_back(RoundTo(v, 3));
    entry["rep_mean_straggler_spread_s"] = Json::array();
    for (double v : r.rep_mean_spread_s) {
      entry["rep_mean_straggler_spread_s"].push_back(RoundTo(v, 4));
    }
    entry["job_jct_s"] = Json::object();
    for (size_t j = 0; j < r.jobs.size(); ++j)
      entry["job_jct_s"][r.jobs[j]] = RoundTo(r.job_jct_s[j], 3);
    entry["mean_straggler_spread_s"] = RoundTo(r.mean_spread_s, 4);
    entry["p95_straggler_spread_s"] = RoundTo(r.p95_spread_s, 4);
    if (fifo != nullptr && fifo->avg_jct_s > 0) {
      entry["avg_jct_change_vs_fifo"] =
          RoundTo((r.avg_jct_s - fifo->avg_jct_s) / fifo->avg_jct_s, 4);
    }
    json[r.policy] = entry;
  }
  return json;
}

std::string ExperimentTable(const std::vector<PolicyResult>& results) {
  const PolicyResult* fifo = nullptr;
  for (const PolicyResult& r : results) {
    if (r.policy == "fifo") fifo = &r;
  }
  const auto range = [](const std::vector<double>& values, int digits) {
    if (values.empty()) return std::string("n/a");
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    return FormatFixed(*low, digits) + "-" + FormatFixed(*high, digits);
  };
  std::string table =
      "| policy | reps | avg JCT s | min-max over reps | vs fifo | per-job JCT s | mean spread s | "
      "min-max over reps | p95 spread s | spread vs fifo |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const PolicyResult& r : results) {
    std::string jobs;
    for (size_t j = 0; j < r.job_jct_s.size(); ++j) {
      jobs += (j ? " / " : "") + FormatFixed(r.job_jct_s[j], 1);
    }
    table += "| " + r.policy + " | " + std::to_string(r.repetitions) + " | " +
             FormatFixed(r.avg_jct_s, 2) + " | " + range(r.rep_avg_jct_s, 2) + " | " +
             (fifo ? Percent(r.avg_jct_s, fifo->avg_jct_s) : "n/a") + " | " + jobs + " | " +
             FormatFixed(r.mean_spread_s, 3) + " | " + range(r.rep_mean_spread_s, 3) + " | " +
             FormatFixed(r.p95_spread_s, 3) + " | " +
             (fifo ? Percent(r.mean_spread_s, fifo->mean_spread_s) : "n/a") + " |\n";
  }
  return table;
}

}  // namespace jigsaw::tlights
