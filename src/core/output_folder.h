// --out is a folder in every subcommand. RequireWritableFolder is the check every output folder
// passes before a run starts (cli/cli_main.cc applies it to the chosen subcommand's --out), and
// FileInFolder names the file a one-file subcommand writes inside it.
#ifndef JIGSAW_CORE_OUTPUT_FOLDER_H_
#define JIGSAW_CORE_OUTPUT_FOLDER_H_

#include <string>

namespace jigsaw {

// Creates `path` (and its parents) and writes and removes a probe file in it. Throws UsageError
// naming `option`, the path and the reason (a file in the way, no permission, a read-only file
// system).
void RequireWritableFolder(const std::string& path, const std::string& option);

// FOLDER/NAME, or "" when `folder` is empty (no --out given).
std::string FileInFolder(const std::string& folder, const std::string& name);

}  // namespace jigsaw

#endif  // JIGSAW_CORE_OUTPUT_FOLDER_H_
