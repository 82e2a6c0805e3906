#include "faas/sandbox_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <vector>

#include "faas/function_code.h"
#include "faas/sandbox_cgroup.h"

namespace jigsaw::faas {
namespace {

std::atomic<bool> g_isolate{true};
std::once_flag g_fallback_message;

bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool ReadAll(int fd, char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Once per process: where sandboxes get no cgroup limits, say so and why.
void ReportCgroupSupport(const SandboxOptions& options) {
  static std::once_flag reported;
  if (!options.isolate) return;
  std::call_once(reported, [&options] {
    const CgroupSupport& support = SandboxCgroup::Probe(options.cgroup_root);
    if (!support.missing.empty()) {
      std::fprintf(stderr, "jigsaw faas: sandbox cgroup limits are not all applied: %s\n",
                   support.missing.c_str());
    }
  });
}

// "state X in WCHAN" of a live process from /proc (what a sandbox that never got ready was doing).
std::string ProcessState(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return "state unknown";
  std::ifstream wchan("/proc/" + std::to_string(pid) + "/wchan");
  std::string where;
  std::getline(wchan, where);
  return std::string("state ") + text[close + 2] + (where.empty() ? "" : " in " + where);
}

}  // namespace

bool WriteFrame(int fd, const std::string& data) {
  if (data.size() > kMaxFrameBytes) return false;
  const uint32_t n = static_cast<uint32_t>(data.size());
  const char header[4] = {static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff),
                          static_cast<char>((n >> 16) & 0xff), static_cast<char>(n >> 24)};
  return WriteAll(fd, header, 4) && WriteAll(fd, data.data(), data.size());
}

bool ReadFrame(int fd, std::string* data) {
  unsigned char header[4];
  if (!ReadAll(fd, reinterpret_cast<char*>(header), 4)) return false;
  const uint32_t n =
      header[0] | (header[1] << 8) | (header[2] << 16) | (static_cast<uint32_t>(header[3]) << 24);
  if (n > kMaxFrameBytes) return false;
  data->resize(n);
  return ReadAll(fd, data->data(), n);
}

bool SandboxProcess::Isolated() { return g_isolate.load(); }

std::unique_ptr<SandboxProcess> SandboxProcess::Spawn(
    const std::string& jigsaw_exe, const std::string& code, const std::string& cifar_archive,
    std::string* error, int ready_timeout_ms, int cancel_fd, const SandboxOptions& options) {
  // A write to a sandbox that just died must fail with EPIPE, not kill the host process.
  static std::once_flag ignore_sigpipe;
  std::call_once(ignore_sigpipe, [] { ::signal(SIGPIPE, SIG_IGN); });
  ReportCgroupSupport(options);
  std::vector<std::string> args = {"faas-sandbox", "--function", code};
  if (!cifar_archive.empty()) {
    args.push_back("--data");
    args.push_back(options.isolate && g_isolate.load() ? SandboxJail::DataPathInside(cifar_archive)
                                                       : cifar_archive);
  }
  std::unique_ptr<SandboxJail> jail = SandboxJail::Prepare(
      options, jigsaw_exe, args, cifar_archive, options.isolate && g_isolate.load(), error);
  if (!jail) {
    *error = "cannot prepare a sandbox: " + *error;
    return nullptr;
  }
  int to_child[2], from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return nullptr;
  }
  if (::pipe2(from_child, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    ::close(to_child[0]);
    ::close(to_child[1]);
    return nullptr;
  }
  pid_t pid = -1;
  if (jail->namespaces()) {
    // Raw clone without a new stack behaves like fork (copy-on-write), in new namespaces.
    pid = static_cast<pid_t>(::syscall(SYS_clone, SandboxJail::CloneFlags() | SIGCHLD, nullptr,
                                       nullptr, nullptr, nullptr));
    if (pid == 0) jail->EnterAndExec(to_child[0], from_child[1]);
    if (pid < 0 && (errno == EPERM || errno == EINVAL || errno == ENOSPC || errno == EUSERS)) {
      const int saved = errno;
      g_isolate.store(false);
      std::call_once(g_fallback_message, [saved] {
        std::fprintf(stderr,
                     "jigsaw faas: sandboxes run without namespaces, in the host's root "
                     "(clone with CLONE_NEWNS|CLONE_NEWPID|CLONE_NEWNET|CLONE_NEWIPC refused: "
                     "%s); they still get no inherited descriptors, no_new_privs and the "
                     "seccomp filter\n",
                     std::strerror(saved));
      });
      if (!cifar_archive.empty()) args.back() = cifar_archive;
      jail = SandboxJail::Prepare(options, jigsaw_exe, args, cifar_archive, false, error);
      if (!jail) {
        *error = "cannot prepare a sandbox: " + *error;
        for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) ::close(fd);
        return nullptr;
      }
    }
  }
  if (pid < 0 && !jail->namespaces()) {
    pid = ::fork();
    if (pid == 0) jail->EnterAndExec(to_child[0], from_child[1]);
  }
  const int spawn_errno = errno;
  ::close(to_child[0]);
  ::close(from_child[1]);
  if (pid < 0) {
    *error = std::string("cannot create a sandbox process: ") + std::strerror(spawn_errno);
    ::close(to_child[1]);
    ::close(from_child[0]);
    return nullptr;
  }
  std::unique_ptr<SandboxProcess> sandbox(new SandboxProcess(pid, to_child[1], from_child[0]));
  sandbox->jail_ = std::move(jail);
  // A sandbox that never finishes initialising must not hold its SGS forever, nor its shutdown.
  pollfd wait_for[2] = {{sandbox->from_child_, POLLIN, 0}, {cancel_fd, POLLIN, 0}};
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(ready_timeout_ms);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      const std::string state = ProcessState(sandbox->pid());
      *error = "sandbox " + code + " not ready within " + std::to_string(ready_timeout_ms) +
               " ms (" + state + "; " + sandbox->Reap() + ")";
      return nullptr;
    }
    const int polled = ::poll(wait_for, cancel_fd >= 0 ? 2 : 1, static_cast<int>(left));
    if (polled < 0 && errno == EINTR) continue;
    if (polled > 0 && cancel_fd >= 0 && (wait_for[1].revents & (POLLIN | POLLHUP))) {
      *error = "sandbox " + code + " cancelled while initialising (" + sandbox->Reap() + ")";
      return nullptr;
    }
    if (polled != 0) break;  // ready frame, EOF or error: read below
  }
  std::string hello;
  if (!ReadFrame(sandbox->from_child_, &hello)) {
    *error = "sandbox " + code + " exited before it was ready (" + sandbox->Reap() + ")";
    return nullptr;
  }
  if (hello != "ready") {
    std::string setup;
    *error = "sandbox " + code + ": " +
             (SandboxJail::DescribeFailure(hello, &setup) ? setup + " (" + sandbox->Reap() + ")"
                                                          : hello);
    return nullptr;
  }
  return sandbox;
}

SandboxProcess::~SandboxProcess() {
  Kill();
  Reap();
  ::close(to_child_);
  ::close(from_child_);
}

void SandboxProcess::Kill() {
  if (!reaped_) ::kill(pid_, SIGKILL);
}

std::string SandboxProcess::Reap() {
  if (reaped_) return "already reaped";
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  if (WIFSIGNALED(status)) {
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

bool SandboxProcess::Invoke(const std::string& payload, bool* ok, std::string* result,
                            std::string* error) {
  std::string reply;
  if (reaped_ || !WriteFrame(to_child_, payload) || !ReadFrame(from_child_, &reply)) {
    *error = "sandbox pid " + std::to_string(pid_) + " died mid-request: " + Reap();
    return false;
  }
  if (reply.rfind("ok ", 0) == 0) {
    *ok = true;
    *result = reply.substr(3);
  } else {
    *ok = false;
    *result = reply;
  }
  return true;
}

uint64_t SandboxProcess::RssBytes() const {
  if (reaped_) return 0;
  std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
    }
  }
  return 0;
}

int RunSandbox(const std::string& code_text, const std::string& cifar_archive) {
  ::signal(SIGPIPE, SIG_IGN);
  FunctionCode code;
  std::string error;
  if (!ParseFunctionCode(code_text, &code, &error)) {
    WriteFrame(1, "error: --function " + error);
    return 2;
  }
  std::unique_ptr<FunctionRunner> runner;
  try {
    runner = std::make_unique<FunctionRunner>(code, cifar_archive);
  } catch (const std::exception& e) {
    WriteFrame(1, std::string("error: ") + e.what());
    return 2;
  }
  if (!WriteFrame(1, "ready")) return 1;
  std::string payload;
  while (ReadFrame(0, &payload)) {
    std::string reply;
    try {
      reply = "ok " + runner->Invoke(payload);
    } catch (const std::exception& e) {
      reply = std::string("error: ") + e.what();
    }
    if (!WriteFrame(1, reply)) return 1;
  }
  return 0;
}

}  // namespace jigsaw::faas
