#include "faas/sandbox_pause.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "faas/proc_file.h"

namespace jigsaw::faas {
namespace {

bool WriteText(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

bool Stopped(pid_t pid) {
  const std::string stat = ReadProcFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'T';
}

template <typename Done>
bool PollUntil(Done done) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return true;
}

}  // namespace

const char* PauseMechanismName(PauseMechanism m) {
  return m == PauseMechanism::kFreezer ? "cgroup-v2-freezer" : "sigstop";
}

bool SandboxPause::FreezerUsable() {
  static std::once_flag once;
  static bool usable = false;
  std::call_once(once, [] {
    const std::string root = CgroupV2Root();
    if (root.empty()) return;
    const std::string probe = root + "/jigsaw-probe-" + std::to_string(::getpid());
    if (::mkdir(probe.c_str(), 0755) != 0) return;
    struct stat st;
    usable = ::stat((probe + "/cgroup.freeze").c_str(), &st) == 0;
    ::rmdir(probe.c_str());
  });
  return usable;
}

SandboxPause::SandboxPause(pid_t pid, bool want_freezer, const std::string& cgroup) : pid_(pid) {
  if (!want_freezer || !FreezerUsable()) return;
  struct stat st;
  if (!cgroup.empty()) {
    if (::stat((cgroup + "/cgroup.freeze").c_str(), &st) != 0) return;
    cgroup_ = cgroup;
    mechanism_ = PauseMechanism::kFreezer;
    return;
  }
  const std::string dir =
      CgroupV2Root() + "/jigsaw-sandbox-" + std::to_string(::getpid()) + "-" + std::to_string(pid);
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return;
  if (!WriteText(dir + "/cgroup.procs", std::to_string(pid))) {
    ::rmdir(dir.c_str());
    return;
  }
  cgroup_ = dir;
  owns_cgroup_ = true;
  mechanism_ = PauseMechanism::kFreezer;
}

SandboxPause::~SandboxPause() {
  if (cgroup_.empty()) return;  // no SIGCONT here: the pid may be reaped and reused by now
  if (paused_) WriteText(cgroup_ + "/cgroup.freeze", "0");
  if (owns_cgroup_) ::rmdir(cgroup_.c_str());
}

bool SandboxPause::Pause() {
  if (paused_) return true;
  bool ok;
  if (mechanism_ == PauseMechanism::kFreezer) {
    ok = WriteText(cgroup_ + "/cgroup.freeze", "1") && PollUntil([this] {
           return ReadProcFile(cgroup_ + "/cgroup.events").find("frozen 1") != std::string::npos;
         });
  } else {
    ok = ::kill(pid_, SIGSTOP) == 0 && PollUntil([this] { return Stopped(pid_); });
  }
  paused_ = true;  // even when not confirmed: Resume must undo a half-done pause
  return ok;
}

bool SandboxPause::Resume() {
  if (!paused_) return true;
  paused_ = false;
  if (mechanism_ == PauseMechanism::kFreezer) return WriteText(cgroup_ + "/cgroup.freeze", "0");
  return ::kill(pid_, SIGCONT) == 0;
}

}  // namespace jigsaw::faas
