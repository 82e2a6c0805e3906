// The TensorLights agent for real: in a throwaway network namespace it installs the HTB qdisc,
// classes and filters, rotates priorities, and removes everything on SIGTERM and SIGINT; it
// refuses to overwrite an existing root qdisc and reports tc's error. Skips (with the reason)
// only where a network namespace cannot be created (no root / CAP_NET_ADMIN, no `ip`).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tlights/command_runner.h"

extern char** environ;

namespace jigsaw::tlights {
namespace {

using Clock = std::chrono::steady_clock;

class AgentNetnsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ns_ = "jigsaw-tltest-" + std::to_string(getpid());
    RunCommand({"ip", "netns", "del", ns_});  // a leftover of a crashed run
    CommandResult made = RunCommand({"ip", "netns", "add", ns_});
    if (!made.ok()) {
      GTEST_SKIP() << "cannot create a network namespace here (`ip netns add` "
                   << (made.started ? "said: " : "could not run: ") << made.output
                   << "); the agent's netns tests need root or CAP_NET_ADMIN";
    }
    created_ = true;
    CommandResult tc = RunCommand({"ip", "netns", "exec", ns_, "tc", "qdisc", "show"});
    if (!tc.ok()) GTEST_SKIP() << "tc is not usable here: " << tc.output;
    ASSERT_TRUE(Ip({"link", "add", "name", "tl0", "type", "veth", "peer", "name", "tl1"}));
    ASSERT_TRUE(Ip({"link", "set", "tl0", "up"}));
    ASSERT_TRUE(Ip({"link", "set", "tl1", "up"}));
    log_ = (std::filesystem::temp_directory_path() / (ns_ + ".log")).string();
  }

  void TearDown() override {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (created_) RunCommand({"ip", "netns", "del", ns_});
    if (!log_.empty()) std::filesystem::remove(log_);
  }

  bool Ip(std::vector<std::string> args) {
    args.insert(args.begin(), {"ip", "-n", ns_});
    CommandResult result = RunCommand(args);
    EXPECT_TRUE(result.ok()) << FormatCommandLine(args) << ": " << result.output;
    return result.ok();
  }

  static std::string FormatCommandLine(const std::vector<std::string>& args) {
    std::string text;
    for (const auto& a : args) text += a + " ";
    return text;
  }

  std::string Tc(const std::string& what) {
    CommandResult result = RunCommand({"tc", "-n", ns_, what, "show", "dev", "tl0"});
    EXPECT_TRUE(result.ok()) << result.output;
    return result.output;
  }

  // Starts `jigsaw tlights ARGS` inside the namespace, stderr to log_.
  void StartAgent(const std::vector<std::string>& agent_args, const std::string& dev = "tl0") {
    std::vector<std::string> args = {"ip",          "netns",   "exec",  ns_,
                                     JIGSAW_BINARY, "tlights", "--dev", dev};
    args.insert(args.end(), agent_args.begin(), agent_args.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_EQ(posix_spawnp(&pid_, "ip", &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
  }

  // Polls until `predicate` holds (true) or `seconds` pass (false).
  template <typename Predicate>
  bool WaitFor(double seconds, Predicate predicate) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < deadline) {
      if (predicate()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return predicate();
  }

  // Waits for the agent's exit; returns its exit status (-1: did not exit in time / by signal).
  int WaitAgent(double seconds) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    int status = 0;
    while (Clock::now() < deadline) {
      pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }

  std::string Log() {
    std::ifstream in(log_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  static int Count(const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }

  std::string ns_;
  std::string log_;
  bool created_ = false;
  pid_t pid_ = -1;
};

TEST_F(AgentNetnsTest, RotateInstallsRotatesAndRemovesOnSigterm) {
  StartAgent({"--policy", "rotate", "--interval", "700ms", "--ports", "5001,5002,5003", "--rate",
              "100mbit"});
  // The agent installs the classes, then the filters: wait for the whole setup.
  ASSERT_TRUE(WaitFor(
      30,
      [&] { return Count(Tc("class"), "class htb") == 5 && Count(Tc("filter"), "*flowid") == 3; }))
      << Tc("class") << Tc("filter") << Log();
  EXPECT_NE(Tc("qdisc").find("qdisc htb 1: root"), std::string::npos);
  // The default class and every job class: a small guaranteed rate, the link as ceiling.
  EXPECT_EQ(Count(Tc("class"), "rate 100Kbit ceil 100Mbit"), 4) << Tc("class");
  // Rotation r gives job j band (j + r) % 3: after the first interval job 0's class moves to
  // band 1 and job 2's to band 0, and so on. Rotations go on every 700 ms, so on a loaded
  // machine a poll may see any of them (no test may depend on the machine's speed):
  // wait (generously) until the agent logged its first rotation and tc shows a rotated state.
  auto rotated = [&] {
    const std::string classes = Tc("class");
    for (int r = 1; r < 3; ++r) {
      bool all = true;
      for (int j = 0; j < 3; ++j) {
        all = all && classes.find("1:1" + std::to_string(j + 1) + " parent 1:1 prio " +
                                  std::to_string((j + r) % 3) + " ") != std::string::npos;
      }
      if (all) return true;
    }
    return false;
  };
  ASSERT_TRUE(WaitFor(60,
                      [&] {
                        return Log().find("rotation 1: port 5001 -> prio 1") != std::string::npos &&
                               rotated();
                      }))
      << Tc("class") << Log();
  ASSERT_EQ(kill(pid_, SIGTERM), 0);
  EXPECT_EQ(WaitAgent(30), 0) << Log();
  EXPECT_EQ(Tc("qdisc").find("htb"), std::string::npos) << Tc("qdisc");
  EXPECT_EQ(Tc("class"), "");
  EXPECT_NE(Log().find("rotation 1: port 5001 -> prio 1"), std::string::npos) << Log();
  EXPECT_NE(Log().find("removed the qdisc from tl0"), std::string::npos) << Log();
}

TEST_F(AgentNetnsTest, FifoRemovesOnSigint) {
  StartAgent({"--policy", "fifo", "--rate", "50mbit"});
  ASSERT_TRUE(WaitFor(30, [&] { return Count(Tc("class"), "class htb") == 2; })) << Log();
  EXPECT_EQ(Count(Tc("filter"), "flowid"), 0);
  ASSERT_EQ(kill(pid_, SIGINT), 0);
  EXPECT_EQ(WaitAgent(30), 0) << Log();
  EXPECT_EQ(Tc("qdisc").find("htb"), std::string::npos) << Tc("qdisc");
}

TEST_F(AgentNetnsTest, RefusesAnExistingRootQdiscAndReportsTcsError) {
  ASSERT_TRUE(RunCommand({"tc", "-n", ns_, "qdisc", "add", "dev", "tl0", "root", "handle",
                          "5:", "tbf", "rate", "10mbit", "burst", "32kbit", "latency", "50ms"})
                  .ok());
  StartAgent({"--policy", "static", "--ports", "5001"});
  EXPECT_EQ(WaitAgent(30), 1) << Log();
  EXPECT_NE(Log().find("`tc qdisc add dev tl0 root handle 1: htb default 10` failed"),
            std::string::npos)
      << Log();
  EXPECT_NE(Tc("qdisc").find("qdisc tbf 5: root"), std::string::npos) << Tc("qdisc");
}

TEST_F(AgentNetnsTest, MissingDeviceIsAClearError) {
  StartAgent({"--policy", "static", "--ports", "5001"}, "nosuchdev0");
  EXPECT_EQ(WaitAgent(30), 1) << Log();
  EXPECT_NE(Log().find("install failed: `tc qdisc add dev nosuchdev0 root"), std::string::npos)
      << Log();
  EXPECT_NE(Log().find("Cannot find device"), std::string::npos) << Log();
}

}  // namespace
}  // namespace jigsaw::tlights
