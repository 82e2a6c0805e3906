#include "faas/sandbox_jail.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "core/error.h"

namespace jigsaw::faas {
namespace {

namespace fs = std::filesystem;

// The child's setup steps, in order; a failure is reported by index.
enum Step {
  kJoinCgroup,
  kDeathSignal,
  kChannel,
  kCloseRange,
  kPrivateMounts,
  kRootTmpfs,
  kFolder,
  kMountPoint,
  kBind,
  kReadOnly,
  kSymlink,
  kProc,
  kScratch,
  kPivotRoot,
  kRootReadOnly,
  kHostname,
  kGroups,
  kCapabilities,
  kUid,
  kNoNewPrivs,
  kSeccomp,
  kExec,
  kStepCount
};
const char* const kStepNames[kStepCount] = {"joining the cgroup",
                                            "PR_SET_PDEATHSIG",
                                            "setting up stdin/stdout/stderr",
                                            "close_range",
                                            "making mounts private",
                                            "mounting the root tmpfs",
                                            "creating a folder",
                                            "creating a mount point",
                                            "bind-mounting a host path",
                                            "remounting it read-only",
                                            "creating a symlink",
                                            "mounting /proc",
                                            "mounting the scratch tmpfs",
                                            "pivot_root",
                                            "remounting the root read-only",
                                            "sethostname",
                                            "setgroups/setresgid",
                                            "dropping capabilities",
                                            "setresuid",
                                            "PR_SET_NO_NEW_PRIVS",
                                            "seccomp",
                                            "execve"};

constexpr unsigned long kReadOnlyBind = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID;

// Host folder the jails' roots are mounted on: empty on the host (each child mounts a tmpfs over
// it in its own mount namespace). One per SGS process; those of gone processes are removed.
std::string JailMountPoint(std::string* error) {
  static std::mutex mutex;
  static std::string made;
  std::lock_guard<std::mutex> lock(mutex);
  if (!made.empty()) return made;
  const std::string prefix = "jigsaw-jail-root-";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/tmp", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const pid_t pid = static_cast<pid_t>(std::atol(name.c_str() + prefix.size()));
    if (pid > 0 && pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH) {
      ::rmdir(entry.path().c_str());
    }
  }
  const std::string path = "/tmp/" + prefix + std::to_string(::getpid());
  struct stat st;
  if (::mkdir(path.c_str(), 0700) != 0 && !(errno == EEXIST && ::lstat(path.c_str(), &st) == 0 &&
                                            S_ISDIR(st.st_mode) && st.st_uid == ::geteuid())) {
    *error = "cannot create the jail mount point " + path + ": " + std::strerror(errno);
    return "";
  }
  made = path;
  return made;
}

// Async-signal-safe decimal.
size_t FormatUnsigned(unsigned long value, char* out) {
  char digits[24];
  size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0);
  for (size_t i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
  return n;
}

}  // namespace

void SandboxOptions::Validate() const {
  if (isolate && (uid == 0 || gid == 0)) {
    throw UsageError("sandbox uid and gid must not be 0 (root): got " + std::to_string(uid) + ":" +
                     std::to_string(gid));
  }
  if (scratch_bytes < (1ULL << 20) || scratch_bytes > (64ULL << 30)) {
    throw UsageError("sandbox scratch_bytes must be in [1MiB, 64GiB]");
  }
  if (memory_bytes != 0 && (memory_bytes < (16ULL << 20) || memory_bytes > (1ULL << 40))) {
    throw UsageError("sandbox memory_bytes must be 0 (no limit) or in [16MiB, 1TiB]");
  }
  if (pids < 0 || pids > 65536) throw UsageError("sandbox pids must be in [0, 65536]");
  if (!(cpu_cores >= 0 && cpu_cores <= 1024)) {
    throw UsageError("sandbox cpu_cores must be in [0, 1024]");
  }
  for (const std::string& path : read_only_paths) {
    if (path.empty() || path[0] != '/' || path == "/") {
      throw UsageError("sandbox read_only_paths '" + path + "': expected an absolute path below /");
    }
  }
}

int SandboxJail::CloneFlags() {
  return CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS;
}

std::string SandboxJail::DataPathInside(const std::string& data_file) {
  return data_file.empty() ? "" : "/data/" + fs::path(data_file).filename().string();
}

SandboxJail::~SandboxJail() {
  if (devnull_ >= 0) ::close(devnull_);
}

void SandboxJail::AddFolder(const std::string& inside) {
  fs::path so_far = root_;
  for (const auto& part : fs::path(inside).relative_path()) {
    so_far /= part;
    if (std::find(folders_.begin(), folders_.end(), so_far.string()) == folders_.end()) {
      folders_.push_back(so_far.string());
    }
  }
}

void SandboxJail::AddBind(const std::string& host, const std::string& inside, bool is_file,
                          bool exec) {
  AddFolder(is_file ? fs::path(inside).parent_path().string() : inside);
  mounts_.push_back(
      {host, root_ + inside, is_file,
       kReadOnlyBind | MS_NODEV | (exec ? 0UL : static_cast<unsigned long>(MS_NOEXEC))});
}

void SandboxJail::BuildMounts(const std::string& exe, const std::string& data_file) {
  std::error_code ec;
  for (const char* top : {"/lib", "/lib64", "/lib32", "/libx32"}) {
    if (fs::is_symlink(top, ec)) {
      symlinks_.emplace_back(fs::read_symlink(top, ec).string(), root_ + top);
    } else if (fs::is_directory(top, ec)) {
      AddBind(top, top, false, true);
    }
  }
  // A merged-/usr host's /bin and /sbin links (they lead nowhere unless /usr/bin is bound).
  for (const char* top : {"/bin", "/sbin"}) {
    if (fs::is_symlink(top, ec)) {
      symlinks_.emplace_back(fs::read_symlink(top, ec).string(), root_ + top);
    }
  }
  for (const char* libs :
       {"/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libx32", "/usr/local/lib"}) {
    if (fs::is_directory(libs, ec) && !fs::is_symlink(libs, ec)) AddBind(libs, libs, false, true);
  }
  if (fs::is_regular_file("/etc/ld.so.cache", ec)) {
    AddBind("/etc/ld.so.cache", "/etc/ld.so.cache", true, false);
  }
  // Debian resolves some libraries (libblas, liblapack) through alternatives links.
  if (fs::is_directory("/etc/alternatives", ec)) {
    AddBind("/etc/alternatives", "/etc/alternatives", false, false);
  }
  for (const std::string& path : options_.read_only_paths) {
    AddBind(path, path, !fs::is_directory(path, ec), true);
  }
  AddBind(exe, "/jigsaw", true, true);
  if (!data_file.empty()) AddBind(data_file, DataPathInside(data_file), true, false);
  for (const char* device : {"/dev/null", "/dev/zero", "/dev/urandom"}) {
    AddFolder("/dev");
    mounts_.push_back({device, root_ + device, true, kReadOnlyBind | MS_NOEXEC});
  }
  AddFolder("/proc");
  AddFolder("/tmp");
  proc_ = root_ + "/proc";
  scratch_ = root_ + "/tmp";
}

std::unique_ptr<SandboxJail> SandboxJail::Prepare(const SandboxOptions& options,
                                                  const std::string& exe,
                                                  const std::vector<std::string>& args,
                                                  const std::string& data_file, bool namespaces,
                                                  std::string* error) {
  std::unique_ptr<SandboxJail> jail(new SandboxJail());
  jail->options_ = options;
  jail->namespaces_ = namespaces && options.isolate;
  namespaces = jail->namespaces_;
  if (options.isolate && options.seccomp && !jail->seccomp_.Build(error)) return nullptr;
  jail->devnull_ = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (jail->devnull_ < 0) {
    *error = std::string("cannot open /dev/null: ") + std::strerror(errno);
    return nullptr;
  }
  std::error_code ec;
  if (namespaces && !data_file.empty() && !fs::is_regular_file(data_file, ec)) {
    *error = "the function's data file " + data_file + " is not a readable file";
    return nullptr;
  }
  if (namespaces) {
    jail->root_ = JailMountPoint(error);
    if (jail->root_.empty()) return nullptr;
    jail->BuildMounts(exe, data_file);
    jail->scratch_options_ = "size=" + std::to_string(options.scratch_bytes) +
                             ",mode=0700,uid=" + std::to_string(options.uid) +
                             ",gid=" + std::to_string(options.gid);
  }
  const CgroupSupport& support = SandboxCgroup::Probe(options.cgroup_root);
  if (options.isolate && (support.memory || support.pids || support.cpu)) {
    jail->cgroup_ = SandboxCgroup::Create(
        support, CgroupLimits{options.memory_bytes, options.pids, options.cpu_cores}, error);
    if (!jail->cgroup_) return nullptr;
  }
  jail->args_.push_back(namespaces ? "/jigsaw" : exe);
  jail->args_.insert(jail->args_.end(), args.begin(), args.end());
  for (std::string& a : jail->args_) jail->argv_.push_back(a.data());
  jail->argv_.push_back(nullptr);
  jail->env_ = {"PATH=/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp", "LANG=C"};
  if (!namespaces) jail->env_ = {"PATH=/usr/bin:/bin", "LANG=C"};
  for (std::string& e : jail->env_) jail->envp_.push_back(e.data());
  jail->envp_.push_back(nullptr);
  return jail;
}

bool SandboxJail::DescribeFailure(const std::string& frame, std::string* sentence) {
  unsigned step = 0;
  int error = 0;
  char tail = 0;
  if (frame.rfind("jail ", 0) != 0 ||
      std::sscanf(frame.c_str() + 5, "%u %d%c", &step, &error, &tail) != 2 || step >= kStepCount) {
    return false;
  }
  *sentence =
      std::string("sandbox setup failed at ") + kStepNames[step] + ": " + std::strerror(error);
  return true;
}

void SandboxJail::Fail(int out_fd, int step) {
  const int error = errno;
  char frame[64];
  size_t n = 4;
  std::memcpy(frame + n, "jail ", 5);
  n += 5;
  n += FormatUnsigned(static_cast<unsigned long>(step), frame + n);
  frame[n++] = ' ';
  n += FormatUnsigned(static_cast<unsigned long>(error), frame + n);
  const uint32_t length = static_cast<uint32_t>(n - 4);
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  (void)!::write(out_fd, frame, n);
  _exit(127);
}

void SandboxJail::SetUpRoot(int out) const {
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) Fail(out, kPrivateMounts);
  if (::mount("tmpfs", root_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") != 0) {
    Fail(out, kRootTmpfs);
  }
  for (const std::string& folder : folders_) {
    if (::mkdir(folder.c_str(), 0755) != 0 && errno != EEXIST) Fail(out, kFolder);
  }
  for (const Mount& m : mounts_) {
    if (m.is_file) {
      const int fd = ::open(m.target.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0) Fail(out, kMountPoint);
      ::close(fd);
    } else if (::mkdir(m.target.c_str(), 0755) != 0 && errno != EEXIST) {
      Fail(out, kMountPoint);
    }
    if (::mount(m.source.c_str(), m.target.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
      Fail(out, kBind);
    }
    if (::mount(nullptr, m.target.c_str(), nullptr, m.flags, nullptr) != 0) Fail(out, kReadOnly);
  }
  for (const auto& [target, link] : symlinks_) {
    if (::symlink(target.c_str(), link.c_str()) != 0) Fail(out, kSymlink);
  }
  if (::mount("proc", proc_.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
    Fail(out, kProc);
  }
  if (::mount("tmpfs", scratch_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              scratch_options_.c_str()) != 0) {
    Fail(out, kScratch);
  }
  // pivot_root(".", ".") stacks the old root on the new one; detaching it leaves the new root.
  if (::chdir(root_.c_str()) != 0 || ::syscall(SYS_pivot_root, ".", ".") != 0 ||
      ::umount2(".", MNT_DETACH) != 0 || ::chdir("/") != 0) {
    Fail(out, kPivotRoot);
  }
  if (::mount(nullptr, "/", nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
              nullptr) != 0) {
    Fail(out, kRootReadOnly);
  }
  if (::sethostname(hostname_.data(), hostname_.size()) != 0) Fail(out, kHostname);
}

void SandboxJail::DropPrivileges(int out) const {
  if (::geteuid() != 0) return;  // the fallback of an unprivileged SGS: nothing to drop
  if (::setgroups(0, nullptr) != 0 || ::setresgid(options_.gid, options_.gid, options_.gid) != 0) {
    Fail(out, kGroups);
  }
  for (int cap = 0; cap <= 63; ++cap) {
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) Fail(out, kCapabilities);
  }
  // From uid 0 to a nonzero uid in all three ids: the kernel clears the permitted, effective
  // and ambient capability sets.
  if (::setresuid(options_.uid, options_.uid, options_.uid) != 0) Fail(out, kUid);
}

void SandboxJail::EnterAndExec(int in_fd, int out_fd) const {
  if (cgroup_ && ::write(cgroup_->procs_fd(), "0", 1) != 1) Fail(out_fd, kJoinCgroup);
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) Fail(out_fd, kDeathSignal);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // The channel on 0 and 1 (the pipes' own numbers are >= 3: 0-2 are taken), stderr to null.
  if (::dup2(in_fd, 0) != 0 || ::dup2(out_fd, 1) != 1 || ::dup2(devnull_, 2) != 2) {
    Fail(out_fd, kChannel);
  }
  const int out = 1;
  if (::syscall(SYS_close_range, 3U, ~0U, 0U) != 0) Fail(out, kCloseRange);
  if (options_.isolate) {
    if (namespaces_) SetUpRoot(out);
    DropPrivileges(out);
    // A change of uid clears the parent-death signal: armed again, so the sandbox still dies
    // with its SGS (FaasPlatform.SgsKilledWhileHoldingRequestsTheyAreResentAndTheSgsIsRestarted).
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) Fail(out, kDeathSignal);
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) Fail(out, kNoNewPrivs);
    if (options_.seccomp &&
        ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, seccomp_.program()) != 0) {
      Fail(out, kSeccomp);
    }
  }
  ::execve(argv_[0], argv_.data(), envp_.data());
  Fail(out, kExec);
}

}  // namespace jigsaw::faas
