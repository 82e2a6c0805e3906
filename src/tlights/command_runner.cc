#include "tlights/command_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "tlights/plan.h"

extern char** environ;

namespace jigsaw::tlights {

CommandResult RunCommand(const std::vector<std::string>& argv) {
  CommandResult result;
  if (argv.empty()) {
    result.output = "empty command";
    return result;
  }
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    result.output = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t empty;
  sigemptyset(&empty);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGHUP);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attributes, &empty);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> args;
  for (const std::string& argument : argv) args.push_back(const_cast<char*>(argument.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int spawn_error = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
  // Debian installs tc in /usr/sbin, which is not on a non-root user's PATH (sudo adds it): look
  // there too, so the caller sees tc's own "Operation not permitted" rather than "not found".
  if (spawn_error == ENOENT && argv[0].find('/') == std::string::npos) {
    for (const char* folder : {"/usr/sbin/", "/sbin/"}) {
      const std::string path = folder + argv[0];
      spawn_error = posix_spawn(&pid, path.c_str(), &actions, &attributes, args.data(), environ);
      if (spawn_error != ENOENT) break;
    }
  }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(pipe_fds[1]);
  if (spawn_error != 0) {
    close(pipe_fds[0]);
    result.output = "cannot run " + argv[0] + ": " + std::strerror(spawn_error);
    return result;
  }
  result.started = true;
  char buffer[4096];
  while (true) {
    ssize_t got = read(pipe_fds[0], buffer, sizeof(buffer));
    if (got > 0) {
      result.output.append(buffer, static_cast<size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      break;
    }
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      result.output += std::string("waitpid: ") + std::strerror(errno);
      return result;
    }
  }
  if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

std::string RunChecked(const std::vector<std::string>& argv) {
  CommandResult result = RunCommand(argv);
  if (result.ok()) return result.output;
  std::string output = result.output;
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  std::string how;
  if (!result.started) {
    how = "could not be started";
  } else if (result.signal != 0) {
    how = "was killed by signal " + std::to_string(result.signal);
  } else {
    how = "failed (exit status " + std::to_string(result.exit_status) + ")";
  }
  throw std::runtime_error("`" + FormatCommand(argv) + "` " + how +
                           (output.empty() ? "" : ": " + output));
}

}  // namespace jigsaw::tlights
