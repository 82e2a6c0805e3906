// jigsaw-runtime: `jigsaw train`, `profile`, `checkpoint`, `ps-worker`, `serve`, `fl` and
// `fl-client`, the LibTorch half of the CLI (see cli_main.h for why it is a separate executable).
// Run through `jigsaw <subcommand>`.
#include "cli/cli_main.h"

#ifdef JIGSAW_OPENBLAS
// LibTorch's sgemm_ resolves to the OpenBLAS linked into this executable (src/cli/CMakeLists.txt).
extern "C" void openblas_set_num_threads(int);
#endif

int main(int argc, char** argv) {
#ifdef JIGSAW_OPENBLAS
  // One BLAS thread, like the reference BLAS it replaces: commands choose their parallelism
  // through torch::set_num_threads, and the machine is shared.
  openblas_set_num_threads(1);
#endif
  CLI::App app{"jigsaw: SPB training runtime (LibTorch + Gloo)", "jigsaw"};
  jigsaw::ConfigureApp(app);
  app.require_subcommand(1);
  jigsaw::CommandAction action;
  jigsaw::AddTrainCommand(app, &action);
  jigsaw::AddProfileCommand(app, &action);
  jigsaw::AddCheckpointCommand(app, &action);
#ifndef JIGSAW_RUNTIME_ONLY  // the build for GPU machines has these three only (CMakeLists.txt)
  jigsaw::AddPsWorkerCommand(app, &action);
  jigsaw::AddServeCommand(app, &action);
  jigsaw::AddFlCommand(app, &action);
  jigsaw::AddFlClientCommand(app, &action);
#endif
  return jigsaw::ParseAndRun(app, action, argc, argv);
}
