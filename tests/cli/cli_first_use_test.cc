// What a first-time user meets (docs/cli.md): global flags before or after every subcommand, of
// jigsaw and of jigsaw-runtime; every option described; usage errors exit 2 with one message;
// results without -1 sentinels; the result summaries; the default --out folders.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "test_util/shell.h"

namespace jigsaw {
namespace {

using test_util::CommandResult;
using test_util::RunShell;
using test_util::Slurp;

CommandResult Jigsaw(const std::string& args) {
  return RunShell(std::string(JIGSAW_BINARY) + " " + args + " 2>&1");
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

size_t Count(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

std::vector<std::string> AllSubcommands() {
  std::vector<std::string> names;
  const CommandResult top = Jigsaw("--help");
  std::istringstream lines(top.output.substr(top.output.find("Subcommands:")));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line)) {
    if (line.size() > 2 && line[0] == ' ' && line[2] != ' ') {
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
  }
  return names;
}

// Before or after: the subcommand is found and parses its own options (its usage is shown), for
// jigsaw's subcommands and those run by jigsaw-runtime alike. Short and long forms are the same
// flags (cli_main.cc), so each position is tried with one of them.
TEST(CliFirstUse, GlobalFlagsGoBeforeOrAfterEverySubcommand) {
  const std::vector<std::string> subcommands = AllSubcommands();
  ASSERT_GE(subcommands.size(), 20u);
  for (const std::string& sub : subcommands) {
    for (const std::string& args : {"-q " + sub + " --help", sub + " -v --help"}) {
      const CommandResult help = Jigsaw(args);
      EXPECT_EQ(help.exit_code, 0) << "jigsaw " << args << "\n" << help.output;
      EXPECT_TRUE(Contains(help.output, " " + sub + " [OPTIONS]")) << "jigsaw " << args << "\n"
                                                                   << help.output;
    }
  }
  // An unknown option is still named as such after a global flag (not the subcommand).
  for (const std::string& args :
       {"--verbose sim --no-such-option 1", "--quiet train --no-such-option 1"}) {
    const CommandResult r = Jigsaw(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_TRUE(Contains(r.output, "--no-such-option")) << args << "\n" << r.output;
  }
}

TEST(CliFirstUse, QuietBeforeOrAfterSilencesARun) {
  const auto dir = test_util::FreshTempDir("jigsaw_cli_", "quiet_after");
  for (const std::string& args : {"-q sim --jobs 5 --gpus 4", "sim --jobs 5 --gpus 4 -q",
                                  "--quiet net --topology fattree:k=4 --traffic incast:3:10KB",
                                  "net --topology fattree:k=4 --traffic incast:3:10KB -q"}) {
    const CommandResult r = Jigsaw(args + " --out " + (dir / "run").string());
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    EXPECT_EQ(r.output, "") << args;
  }
  std::filesystem::remove_all(dir);
}

TEST(CliFirstUse, EveryOptionHasADescription) {
  for (const std::string& binary :
       {std::string(JIGSAW_BINARY), std::string(JIGSAW_BUILD_DIR) + "/jigsaw-runtime"}) {
    const CommandResult list = RunShell(binary + " --list-options");
    ASSERT_EQ(list.exit_code, 0) << list.output;
    std::istringstream lines(list.output);
    size_t options = 0;
    for (std::string line; std::getline(lines, line); ++options) {
      const size_t second_tab = line.find('\t', line.find('\t') + 1);
      ASSERT_NE(second_tab, std::string::npos) << line;
      EXPECT_LT(second_tab + 1, line.size()) << binary << ": no description: " << line;
    }
    EXPECT_GT(options, 20u) << list.output;
  }
}

TEST(CliFirstUse, UnknownTrainModelExitsTwoWithOneMessage) {
  const CommandResult r = Jigsaw("train --model vgg --quiet --out /tmp/jigsaw_cli_vgg_unused");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(Count(r.output, "--model 'vgg'"), 1u) << r.output;
  EXPECT_TRUE(Contains(r.output, "expected mlp, lenet")) << r.output;
}

TEST(CliFirstUse, NetEndsWithAResultSummaryNamingItsFiles) {
  const auto dir = test_util::FreshTempDir("jigsaw_cli_", "summaries");
  const CommandResult net =
      Jigsaw("net --topology fattree:k=4 --traffic incast:3:10KB --out " + (dir / "net").string());
  ASSERT_EQ(net.exit_code, 0) << net.output;
  EXPECT_TRUE(Contains(net.output, "files written:")) << net.output;
  EXPECT_TRUE(Contains(net.output, (dir / "net" / "flows.csv").string())) << net.output;
  EXPECT_TRUE(Contains(net.output, "FCT")) << net.output;
  std::filesystem::remove_all(dir);
}

// A job still running when the measurement window ends has no finish, JCT or rho: empty cells,
// never -1 or 0 (docs/outputs.md). fl, ps-worker and serve-bench have their own checks
// (FlCliTest.FashionGroupsRunWritesRoundsAndClients, PsTrainCli.ServerAndTwoWorkersTrainAnMlp).
TEST(CliFirstUse, NoMinusOneSentinelsInOutputs) {
  const auto dir = test_util::FreshTempDir("jigsaw_cli_", "sentinels");
  const CommandResult sim =
      Jigsaw("sim --jobs 40 --gpus 8 --measure-window 0:5 --quiet --out " + (dir / "sim").string());
  ASSERT_EQ(sim.exit_code, 0) << sim.output;
  const std::string jobs = Slurp(dir / "sim" / "jobs.csv");
  EXPECT_EQ(jobs.find(",-1"), std::string::npos) << jobs;
  size_t unfinished = 0;
  std::istringstream lines(jobs);
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream fields(line);
    while (std::getline(fields, cell, ',')) cells.push_back(cell);
    cells.resize(14);
    if (!cells[6].empty()) continue;  // finish_s
    ++unfinished;
    EXPECT_EQ(cells[7], "") << line;  // jct_s
    EXPECT_EQ(cells[9], "") << line;  // rho
  }
  EXPECT_GT(unfinished, 0u) << jobs;
  std::filesystem::remove_all(dir);
}

// Every subcommand that writes a result folder has a default --out (out/<subcommand>), shown in its
// help, as sim and train always had.
TEST(CliFirstUse, OutDefaultsAreConsistent) {
  for (const std::string& sub : {"sim", "net", "d2r", "faas-sim", "faas-load", "serve-bench",
                                 "train", "profile", "fl", "report"}) {
    const CommandResult help = Jigsaw(sub + " --help");
    ASSERT_EQ(help.exit_code, 0) << sub << "\n" << help.output;
    const size_t out = help.output.find("  --out ");
    ASSERT_NE(out, std::string::npos) << sub << "\n" << help.output;
    const std::string line = help.output.substr(out, help.output.find('\n', out) - out);
    EXPECT_TRUE(Contains(line, "=out/")) << sub << ": " << line;
  }
}

// The man page (built by help2man with scripts/man_include.sh) has the sections help2man cannot
// take from --help.
TEST(CliFirstUse, ManPageHasExamplesExitStatusAndEnvironment) {
  const std::filesystem::path man = std::filesystem::path(JIGSAW_BUILD_DIR) / "jigsaw.1";
  if (!std::filesystem::exists(man)) GTEST_SKIP() << "no " << man << " (help2man absent)";
  const std::string page = Slurp(man);
  for (const char* section : {".SH EXAMPLES", ".SH \"EXIT STATUS\"", ".SH ENVIRONMENT"}) {
    EXPECT_TRUE(Contains(page, section)) << section;
  }
  EXPECT_TRUE(Contains(page, "JIGSAW_DATA_DIR"));
}

// The quick start's build (-DJIGSAW_QUICKSTART=ON, scripts/quickstart.sh) compiles the cluster
// simulator's units only, at -O1: no other simulator, server, HTTP code or LibTorch. Checked on
// the configured compile commands (configuring takes seconds; building would take minutes).
TEST(CliFirstUse, QuickstartBuildCompilesTheClusterSimulatorOnly) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("jigsaw_quickstart_configure_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const CommandResult configure =
      RunShell("\"" CMAKE_COMMAND_PATH "\" -S \"" JIGSAW_SOURCE_DIR "\" -B " + dir.string() +
               " -DCMAKE_BUILD_TYPE=Release -DJIGSAW_QUICKSTART=ON -DJIGSAW_WITH_TORCH=OFF"
               " -DJIGSAW_BUILD_TESTS=OFF 2>&1");
  ASSERT_EQ(configure.exit_code, 0) << configure.output;
  const nlohmann::json commands = nlohmann::json::parse(Slurp(dir / "compile_commands.json"));
  std::filesystem::remove_all(dir);
  ASSERT_GT(commands.size(), 20u);
  EXPECT_LT(commands.size(), 100u);
  bool sim_command = false;
  for (const nlohmann::json& entry : commands) {
    const std::string file = entry.at("file").get<std::string>();
    const std::string command = entry.at("command").get<std::string>();
    sim_command = sim_command || Contains(file, "cli/sim_command.cc");
    for (const char* other :
         {"/net/", "/faas/", "/runtime/", "/serve/", "/report/", "/d2r/", "/paramsvc/", "/ps/",
          "/fl/", "/sweep/", "/tlights/", "http_", "net_command", "faas_command"}) {
      EXPECT_FALSE(Contains(file, other)) << file;
    }
    EXPECT_TRUE(Contains(command, " -O1")) << command;
  }
  EXPECT_TRUE(sim_command);
}

}  // namespace
}  // namespace jigsaw
