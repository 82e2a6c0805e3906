#include "sweep/sweep_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/output.h"
#include "core/progress.h"

extern char** environ;

namespace jigsaw::sweep {
namespace {

namespace fs = std::filesystem;

int EnvInt(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 0 || value > 1000000) {
    throw UsageError(std::string("environment variable ") + name + " is not a count: '" + text +
                     "'");
  }
  return static_cast<int>(value);
}

Json ReadJson(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return Json();
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

// Starts one run; returns its pid.
pid_t Spawn(const std::string& executable, const std::string& command, const RunSpec& run,
            const fs::path& folder) {
  fs::create_directories(folder);
  fs::remove(folder / "FAILED");
  std::vector<std::string> args = {executable, command};
  args.insert(args.end(), run.arguments.begin(), run.arguments.end());
  args.insert(args.end(), {"--out", folder.string(), "--quiet"});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string log = (folder / "log.txt").string();
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, executable.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    throw std::runtime_error("cannot start " + executable + ": " + std::strerror(error));
  }
  return pid;
}

void Flatten(const Json& value, const std::string& prefix, Json* into) {
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      Flatten(item, prefix.empty() ? key : prefix + "." + key, into);
    }
  } else if (value.is_array()) {
    (*into)[prefix] = value.dump();
  } else {
    (*into)[prefix] = value;
  }
}

// A summary value as one CSV field: strings as they are, other values as JSON text.
std::string JsonCsvField(const Json& value) {
  if (value.is_null()) return "";
  return jigsaw::CsvField(value.is_string() ? value.get<std::string>() : value.dump());
}

}  // namespace

Shard DetectShard() {
  Shard shard;
  shard.ranks = EnvInt("OMPI_COMM_WORLD_SIZE", EnvInt("PMI_SIZE", 1));
  shard.rank = EnvInt("OMPI_COMM_WORLD_RANK", EnvInt("PMI_RANK", 0));
  shard.local_ranks = EnvInt("OMPI_COMM_WORLD_LOCAL_SIZE", EnvInt("MPI_LOCALNRANKS", 1));
  if (shard.ranks < 1 || shard.rank >= shard.ranks || shard.local_ranks < 1) {
    throw UsageError("MPI environment inconsistent: rank " + std::to_string(shard.rank) + " of " +
                     std::to_string(shard.ranks));
  }
  return shard;
}

std::string RunStatus(const std::string& run_folder) {
  const Json summary = ReadJson(fs::path(run_folder) / "summary.json");
  if (summary.is_object() && summary.contains("run")) return "complete";
  std::error_code ec;
  if (fs::exists(fs::path(run_folder) / "FAILED", ec)) return "failed";
  return "";
}

SweepOutcome RunSweep(const SweepConfig& config, const SweepOptions& options, const Shard& shard) {
  const std::vector<RunSpec> runs = ExpandRuns(config);
  const fs::path runs_folder = fs::path(config.out) / "runs";
  SweepOutcome outcome;
  outcome.runs = static_cast<int>(runs.size());
  std::vector<const RunSpec*> todo;
  for (const RunSpec& run : runs) {
    if (run.index % shard.ranks != shard.rank) continue;
    ++outcome.assigned;
    if (RunStatus((runs_folder / run.name).string()) == "complete") {
      ++outcome.skipped;
      continue;
    }
    todo.push_back(&run);
  }
  if (options.dry_run) {
    for (const RunSpec* run : todo) {
      std::string line = "jigsaw " + config.command;
      for (const std::string& a : run->arguments) line += " " + a;
      std::printf("%s --out %s\n", line.c_str(), (runs_folder / run->name).string().c_str());
    }
    return outcome;
  }
  int parallel = options.parallel;
  if (parallel <= 0) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    parallel = std::max(1, cores / shard.local_ranks);
  }
  Progress progress(shard.ranks > 1 ? "sweep rank " + std::to_string(shard.rank) : "sweep", true,
                    2.0);
  std::map<pid_t, const RunSpec*> running;
  size_t next = 0;
  int finished = 0;
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && static_cast<int>(running.size()) < parallel) {
      const RunSpec* run = todo[next++];
      running[Spawn(options.executable, config.command, *run, runs_folder / run->name)] = run;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waitpid failed: ") + std::strerror(errno));
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const RunSpec* run = it->second;
    running.erase(it);
    ++finished;
    const fs::path folder = runs_folder / run->name;
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (ok) {
      ++outcome.succeeded;
    } else {
      ++outcome.failed;
      const std::string why = WIFEXITED(status)
                                  ? "exit status " + std::to_string(WEXITSTATUS(status))
                                  : "signal " + std::to_string(WTERMSIG(status));
      WriteFileAtomically((folder / "FAILED").string(), why + "\n");
      std::fprintf(stderr, "sweep: run %s failed (%s); see %s\n", run->name.c_str(), why.c_str(),
                   (folder / "log.txt").string().c_str());
    }
    if (progress.Due()) {
      progress.Report(finished, static_cast<double>(todo.size()),
                      std::to_string(finished) + "/" + std::to_string(todo.size()) +
                          " runs of this rank done, " + std::to_string(running.size()) +
                          " running");
    }
  }
  if (shard.rank == 0) {
    // Other ranks' runs: wait until each is complete or failed.
    for (const RunSpec& run : runs) {
      while (RunStatus((runs_folder / run.name).string()).empty()) {
        if (progress.Due()) progress.Report("waiting for the other ranks' runs (" + run.name + ")");
        std::this_thread::sleep_for(std::chrono::duration<double>(options.poll_s));
      }
    }
    WriteRunTable(config.out, runs);
  }
  return outcome;
}

void WriteRunTable(const std::string& out, const std::vector<RunSpec>& runs) {
  Json table = Json::array();
  std::vector<std::string> option_columns, metric_columns;
  std::set<std::string> seen_options, seen_metrics;
  for (const RunSpec& run : runs) {
    const fs::path folder = fs::path(out) / "runs" / run.name;
    Json row;
    row["run"] = run.name;
    row["status"] = RunStatus(folder.string());
    Json options = Json::object(), metrics = Json::object();
    const Json summary = ReadJson(folder / "summary.json");
    if (row["status"] == "complete") {
      options = summary["run"]["options"];
      Json without_record = summary;
      without_record.erase("run");
      Flatten(without_record, "", &metrics);
    }
    for (const auto& [key, value] : options.items()) {
      if (seen_options.insert(key).second) option_columns.push_back(key);
    }
    for (const auto& [key, value] : metrics.items()) {
      if (seen_metrics.insert(key).second) metric_columns.push_back(key);
    }
    row["options"] = options;
    row["metrics"] = metrics;
    table.push_back(row);
  }
  std::string csv = "run,status";
  for (const std::string& c : option_columns) csv.append(",").append(CsvField(c));
  for (const std::string& c : metric_columns) csv.append(",").append(CsvField(c));
  csv += '\n';
  for (const Json& row : table) {
    csv.append(JsonCsvField(row["run"])).append(",").append(JsonCsvField(row["status"]));
    for (const std::string& c : option_columns) {
      csv += ',';
      if (row["options"].contains(c)) csv += JsonCsvField(row["options"][c]);
    }
    for (const std::string& c : metric_columns) {
      csv += ',';
      if (row["metrics"].contains(c)) csv += JsonCsvField(row["metrics"][c]);
    }
    csv += '\n';
  }
  WriteFileAtomically((fs::path(out) / "runs.csv").string(), csv);
  WriteJsonFile((fs::path(out) / "runs.json").string(), table);
}

}  // namespace jigsaw::sweep
