#include "faas/sandbox_cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "faas/proc_file.h"

namespace jigsaw::faas {
namespace {

constexpr char kLeafPrefix[] = "jigsaw-jail-";
constexpr int64_t kCpuPeriodUs = 100'000;

bool WriteText(const std::string& path, const std::string& text, std::string* error) {
  // O_CREAT | O_TRUNC as `echo >` does: cgroupfs ignores both, a plain folder (tests) gets a file.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  if (ok) ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int saved = errno;
  if (fd >= 0) ::close(fd);
  if (!ok && error) *error = "cannot write '" + text + "' to " + path + ": " + std::strerror(saved);
  return ok;
}

bool HasWord(const std::string& text, const std::string& word) {
  std::istringstream in(text);
  std::string w;
  while (in >> w) {
    if (w == word) return true;
  }
  return false;
}

// Leaves "jigsaw-jail-<pid>-<n>" whose SGS process is gone (rmdir fails on a busy one).
void RemoveStaleLeaves(const std::string& root) {
  DIR* dir = ::opendir(root.c_str());
  if (dir == nullptr) return;
  const std::string prefix = kLeafPrefix;
  while (dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.rfind(prefix, 0) != 0) continue;
    const pid_t pid = static_cast<pid_t>(std::atol(name.c_str() + prefix.size()));
    if (pid <= 0 || pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    ::rmdir((root + "/" + name).c_str());
  }
  ::closedir(dir);
}

CgroupSupport ProbeRoot(const std::string& requested) {
  CgroupSupport support;
  support.root = requested.empty() ? CgroupV2Root() : requested;
  if (support.root.empty()) {
    support.missing =
        "no cgroup v2 hierarchy is mounted (looked at /sys/fs/cgroup and "
        "/sys/fs/cgroup/unified)";
    return support;
  }
  RemoveStaleLeaves(support.root);
  const std::string offered = ReadProcFile(support.root + "/cgroup.controllers");
  std::vector<std::string> missing;
  std::string why;
  for (const char* name : {"memory", "pids", "cpu"}) {
    bool usable = HasWord(offered, name);
    if (!usable) {
      missing.push_back(name);
      continue;
    }
    std::string error;
    usable = HasWord(ReadProcFile(support.root + "/cgroup.subtree_control"), name) ||
             WriteText(support.root + "/cgroup.subtree_control", std::string("+") + name, &error);
    if (!usable) {
      missing.push_back(name);
      if (why.empty()) why = error;
      continue;
    }
    (std::string(name) == "memory" ? support.memory
     : std::string(name) == "pids" ? support.pids
                                   : support.cpu) = true;
  }
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
    support.missing = "the cgroup v2 hierarchy at " + support.root + " does not offer " + list +
                      (why.empty() ? " (it offers '" + offered.substr(0, offered.find('\n')) +
                                         "'; on a hybrid host these controllers are bound to "
                                         "cgroup v1)"
                                   : " (" + why + ")");
  }
  return support;
}

}  // namespace

const CgroupSupport& SandboxCgroup::Probe(const std::string& root) {
  static std::mutex mutex;
  static std::map<std::string, CgroupSupport> probed;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = probed.find(root);
  if (it == probed.end()) it = probed.emplace(root, ProbeRoot(root)).first;
  return it->second;
}

std::unique_ptr<SandboxCgroup> SandboxCgroup::Create(const CgroupSupport& support,
                                                     const CgroupLimits& limits,
                                                     std::string* error) {
  static std::atomic<uint64_t> next{0};
  if (support.root.empty()) {
    *error = support.missing;
    return nullptr;
  }
  const std::string path =
      support.root + "/" + kLeafPrefix + std::to_string(::getpid()) + "-" + std::to_string(next++);
  if (::mkdir(path.c_str(), 0755) != 0) {
    *error = "cannot create cgroup " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  bool ok = true;
  if (support.memory && limits.memory_bytes > 0) {
    ok = WriteText(path + "/memory.max", std::to_string(limits.memory_bytes), error);
    struct stat st;
    if (ok && ::stat((path + "/memory.swap.max").c_str(), &st) == 0) {
      ok = WriteText(path + "/memory.swap.max", "0", error);
    }
  }
  if (ok && support.pids && limits.pids > 0) {
    ok = WriteText(path + "/pids.max", std::to_string(limits.pids), error);
  }
  if (ok && support.cpu && limits.cpu_cores > 0) {
    const auto quota = static_cast<int64_t>(std::llround(limits.cpu_cores * kCpuPeriodUs));
    ok = WriteText(
        path + "/cpu.max",
        std::to_string(std::max<int64_t>(quota, 1000)) + " " + std::to_string(kCpuPeriodUs), error);
  }
  const int procs =
      ok ? ::open((path + "/cgroup.procs").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644) : -1;
  if (procs < 0) {
    if (ok) *error = "cannot open " + path + "/cgroup.procs: " + std::strerror(errno);
    ::rmdir(path.c_str());
    return nullptr;
  }
  return std::unique_ptr<SandboxCgroup>(new SandboxCgroup(path, procs));
}

SandboxCgroup::~SandboxCgroup() {
  if (procs_fd_ >= 0) ::close(procs_fd_);
  ::rmdir(path_.c_str());
}

}  // namespace jigsaw::faas
