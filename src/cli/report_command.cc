// `jigsaw report RUN_DIR... --out DIR`: report.html, comparison.csv and comparison.md from run
// folders of every kind report/run_dir.h knows, and sweeps. Torch-free. See docs/report.md.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/limits.h"
#include "report/report.h"

namespace jigsaw {
namespace {

struct ReportArgs {
  std::vector<std::string> runs;
  std::string out = "out/report";
  long long max_points = static_cast<long long>(report::kMaxPointsPerLine);
  bool quiet = false;
};

}  // namespace

void AddReportCommand(CLI::App& app, CommandAction* action) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* command = app.add_subcommand(
      "report",
      "HTML charts (self-contained, offline) and comparison tables of run folders (sim, net, "
      "train, d2r, faas-sim, faas-load, fl, serve-bench) and sweeps");
  command->add_option("runs", args->runs, "run folders (a subcommand's --out) or sweep folders")
      ->required()
      ->default_str("");
  command->add_option("--out", args->out, "folder for report.html, comparison.csv and .md")
      ->capture_default_str();
  command
      ->add_option("--max-points", args->max_points,
                   "downsample each chart line to at most this many points")
      ->capture_default_str();
  command->add_flag("--quiet", args->quiet, "no summary line on stderr");
  command->callback([args, action] {
    *action = [args] {
      RequireCountInRange("--max-points", args->max_points, 10, 1'000'000);
      const size_t charts =
          report::WriteReport(args->runs, args->out, static_cast<size_t>(args->max_points));
      if (!args->quiet) {
        std::fprintf(stderr, "jigsaw report: %zu charts in %s/report.html\n", charts,
                     args->out.c_str());
      }
      return 0;
    };
  });
}

}  // namespace jigsaw
