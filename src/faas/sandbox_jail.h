// The isolation of one faas sandbox process (faas/sandbox_process.h): prepared in the SGS,
// entered by the child between clone and exec.
//
// A jailed sandbox
//  - runs in its own mount, PID, IPC, UTS and network namespaces (pid 1 of its PID namespace,
//    no network interface but a down loopback);
//  - sees a minimal root: a read-only tmpfs that holds read-only bind mounts of the host's
//    library folders (/usr/lib, /usr/lib64, /usr/local/lib, /etc/ld.so.cache, /etc/alternatives,
//    and /lib, /lib64 as the host has them: links or folders), the sandbox executable at /jigsaw,
//    the function's data file at /data/<name> (resize functions), /dev/null, /dev/zero and
//    /dev/urandom, a fresh /proc of its own PID namespace, and a private writable scratch folder
//    /tmp (a tmpfs of `scratch_bytes`, noexec, owned by the sandbox's uid). Nothing else of the
//    host is visible: no /etc/shadow, no host process, no other sandbox's files;
//  - runs as `uid`:`gid` (65534, nobody, by default) with no supplementary groups, an empty
//    capability bounding set and no capabilities, no_new_privs, and the seccomp allow-list of
//    faas/sandbox_seccomp.h;
//  - holds only its channel: stdin and stdout are its pipes, stderr is /dev/null, and every other
//    descriptor is closed with close_range before exec, whatever the SGS had open (an accepted
//    client socket of the SGS is never reachable from a sandbox);
//  - is in a cgroup v2 leaf with memory, pids and CPU limits (faas/sandbox_cgroup.h) where the
//    host offers those controllers.
// When the kernel refuses the namespaces (not root, or a container without CAP_SYS_ADMIN), the
// sandbox is a plain fork that still closes every inherited descriptor and enters no_new_privs
// and the seccomp filter; faas/sandbox_process.cc says so once on stderr. A setup step that fails
// in the child is reported to the SGS as the step's name and errno (the spawn fails with it).
#ifndef JIGSAW_FAAS_SANDBOX_JAIL_H_
#define JIGSAW_FAAS_SANDBOX_JAIL_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "faas/sandbox_cgroup.h"
#include "faas/sandbox_seccomp.h"

namespace jigsaw::faas {

struct SandboxOptions {
  bool isolate = true;  // false: a plain fork + exec (the descriptors are still closed)
  uint32_t uid = 65534;
  uint32_t gid = 65534;
  uint64_t scratch_bytes = 16ULL << 20;  // the /tmp tmpfs
  uint64_t memory_bytes = 512ULL << 20;  // cgroup memory.max (0: none)
  int pids = 16;                         // cgroup pids.max (0: none)
  double cpu_cores = 1.0;                // cgroup cpu.max (0: none)
  bool seccomp = true;
  // Extra host folders or files made visible read-only at the same path (a stand-in sandbox
  // executable that is a script needs its interpreter: tests add /usr/bin and its folder).
  std::vector<std::string> read_only_paths;
  std::string cgroup_root;  // "" = the host's cgroup v2 mount (tests point it elsewhere)

  // Throws UsageError naming the field.
  void Validate() const;
};

// One sandbox's jail: everything the child needs, computed before the clone.
class SandboxJail {
 public:
  // `exe` and `data_file` ("" = none) are host paths. Null with *error on failure (the seccomp
  // program or the cgroup leaf could not be made). `namespaces` false prepares the fallback.
  static std::unique_ptr<SandboxJail> Prepare(const SandboxOptions& options, const std::string& exe,
                                              const std::vector<std::string>& args,
                                              const std::string& data_file, bool namespaces,
                                              std::string* error);

  // The child, after clone/fork: joins the cgroup, sets up its channel on 0 and 1, the root, the
  // identity and the filter, then execs. Only async-signal-safe calls. A failed step writes
  // the frame "jail STEP ERRNO" to `out_fd` and exits 127.
  [[noreturn]] void EnterAndExec(int in_fd, int out_fd) const;

  // Decodes the child's "jail STEP ERRNO" frame into a sentence; false for any other frame.
  static bool DescribeFailure(const std::string& frame, std::string* sentence);

  // The clone flags of a jailed sandbox.
  static int CloneFlags();
  // Where a host data file is seen inside the jail ("" stays "").
  static std::string DataPathInside(const std::string& data_file);
  const SandboxCgroup* cgroup() const { return cgroup_.get(); }
  bool namespaces() const { return namespaces_; }
  ~SandboxJail();
  SandboxJail(const SandboxJail&) = delete;
  SandboxJail& operator=(const SandboxJail&) = delete;

 private:
  struct Mount {
    std::string source;  // host path
    std::string target;  // path under root_
    bool is_file = false;
    unsigned long flags = 0;  // the read-only remount's flags
  };
  SandboxJail() = default;
  void AddFolder(const std::string& inside);
  void AddBind(const std::string& host, const std::string& inside, bool is_file, bool exec);
  void BuildMounts(const std::string& exe, const std::string& data_file);
  [[noreturn]] static void Fail(int out_fd, int step);
  void SetUpRoot(int out_fd) const;
  void DropPrivileges(int out_fd) const;

  SandboxOptions options_;
  bool namespaces_ = true;
  std::string root_;  // the host folder the new root is mounted on (empty on the host)
  std::string scratch_options_;
  std::string hostname_ = "sandbox";
  std::vector<Mount> mounts_;
  std::vector<std::string> args_;  // argv, args_[0] the path inside the jail
  std::vector<char*> argv_;
  std::vector<char*> envp_;
  std::vector<std::string> env_;
  SeccompProgram seccomp_;
  std::unique_ptr<SandboxCgroup> cgroup_;
  std::vector<std::string> folders_;                           // to create, parents first
  std::vector<std::pair<std::string, std::string>> symlinks_;  // target, link path
  std::string proc_, scratch_;
  int devnull_ = -1;
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_SANDBOX_JAIL_H_
