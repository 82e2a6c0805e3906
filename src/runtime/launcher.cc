#include "runtime/launcher.h"

#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/error.h"

extern char** environ;

namespace jigsaw {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> OwnCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  if (args.empty()) throw std::runtime_error("cannot read /proc/self/cmdline");
  return args;
}

// Starts `argv` as a child that the kernel SIGKILLs when this process dies (PR_SET_PDEATHSIG),
// so a killed launcher never leaves its workers training on their own. Returns the pid or -1.
pid_t SpawnTiedToParent(const std::string& exe, const std::vector<char*>& argv) {
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid != 0) return pid;
  // Child: only async-signal-safe calls until exec.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) _exit(127);
  if (getppid() != parent) _exit(127);  // the launcher died before prctl took effect
  execve(exe.c_str(), argv.data(), environ);
  _exit(127);
}

std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) {
    return std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

int LaunchLocalWorkers(int workers, double grace_s) {
  if (workers < 1) throw UsageError("--workers must be at least 1");
  // The rendezvous: a file in a folder only this user can enter (no network listener).
  // Named after this process, so a later launch removes the folders of launchers that were
  // killed before they could (their pid no longer exists).
  const std::filesystem::path temp = std::filesystem::temp_directory_path();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(temp, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("jigsaw_rendezvous_", 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + 18, nullptr, 10);
    if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::filesystem::remove_all(entry.path(), ec);
    }
  }
  std::string folder =
      (temp / ("jigsaw_rendezvous_" + std::to_string(getpid()) + "_XXXXXX")).string();
  if (mkdtemp(folder.data()) == nullptr) {
    throw std::runtime_error("cannot create a rendezvous folder: " +
                             std::string(std::strerror(errno)));
  }
  struct RemoveFolder {
    std::string path;
    ~RemoveFolder() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } remove_folder{folder};
  const std::string rendezvous = folder + "/store";
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<pid_t> pids(workers, -1);
  for (int k = 0; k < workers; ++k) {
    std::vector<std::string> args = OwnCommandLine();
    args.insert(args.end(), {"--rank", std::to_string(k), "--world", std::to_string(workers),
                             "--rendezvous-file", rendezvous});
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pids[k] = SpawnTiedToParent(exe, argv);
    if (pids[k] < 0) {
      for (int started = 0; started < k; ++started) {
        kill(pids[started], SIGKILL);
        waitpid(pids[started], nullptr, 0);
      }
      throw std::runtime_error("cannot start worker " + std::to_string(k) + ": " +
                               std::strerror(errno));
    }
  }
  std::vector<std::string> failures;
  int running = workers;
  Clock::time_point deadline = Clock::time_point::max();
  while (running > 0) {
    for (int k = 0; k < workers; ++k) {
      int status = 0;
      if (pids[k] < 0 || waitpid(pids[k], &status, WNOHANG) != pids[k]) continue;
      pids[k] = -1;
      --running;
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
      failures.push_back("worker " + std::to_string(k) + " " + DescribeExit(status));
      if (deadline == Clock::time_point::max()) {
        deadline = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(grace_s * 1000));
      }
    }
    if (running > 0 && Clock::now() > deadline) {
      for (int k = 0; k < workers; ++k) {
        if (pids[k] < 0) continue;
        kill(pids[k], SIGKILL);
        waitpid(pids[k], nullptr, 0);
        pids[k] = -1;
        --running;
        failures.push_back("worker " + std::to_string(k) + " did not exit in time, killed");
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (failures.empty()) return 0;
  std::string message;
  for (const std::string& f : failures) message += (message.empty() ? "" : "; ") + f;
  std::fprintf(stderr, "jigsaw: train failed: %s\n", message.c_str());
  return 1;
}

}  // namespace jigsaw
