// What every subcommand's summary.json records about the run itself, from one place: the version,
// the subcommand, every effective option (given on the command line or its default) and the
// SHA-256 of every option value that names an input file.
#ifndef JIGSAW_CLI_RUN_RECORD_H_
#define JIGSAW_CLI_RUN_RECORD_H_

#include <CLI/CLI.hpp>
#include <string>

#include "core/output.h"

namespace jigsaw {

// {"--gpus": 32, "--policy": "fifo", ...}: numbers where the value reads as one, flags as given
// or their default, repeatable options as arrays; --help is left out.
Json EffectiveOptions(const CLI::App& command);
// {"--trace": {"path": ..., "sha256": ...}, ...} for options whose value is a regular file.
Json InputFileHashes(const CLI::App& command);
// {"version", "git", "command", "options", "inputs"}.
Json RunRecord(const CLI::App& command);

// The output folder the chosen subcommand writes ("" when it has no --out): its --out value as
// given or its default.
std::string OutputFolder(const CLI::App& command);

// Adds RunRecord(command) as "run" to DIR/summary.json when the run wrote one (rewritten
// atomically); a folder without summary.json is left alone.
void RecordRunInSummary(const CLI::App& command, const std::string& dir);

// The known name nearest `name` by edit distance, or "" when none is close (at most 2 edits or a
// third of the name's length).
std::string NearestName(const std::string& name, const std::vector<std::string>& known);

}  // namespace jigsaw

#endif  // JIGSAW_CLI_RUN_RECORD_H_
