#include "faas/sandbox_seccomp.h"

#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace jigsaw::faas {

const std::vector<const char*>& SeccompProgram::AllowedNames() {
  static const std::vector<const char*> names = {
      // start, exit, identity
      "execve",
      "exit",
      "exit_group",
      "arch_prctl",
      "set_tid_address",
      "set_robust_list",
      "rseq",
      "prlimit64",
      "getrlimit",
      "uname",
      "getpid",
      "gettid",
      "getppid",
      "getuid",
      "geteuid",
      "getgid",
      "getegid",
      "getgroups",
      "getresuid",
      "getresgid",
      "getrandom",
      "sysinfo",
      "getcwd",
      "chdir",
      "umask",
      "prctl",
      "capget",
      "sched_getaffinity",
      "sched_yield",
      "getpriority",
      "getrusage",
      "times",
      // memory
      "brk",
      "mmap",
      "munmap",
      "mremap",
      "mprotect",
      "madvise",
      "mlock",
      "munlock",
      // files and descriptors it opened itself
      "openat",
      "open",
      "close",
      "read",
      "write",
      "readv",
      "writev",
      "pread64",
      "pwrite64",
      "preadv",
      "pwritev",
      "lseek",
      "fstat",
      "newfstatat",
      "stat",
      "lstat",
      "statx",
      "statfs",
      "fstatfs",
      "access",
      "faccessat",
      "faccessat2",
      "readlink",
      "readlinkat",
      "getdents64",
      "fcntl",
      "dup",
      "dup2",
      "dup3",
      "ioctl",
      "fsync",
      "fdatasync",
      "ftruncate",
      "unlink",
      "unlinkat",
      "mkdir",
      "mkdirat",
      "rename",
      "renameat",
      "close_range",
      "poll",
      "ppoll",
      "select",
      "pselect6",
      "pipe",
      "pipe2",
      // time, waiting, signals on itself
      "clock_gettime",
      "clock_getres",
      "clock_nanosleep",
      "nanosleep",
      "gettimeofday",
      "time",
      "futex",
      "futex_waitv",
      "rt_sigaction",
      "rt_sigprocmask",
      "rt_sigreturn",
      "rt_sigsuspend",
      "sigaltstack",
      "tgkill",
      "membarrier",
      "restart_syscall",
  };
  return names;
}

bool SeccompProgram::Build(std::string* error) {
  std::unique_ptr<void, void (*)(void*)> ctx(seccomp_init(SCMP_ACT_ERRNO(EPERM)),
                                             [](void* c) { seccomp_release(c); });
  if (!ctx) {
    *error = "seccomp_init failed";
    return false;
  }
  for (const char* name : AllowedNames()) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture (e.g. "open" on arm64)
    const int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ALLOW, nr, 0);
    if (rc != 0) {
      *error = std::string("seccomp rule for ") + name + ": " + std::strerror(-rc);
      return false;
    }
  }
  // Threads only: clone must carry CLONE_THREAD; clone3's flags sit behind a pointer seccomp
  // cannot read, so it answers ENOSYS and the C library falls back to clone.
  if (seccomp_rule_add(ctx.get(), SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                       SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD)) != 0 ||
      seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) != 0) {
    *error = "seccomp rule for clone failed";
    return false;
  }
  // The BPF program through a memory file (libseccomp 2.5 exports to a descriptor only).
  const int fd = ::memfd_create("jigsaw-seccomp", MFD_CLOEXEC);
  if (fd < 0) {
    *error = std::string("memfd_create: ") + std::strerror(errno);
    return false;
  }
  const int rc = seccomp_export_bpf(ctx.get(), fd);
  const off_t size = rc == 0 ? ::lseek(fd, 0, SEEK_END) : -1;
  bool ok = size > 0 && size % sizeof(sock_filter) == 0 && ::lseek(fd, 0, SEEK_SET) == 0;
  if (ok) {
    filter_.resize(static_cast<size_t>(size) / sizeof(sock_filter));
    ok = ::read(fd, filter_.data(), static_cast<size_t>(size)) == size;
  }
  ::close(fd);
  if (!ok) {
    *error = "cannot export the seccomp program";
    filter_.clear();
    return false;
  }
  program_.len = static_cast<unsigned short>(filter_.size());
  program_.filter = filter_.data();
  return true;
}

}  // namespace jigsaw::faas
