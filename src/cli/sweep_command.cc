// `jigsaw sweep CONFIG`: see sweep/sweep_config.h (the file) and sweep/sweep_runner.h (running,
// resuming, MPI sharding, runs.csv/runs.json).
#include <chrono>
#include <filesystem>

#include "cli/commands.h"
#include "core/error.h"
#include "sweep/sweep_runner.h"

namespace jigsaw {
namespace {

struct SweepCommandOptions {
  std::string config;
  std::string out;  // "" = the config's
  int parallel = 0;
  bool dry_run = false;
  bool table_only = false;
};

int RunSweepCommand(const SweepCommandOptions& options) {
  sweep::SweepConfig config = sweep::LoadSweepConfig(options.config);
  if (!options.out.empty()) config.out = options.out;
  if (options.parallel < 0 || options.parallel > 4096) {
    throw UsageError("--parallel must be in [0, 4096], got " + std::to_string(options.parallel));
  }
  const sweep::Shard shard = sweep::DetectShard();
  if (options.table_only) {
    sweep::WriteRunTable(config.out, sweep::ExpandRuns(config));
    return 0;
  }
  sweep::SweepOptions run_options;
  std::error_code ec;
  run_options.executable = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw std::runtime_error("cannot find the jigsaw executable: " + ec.message());
  run_options.parallel = options.parallel;
  run_options.dry_run = options.dry_run;
  const auto start = std::chrono::steady_clock::now();
  const sweep::SweepOutcome outcome = sweep::RunSweep(config, run_options, shard);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!options.dry_run) {
    std::fprintf(stderr,
                 "sweep: rank %d/%d: %d runs in the sweep, %d assigned here: %d already complete, "
                 "%d ran now, %d failed; %.1f s wall%s\n",
                 shard.rank, shard.ranks, outcome.runs, outcome.assigned, outcome.skipped,
                 outcome.succeeded, outcome.failed, wall_s,
                 shard.rank == 0 ? ("; wrote " + config.out + "/runs.{csv,json}").c_str() : "");
  }
  return outcome.failed > 0 ? 1 : 0;
}

}  // namespace

void AddSweepCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<SweepCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "sweep",
      "Run the cross product of sim/net options in a TOML file (docs/sweep.md), in parallel, "
      "resumably; sharded over ranks under mpirun");
  command->add_option("config", options->config, "TOML sweep file")->required();
  command->add_option("--out", options->out,
                      "sweep folder (default: the file's 'out'); runs go to runs/<name>/");
  command->add_option("--parallel", options->parallel,
                      "concurrent runs per rank (0: this machine's cores / its ranks)");
  command->add_flag("--dry-run", options->dry_run, "print the runs still to do, run nothing");
  command->add_flag("--table-only", options->table_only,
                    "only (re)write runs.csv/runs.json from the run folders");
  command->callback(
      [options, action] { *action = [options] { return RunSweepCommand(*options); }; });
}

}  // namespace jigsaw
