// One sandbox's cgroup v2 leaf: memory, pids and CPU limits for a sandbox process.
//
// The leaf is <root>/jigsaw-jail-<SGS pid>-<n>, where <root> is the cgroup v2 mount
// (/sys/fs/cgroup on a pure v2 host, /sys/fs/cgroup/unified on a hybrid one). Create() writes
// memory.max (and memory.swap.max = 0), pids.max and cpu.max (quota of `cpu_cores` x 100 ms per
// 100 ms) for the controllers the host offers, after enabling them in the root's
// cgroup.subtree_control; the child process joins the leaf by writing "0" into procs_fd() before
// it execs, so nothing it runs escapes the limits. The destructor removes the leaf (the process
// must be gone by then; removing a leaf that still holds a task fails and is ignored).
//
// Availability is probed once per process (Probe): a controller counts when the root's
// cgroup.controllers lists it and the root's subtree_control accepts it. A host whose memory, pids
// or cpu controllers are bound to cgroup v1 (a hybrid host), or a process that may not write the
// hierarchy, gets no limits; Probe's `missing` says which controllers and why, and the sandbox
// code prints that once on stderr. Leaves of SGS processes that are gone are removed by the next
// Probe. Nothing here is async-signal-unsafe in the child: the child only writes to procs_fd().
#ifndef JIGSAW_FAAS_SANDBOX_CGROUP_H_
#define JIGSAW_FAAS_SANDBOX_CGROUP_H_

#include <cstdint>
#include <memory>
#include <string>

namespace jigsaw::faas {

struct CgroupLimits {
  uint64_t memory_bytes = 0;  // memory.max; 0: no memory limit
  int pids = 0;               // pids.max; 0: no pids limit
  double cpu_cores = 0;       // cpu.max quota in cores; 0: no CPU limit
};

struct CgroupSupport {
  std::string root;     // the cgroup v2 mount, "" when there is none
  bool memory = false;  // controllers usable for sandbox leaves
  bool pids = false;
  bool cpu = false;
  std::string missing;  // what is not available and why ("" when all three are)
};

class SandboxCgroup {
 public:
  // Probes `root` ("" = the host's cgroup v2 mount) once per process and root.
  static const CgroupSupport& Probe(const std::string& root = "");

  // A fresh leaf under support.root with the limits its controllers allow; null with *error
  // naming the file when the leaf or a limit cannot be written.
  static std::unique_ptr<SandboxCgroup> Create(const CgroupSupport& support,
                                               const CgroupLimits& limits, std::string* error);
  ~SandboxCgroup();
  SandboxCgroup(const SandboxCgroup&) = delete;
  SandboxCgroup& operator=(const SandboxCgroup&) = delete;

  const std::string& path() const { return path_; }
  // cgroup.procs of the leaf, opened close-on-exec for the child to write "0" into.
  int procs_fd() const { return procs_fd_; }

 private:
  SandboxCgroup(std::string path, int procs_fd) : path_(std::move(path)), procs_fd_(procs_fd) {}

  std::string path_;
  int procs_fd_ = -1;
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_SANDBOX_CGROUP_H_
