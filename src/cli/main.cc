// jigsaw: one CLI for the cluster simulator, the network simulator and the SPB runtime.
#include <cstdio>
#include <string>

#include "cli/cli_main.h"

namespace {

#if JIGSAW_QUICKSTART
// The quick start's build (-DJIGSAW_QUICKSTART=ON) has the cluster simulator's subcommands only;
// the others are listed so that `jigsaw --help` shows them and using one says how to build it.
constexpr const char* kNotInQuickstart[] = {"net",
                                            "d2r",
                                            "sweep",
                                            "ps",
                                            "tlights",
                                            "tlights-report",
                                            "paramsvc",
                                            "paramsvc-agg",
                                            "paramsvc-register",
                                            "paramsvc-status",
                                            "paramsvc-sim",
                                            "ps-timed-worker",
                                            "report",
                                            "faas-sim",
                                            "faas",
                                            "faas-sandbox",
                                            "faas-load",
                                            "serve-bench"};

bool NotInQuickstart(const std::string& name) {
  for (const char* other : kNotInQuickstart) {
    if (name == other) return true;
  }
  return false;
}

void AddQuickstartPlaceholders(CLI::App& app) {
  for (const char* name : kNotInQuickstart) {
    app.add_subcommand(name, "(not in this quick-start build: scripts/build.sh)");
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
  // The LibTorch subcommands run in jigsaw-runtime, whatever global flags come first
  // (`jigsaw -q train ...`; CliFirstUse.GlobalFlagsGoBeforeOrAfterEverySubcommand).
  const std::string sub = jigsaw::SubcommandName(argc, argv);
  if (sub == "train" || sub == "profile" || sub == "ps-worker" || sub == "serve" || sub == "fl" ||
      sub == "fl-client" || sub == "checkpoint") {
    return jigsaw::ExecRuntime(argc, argv);
  }
#if JIGSAW_QUICKSTART
  if (NotInQuickstart(sub)) {
    std::fprintf(stderr,
                 "jigsaw: `%s` is not in this build: it was configured with -DJIGSAW_QUICKSTART=ON "
                 "(scripts/quickstart.sh), which builds sim, spb-efficiency and phase-plan only; "
                 "scripts/build.sh builds every subcommand into build/\n",
                 sub.c_str());
    return 1;
  }
#endif
  CLI::App app{
      "jigsaw: structured partial backpropagation, SPB-aware scheduling and the "
      "systems around them"};
  jigsaw::ConfigureApp(app);
  app.require_subcommand(1);
  jigsaw::CommandAction action;
  jigsaw::AddSimCommand(app, &action);
  jigsaw::AddSpbCommands(app, &action);
#if JIGSAW_QUICKSTART
  AddQuickstartPlaceholders(app);
#else
  jigsaw::AddNetCommand(app, &action);
  jigsaw::AddD2rCommand(app, &action);
  jigsaw::AddSweepCommand(app, &action);
  jigsaw::AddPsCommand(app, &action);
  jigsaw::AddTlightsCommand(app, &action);
  jigsaw::AddTlightsReportCommand(app, &action);
  jigsaw::AddParamsvcCommands(app, &action);
  jigsaw::AddReportCommand(app, &action);
  jigsaw::AddFaasSimCommand(app, &action);
  jigsaw::AddFaasCommands(app, &action);
  jigsaw::AddServeBenchCommand(app, &action);
#endif
  // Listed for `jigsaw --help`; main() hands them to jigsaw-runtime before parsing.
  app.add_subcommand("train", "Data-parallel training with SPB (LibTorch + Gloo); see --help");
  app.add_subcommand("profile", "Per-block timing and size profile of a model; see --help");
  app.add_subcommand("checkpoint",
                     "A checkpoint's weights in another precision (LibTorch); see --help");
  app.add_subcommand("ps-worker", "A worker of a parameter-server job (LibTorch); see --help");
  app.add_subcommand("serve",
                     "KServe v2 inference server over a checkpoint (LibTorch); see --help");
  app.add_subcommand("fl",
                     "Federated learning: FedAvg, FedProx, Auxo cohorts (LibTorch); see --help");
  app.add_subcommand("fl-client", "A client process of `jigsaw fl --serve` (LibTorch); see --help");
  return jigsaw::ParseAndRun(app, action, argc, argv);
}
