// Small kernel-provided text files (/proc/PID/stat, cgroupfs entries) read by the sandbox code.
#ifndef JIGSAW_FAAS_PROC_FILE_H_
#define JIGSAW_FAAS_PROC_FILE_H_

#include <string>

namespace jigsaw::faas {

// The first 4 KiB of `path` (one read, as these files are produced whole), or "" when it cannot
// be opened or read.
std::string ReadProcFile(const std::string& path);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_PROC_FILE_H_
