// jigsaw-runtime: `jigsaw train`, `profile`, `ps-worker`, `serve`, `fl` and `fl-client`, the
// LibTorch half of the CLI (see cli_main.h for why it is a separate executable). Run through
// `jigsaw <subcommand>`.
#include "cli/cli_main.h"

int main(int argc, char** argv) {
  CLI::App app{"jigsaw: SPB training runtime (LibTorch + Gloo)", "jigsaw"};
  jigsaw::ConfigureApp(app);
  app.require_subcommand(1);
  jigsaw::CommandAction action;
  jigsaw::AddTrainCommand(app, &action);
  jigsaw::AddProfileCommand(app, &action);
  jigsaw::AddPsWorkerCommand(app, &action);
  jigsaw::AddServeCommand(app, &action);
  jigsaw::AddFlCommand(app, &action);
  jigsaw::AddFlClientCommand(app, &action);
  return jigsaw::ParseAndRun(app, action, argc, argv);
}
