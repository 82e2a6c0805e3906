// Pausing an idle sandbox process, as OpenWhisk's invoker pauses an idle action container after
// its pause-grace (`runc pause`: the cgroup freezer) and resumes it before the next activation.
//
// Mechanisms: kFreezer puts the process into a cgroup v2 of its own
// (<root>/jigsaw-sandbox-<sgs pid>-<sandbox pid>, root /sys/fs/cgroup/unified on a hybrid host,
// /sys/fs/cgroup on a pure v2 one) and freezes/thaws it with cgroup.freeze, the kernel mechanism
// runc uses; a frozen v2 task still dies on SIGKILL, so PR_SET_PDEATHSIG and Kill keep working.
// kSignal stops/continues the process with SIGSTOP/SIGCONT (observable by the process, which our
// sandboxes ignore). FreezerUsable probes once per process whether a cgroup can be created there
// (root with a writable cgroup2 mount); otherwise every SandboxPause uses kSignal.
//
// Pause returns once the kernel reports the process stopped (cgroup.events "frozen 1", or state
// 'T' in /proc/<pid>/stat), bounded by 1 s of polling; Resume returns after the thaw/SIGCONT call.
// The destructor thaws a frozen cgroup and removes it (the process should be gone by then:
// removing a cgroup that still has a task fails and is ignored); it never signals the pid, which
// may have been reaped and reused, so Resume a SIGSTOPped process before killing it.
#ifndef JIGSAW_FAAS_SANDBOX_PAUSE_H_
#define JIGSAW_FAAS_SANDBOX_PAUSE_H_

#include <sys/types.h>

#include <string>

namespace jigsaw::faas {

enum class PauseMechanism { kFreezer, kSignal };
const char* PauseMechanismName(PauseMechanism m);

class SandboxPause {
 public:
  // `want_freezer` false forces kSignal (tests of both mechanisms on one host). A sandbox that is
  // already in a cgroup v2 leaf of its own (`cgroup`, faas/sandbox_cgroup.h: its limits) is frozen
  // there, never moved out of it; that leaf is its owner's to remove.
  SandboxPause(pid_t pid, bool want_freezer = true, const std::string& cgroup = "");
  ~SandboxPause();
  SandboxPause(const SandboxPause&) = delete;
  SandboxPause& operator=(const SandboxPause&) = delete;

  bool Pause();   // false: the process is gone or the kernel refused
  bool Resume();  // idem
  bool paused() const { return paused_; }
  PauseMechanism mechanism() const { return mechanism_; }
  const std::string& cgroup() const { return cgroup_; }  // kFreezer only

  static bool FreezerUsable();

 private:
  pid_t pid_;
  PauseMechanism mechanism_ = PauseMechanism::kSignal;
  std::string cgroup_;  // kFreezer: the sandbox's cgroup directory
  bool owns_cgroup_ = false;
  bool paused_ = false;
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_SANDBOX_PAUSE_H_
