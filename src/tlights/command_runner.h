// Running an external program (tc) by argument vector: posix_spawnp, no shell, so no quoting
// or injection issues. Torch-free.
//
// RunCommand captures the child's stdout and stderr together, waits for it and reports how it
// ended. The child starts with an empty signal mask and default SIGINT/SIGTERM/SIGHUP handling,
// even when the caller blocks those signals to sigwait for them. RunChecked throws
// std::runtime_error "`tc qdisc add ...` failed (exit status 2): RTNETLINK answers: ..." when the
// program cannot be started or does not exit 0.
#ifndef JIGSAW_TLIGHTS_COMMAND_RUNNER_H_
#define JIGSAW_TLIGHTS_COMMAND_RUNNER_H_

#include <string>
#include <vector>

namespace jigsaw::tlights {

struct CommandResult {
  bool started = false;
  int exit_status = -1;  // when it exited
  int signal = 0;        // when a signal ended it
  std::string output;    // stdout and stderr; the start error when !started
  bool ok() const { return started && signal == 0 && exit_status == 0; }
};

CommandResult RunCommand(const std::vector<std::string>& argv);
// Returns the output.
std::string RunChecked(const std::vector<std::string>& argv);

}  // namespace jigsaw::tlights

#endif  // JIGSAW_TLIGHTS_COMMAND_RUNNER_H_
