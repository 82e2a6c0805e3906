// jigsaw: one CLI for the cluster simulator, the network simulator and the SPB runtime.
#include <string>

#include "cli/cli_main.h"

int main(int argc, char** argv) {
  // The LibTorch subcommands run in jigsaw-runtime, whatever global flags come first
  // (`jigsaw -q train ...`; CliFirstUse.GlobalFlagsGoBeforeOrAfterEverySubcommand).
  const std::string sub = jigsaw::SubcommandName(argc, argv);
  if (sub == "train" || sub == "profile" || sub == "ps-worker" || sub == "serve" || sub == "fl" ||
      sub == "fl-client" || sub == "checkpoint") {
    return jigsaw::ExecRuntime(argc, argv);
  }
  CLI::App app{
      "jigsaw: structured partial backpropagation, SPB-aware scheduling and the "
      "systems around them"};
  jigsaw::ConfigureApp(app);
  app.require_subcommand(1);
  jigsaw::CommandAction action;
  jigsaw::AddSimCommand(app, &action);
  jigsaw::AddSpbCommands(app, &action);
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
