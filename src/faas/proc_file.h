// Small kernel-provided text files (/proc/PID/stat, cgroupfs entries) read by the sandbox code.
#ifndef JIGSAW_FAAS_PROC_FILE_H_
#define JIGSAW_FAAS_PROC_FILE_H_

#include <string>

namespace jigsaw::faas {

// The first 4 KiB of `path` (one read, as these files are produced whole), or "" when it cannot
// be opened or read.
std::string ReadProcFile(const std::string& path);

// The host's cgroup v2 mount (/sys/fs/cgroup/unified or /sys/fs/cgroup, the first that has
// cgroup.procs and cgroup.max.depth, a v2-only file), or "" when there is none.
std::string CgroupV2Root();

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_PROC_FILE_H_
