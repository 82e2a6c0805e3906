// What both executables' main() share: parse, run the chosen subcommand's action, and report
// errors uniformly ("jigsaw: <file:line: message>"; exit 2 for bad input or usage, including a
// malformed command line, 1 otherwise).
#ifndef JIGSAW_CLI_CLI_MAIN_H_
#define JIGSAW_CLI_CLI_MAIN_H_

#include "cli/commands.h"

namespace jigsaw {

int ParseAndRun(CLI::App& app, const CommandAction& action, int argc, char** argv);

// `jigsaw train` and `jigsaw profile` run in the sibling executable jigsaw-runtime, the only one
// that links LibTorch (hundreds of shared libraries: ~0.5 s and ~150 MB before doing anything),
// so the simulators stay light. Replaces this process with it; returns only on failure.
int ExecRuntime(int argc, char** argv);

}  // namespace jigsaw

#endif  // JIGSAW_CLI_CLI_MAIN_H_
