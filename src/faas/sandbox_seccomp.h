// The seccomp allow-list of a faas sandbox process (faas/sandbox_jail.h), built with libseccomp.
//
// Allowed: what `jigsaw faas-sandbox` and the dynamic loader need to start, read their files,
// compute, sleep, and answer on their pipes: memory management, file reading and writing on
// descriptors it opened itself (openat, read/write and friends, stat, lseek, getdents64, fcntl,
// dup, pipe-free I/O), clocks and sleeps, futexes, signals on itself (rt_sig*, tgkill for abort),
// identity queries, getrandom, prlimit64, execve (the sandbox's own start) and exit. Threads
// (clone with CLONE_THREAD) are allowed; clone3 answers ENOSYS so the C library falls back to
// clone. Everything else fails with EPERM: sockets, ptrace, mount and namespace calls, setuid and
// capability calls, process creation, kernel keyrings, BPF, perf, io_uring, module loading, ...
// Calls from another architecture (x32, i386) kill the process.
//
// Build() runs in the SGS (it allocates); the child only passes program() to
// seccomp(SECCOMP_SET_MODE_FILTER), which is async-signal-safe.
#ifndef JIGSAW_FAAS_SANDBOX_SECCOMP_H_
#define JIGSAW_FAAS_SANDBOX_SECCOMP_H_

#include <linux/filter.h>

#include <string>
#include <vector>

namespace jigsaw::faas {

class SeccompProgram {
 public:
  // False with *error saying why (libseccomp refused a rule, or the export failed).
  bool Build(std::string* error);
  // The compiled BPF program; valid after a successful Build while this object lives.
  const sock_fprog* program() const { return &program_; }
  size_t instructions() const { return filter_.size(); }

  // The system calls the filter allows, by name (for docs and tests).
  static const std::vector<const char*>& AllowedNames();

 private:
  std::vector<sock_filter> filter_;
  sock_fprog program_{};
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_SANDBOX_SECCOMP_H_
