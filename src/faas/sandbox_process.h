// One sandbox of the real platform: a child process running `jigsaw faas-sandbox --function CODE`
// that answers invocations over its stdin/stdout pipes, one at a time.
//
// Isolation (faas/sandbox_jail.h): the child is created with clone in its own mount, PID, IPC,
// UTS and network namespaces, sees a read-only minimal root with a private scratch /tmp, runs as
// an unprivileged uid without capabilities under a seccomp allow-list, in a cgroup v2 leaf with
// memory, pids and CPU limits where the host offers them, and holds no descriptor but its pipes
// (every other one is closed with close_range before exec). When the kernel refuses the
// namespaces (unprivileged), every later sandbox is a plain fork + exec that still closes the
// descriptors and enters no_new_privs and the seccomp filter, and one message says so on stderr;
// where cgroup limits cannot be applied, one message says which and why. The child gets SIGKILL
// when the thread that spawned it exits (PR_SET_PDEATHSIG), so a dying SGS leaves no sandbox
// behind. The first Spawn sets SIGPIPE to ignored in the calling process, so writing to a
// sandbox that just died fails with EPIPE.
//
// Pipe protocol (both ways): frames of a 4-byte little-endian length and that many bytes, at most
// kMaxFrameBytes (a larger length is a protocol error, never allocated). The sandbox first sends
// "ready" (or "error: ..." and exits); then for each request frame (the payload) it sends a
// reply frame: "ok " + result or "error: " + message.
#ifndef JIGSAW_FAAS_SANDBOX_PROCESS_H_
#define JIGSAW_FAAS_SANDBOX_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "faas/sandbox_jail.h"

namespace jigsaw::faas {

constexpr uint32_t kMaxFrameBytes = 16 << 20;

// Blocking frame I/O on a file descriptor; false on EOF, error or an oversized length.
bool WriteFrame(int fd, const std::string& data);
bool ReadFrame(int fd, std::string* data);

class SandboxProcess {
 public:
  // Spawns `jigsaw_exe faas-sandbox --function code [--data cifar_archive]` and waits for its
  // "ready" frame, at most `ready_timeout_ms`, or until `cancel_fd` (if >= 0) becomes readable:
  // an initialisation that hangs can neither hold the caller past the timeout nor past a
  // shutdown. Null on failure with *error saying why (exec failed, init error, died, not ready in
  // time, cancelled, a jail setup step that failed: then it is killed and reaped first).
  static std::unique_ptr<SandboxProcess> Spawn(const std::string& jigsaw_exe,
                                               const std::string& code,
                                               const std::string& cifar_archive, std::string* error,
                                               int ready_timeout_ms = kDefaultReadyTimeoutMs,
                                               int cancel_fd = -1,
                                               const SandboxOptions& options = {});
  static constexpr int kDefaultReadyTimeoutMs = 30'000;
  ~SandboxProcess();  // SIGKILL + reap
  SandboxProcess(const SandboxProcess&) = delete;
  SandboxProcess& operator=(const SandboxProcess&) = delete;

  // Runs one invocation. False when the sandbox died or broke the protocol (*error says which,
  // with the signal that killed it when there was one); then the sandbox is unusable.
  // A function's own error ("error: ...") returns true with *ok false.
  bool Invoke(const std::string& payload, bool* ok, std::string* result, std::string* error);
  void Kill();
  pid_t pid() const { return pid_; }
  // Resident set size from /proc/<pid>/status (0 if gone).
  uint64_t RssBytes() const;
  // Whether the namespaces were used (false after the one-time fallback).
  static bool Isolated();
  // The sandbox's cgroup v2 leaf ("" when it has none); the freezer pauses it there.
  std::string cgroup() const {
    return jail_ && jail_->cgroup() ? jail_->cgroup()->path() : std::string();
  }

 private:
  SandboxProcess(pid_t pid, int to_child, int from_child)
      : pid_(pid), to_child_(to_child), from_child_(from_child) {}
  std::string Reap();  // waits for the child; describes how it ended

  pid_t pid_;
  int to_child_;
  int from_child_;
  bool reaped_ = false;
  std::unique_ptr<SandboxJail> jail_;  // after the process: its cgroup leaf goes last
};

// The sandbox side: initialises `code` and serves frames on stdin/stdout until EOF. Returns the
// process exit code.
int RunSandbox(const std::string& code, const std::string& cifar_archive);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_SANDBOX_PROCESS_H_
