// The TensorLights agent's tc plan (exact argument vectors), its priority bands, option parsing,
// and the fork/exec command runner.
#include "tlights/plan.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "tlights/command_runner.h"

namespace jigsaw::tlights {
namespace {

TlightsConfig Config(Policy policy, std::vector<int> ports) {
  TlightsConfig config;
  config.policy = policy;
  config.dev = "eth0";
  config.ports = std::move(ports);
  config.rate = "200mbit";
  return config;
}

std::vector<std::string> Lines(const std::vector<TcCommand>& plan) {
  std::vector<std::string> lines;
  for (const TcCommand& c : plan) lines.push_back(FormatCommand(c));
  return lines;
}

TEST(TlightsPlan, BandsFollowTensorLights) {
  EXPECT_EQ(PriorityBands(3, 0), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(PriorityBands(3, 1), (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(PriorityBands(3, 2), (std::vector<int>{2, 0, 1}));
  EXPECT_EQ(PriorityBands(3, 3), PriorityBands(3, 0));
  // More jobs than the 7 bands: ceil(n/7) jobs share a band.
  EXPECT_EQ(PriorityBands(10, 0), (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3, 4, 4}));
  EXPECT_EQ(PriorityBands(10, 1), (std::vector<int>{0, 1, 1, 2, 2, 3, 3, 4, 4, 0}));
  for (int r = 0; r < 21; ++r) {
    for (int band : PriorityBands(21, r)) {
      EXPECT_GE(band, 0);
      EXPECT_LT(band, kBands);
    }
  }
}

TEST(TlightsPlan, StaticInstallPlan) {
  const auto lines = Lines(InstallPlan(Config(Policy::kStatic, {5001, 5002, 5003}), 0));
  const std::vector<std::string> expected = {
      "tc qdisc add dev eth0 root handle 1: htb default 10",
      "tc class add dev eth0 parent 1: classid 1:1 htb rate 200mbit ceil 200mbit",
      "tc class add dev eth0 parent 1:1 classid 1:10 htb rate 100kbit ceil 200mbit prio 7",
      "tc class add dev eth0 parent 1:1 classid 1:11 htb rate 100kbit ceil 200mbit prio 0",
      "tc class add dev eth0 parent 1:1 classid 1:12 htb rate 100kbit ceil 200mbit prio 1",
      "tc class add dev eth0 parent 1:1 classid 1:13 htb rate 100kbit ceil 200mbit prio 2",
      "tc filter add dev eth0 protocol ip parent 1: prio 1 u32 match ip sport 5001 0xffff flowid "
      "1:11",
      "tc filter add dev eth0 protocol ip parent 1: prio 1 u32 match ip sport 5002 0xffff flowid "
      "1:12",
      "tc filter add dev eth0 protocol ip parent 1: prio 1 u32 match ip sport 5003 0xffff flowid "
      "1:13",
  };
  EXPECT_EQ(lines, expected);
  EXPECT_TRUE(RotatePlan(Config(Policy::kStatic, {5001, 5002, 5003}), 1).empty());
}

TEST(TlightsPlan, FifoIsOneSharedClassAtTheLinkRate) {
  const auto lines = Lines(InstallPlan(Config(Policy::kFifo, {5001, 5002}), 0));
  const std::vector<std::string> expected = {
      "tc qdisc add dev eth0 root handle 1: htb default 10",
      "tc class add dev eth0 parent 1: classid 1:1 htb rate 200mbit ceil 200mbit",
      "tc class add dev eth0 parent 1:1 classid 1:10 htb rate 200mbit ceil 200mbit prio 0",
  };
  EXPECT_EQ(lines, expected);
}

TEST(TlightsPlan, RotateChangesClassPriorities) {
  const TlightsConfig config = Config(Policy::kRotate, {5001, 5002, 5003});
  EXPECT_EQ(Lines(InstallPlan(config, 0)),
            Lines(InstallPlan(Config(Policy::kStatic, {5001, 5002, 5003}), 0)));
  const std::vector<std::string> expected = {
      "tc class change dev eth0 parent 1:1 classid 1:11 htb rate 100kbit ceil 200mbit prio 1",
      "tc class change dev eth0 parent 1:1 classid 1:12 htb rate 100kbit ceil 200mbit prio 2",
      "tc class change dev eth0 parent 1:1 classid 1:13 htb rate 100kbit ceil 200mbit prio 0",
  };
  EXPECT_EQ(Lines(RotatePlan(config, 1)), expected);
  // Only classes whose band changes are touched (10 jobs, 2 per band).
  EXPECT_EQ(RotatePlan(Config(Policy::kRotate, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), 1).size(), 5u);
}

TEST(TlightsPlan, RemovalDeletesTheRootQdisc) {
  EXPECT_EQ(Lines(RemovePlan(Config(Policy::kRotate, {5001}))),
            (std::vector<std::string>{"tc qdisc del dev eth0 root"}));
}

TEST(TlightsPlan, OptionParsing) {
  EXPECT_EQ(ParsePolicy("fifo"), Policy::kFifo);
  EXPECT_EQ(ParsePolicy("rotate"), Policy::kRotate);
  EXPECT_THROW(ParsePolicy("tlsrr"), UsageError);
  EXPECT_DOUBLE_EQ(ParseDuration("20s", "--interval"), 20);
  EXPECT_DOUBLE_EQ(ParseDuration("500ms", "--interval"), 0.5);
  EXPECT_DOUBLE_EQ(ParseDuration("2m", "--interval"), 120);
  EXPECT_DOUBLE_EQ(ParseDuration("1.5", "--interval"), 1.5);
  EXPECT_THROW(ParseDuration("0s", "--interval"), UsageError);
  EXPECT_THROW(ParseDuration("soon", "--interval"), UsageError);
  EXPECT_EQ(ParsePorts("5001,5002"), (std::vector<int>{5001, 5002}));
  EXPECT_THROW(ParsePorts("5001,,5002"), UsageError);
  EXPECT_THROW(ParsePorts("5001,5001"), UsageError);
  EXPECT_THROW(ParsePorts("70000"), UsageError);
  TlightsConfig config = Config(Policy::kStatic, {5001});
  EXPECT_NO_THROW(ValidateConfig(config));
  config.rate = "fast";
  EXPECT_THROW(ValidateConfig(config), UsageError);
  config = Config(Policy::kStatic, {});
  EXPECT_THROW(ValidateConfig(config), UsageError);
  config.policy = Policy::kFifo;
  EXPECT_NO_THROW(ValidateConfig(config));
}

TEST(CommandRunner, ReportsExitStatusAndOutput) {
  CommandResult ok = RunCommand({"sh", "-c", "echo hello"});
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.output, "hello\n");
  CommandResult failed = RunCommand({"sh", "-c", "echo 'RTNETLINK answers: nope' >&2; exit 2"});
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.exit_status, 2);
  try {
    RunChecked({"sh", "-c", "echo 'RTNETLINK answers: nope' >&2; exit 2"});
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("failed (exit status 2): RTNETLINK answers: nope"),
              std::string::npos)
        << e.what();
  }
  CommandResult missing = RunCommand({"/nonexistent/tc", "qdisc"});
  EXPECT_FALSE(missing.started);
  EXPECT_NE(missing.output.find("cannot run /nonexistent/tc"), std::string::npos);
  // Arguments are passed as they are, never through a shell.
  CommandResult literal = RunCommand({"echo", "a;b $HOME"});
  EXPECT_EQ(literal.output, "a;b $HOME\n");
}

// A non-root user's PATH lacks /usr/sbin, where Debian puts tc: RunCommand looks there too, so
// the agent reports tc's own error (not permitted) instead of "No such file or directory".
TEST(CommandRunner, FindsProgramsInSbinWhenPathLacksIt) {
  if (!std::filesystem::exists("/usr/sbin/tc") && !std::filesystem::exists("/sbin/tc")) {
    GTEST_SKIP() << "no tc in /usr/sbin or /sbin (iproute2 not installed)";
  }
  const char* saved = std::getenv("PATH");
  const std::string saved_path = saved ? saved : "";
  ::setenv("PATH", "/usr/bin:/bin", 1);
  CommandResult version = RunCommand({"tc", "-V"});
  ::setenv("PATH", saved_path.c_str(), 1);
  EXPECT_TRUE(version.started) << version.output;
  EXPECT_TRUE(version.ok()) << version.output;
  EXPECT_NE(version.output.find("tc"), std::string::npos) << version.output;
  CommandResult missing = RunCommand({"no-such-program-anywhere"});
  EXPECT_FALSE(missing.started);
  EXPECT_NE(missing.output.find("cannot run no-such-program-anywhere"), std::string::npos);
}

}  // namespace
}  // namespace jigsaw::tlights
