// What both executables' main() share, so every subcommand follows the same conventions
// (docs/cli.md): --version; --help shows every option's default; --quiet/--verbose as global
// flags (core/progress.h); an unknown subcommand is named with the nearest known one; the chosen
// subcommand's --out folder is checked writable before the run starts; summary.json gets the run
// record (cli/run_record.h); errors are reported uniformly ("jigsaw: <file:line: message>"; exit
// 2 for bad input or any usage error, CLI11's own included, 0 for --help and --version, 1
// otherwise; messages bounded by core/limits.h).
#ifndef JIGSAW_CLI_CLI_MAIN_H_
#define JIGSAW_CLI_CLI_MAIN_H_

#include <string>

#include "cli/commands.h"

namespace jigsaw {

// Call on the top-level app before adding subcommands (they inherit its option defaults).
void ConfigureApp(CLI::App& app);

// The first argument that is not a flag: the subcommand (global flags take no value), "" if none.
std::string SubcommandName(int argc, char** argv);

int ParseAndRun(CLI::App& app, const CommandAction& action, int argc, char** argv);

// `jigsaw train` and `jigsaw profile` run in the sibling executable jigsaw-runtime, the only one
// that links LibTorch (hundreds of shared libraries: ~0.5 s and ~150 MB before doing anything),
// so the simulators stay light. Replaces this process with it; returns only on failure.
int ExecRuntime(int argc, char** argv);

}  // namespace jigsaw

#endif  // JIGSAW_CLI_CLI_MAIN_H_
