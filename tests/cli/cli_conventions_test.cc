// The CLI conventions every subcommand follows (cli/cli_main.h, docs/cli.md): exit codes,
// --version, defaults in --help, the unknown-subcommand suggestion, the writable-output check
// before a run starts, the run record in summary.json and one rounds.csv schema.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_record.h"
#include "core/sha256.h"
#include "test_util/shell.h"

namespace jigsaw {
namespace {

using test_util::CommandResult;
using test_util::RunShell;
using test_util::Slurp;

CommandResult Jigsaw(const std::string& args) {
  return RunShell(std::string(JIGSAW_BINARY) + " " + args + " 2>&1");
}

std::filesystem::path TempDir(const std::string& name) {
  return test_util::FreshTempDir("jigsaw_cli_", name);
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliConventions, VersionPrintsProjectVersionAndExitsZero) {
  const CommandResult result = Jigsaw("--version");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(Contains(result.output, "jigsaw 0.")) << result.output;
}

TEST(CliConventions, HelpExitsZeroAndShowsDefaults) {
  const CommandResult top = Jigsaw("--help");
  EXPECT_EQ(top.exit_code, 0) << top.output;
  EXPECT_TRUE(Contains(top.output, "sim")) << top.output;
  const CommandResult sim = Jigsaw("sim --help");
  EXPECT_EQ(sim.exit_code, 0) << sim.output;
  // --round-s defaults to 120 s; --round-log to auto (CLI11 shows "NAME TYPE=DEFAULT").
  EXPECT_TRUE(Contains(sim.output, "--round-s FLOAT=120")) << sim.output;
  EXPECT_TRUE(Contains(sim.output, "--round-log TEXT=auto")) << sim.output;
  const CommandResult net = Jigsaw("net --help");
  EXPECT_EQ(net.exit_code, 0) << net.output;
  EXPECT_TRUE(Contains(net.output, "=")) << net.output;
}

TEST(CliConventions, EveryUsageErrorExitsTwo) {
  for (const std::string& args :
       {std::string(""), std::string("sim --gpus notanumber"), std::string("sim --no-such-flag"),
        std::string("sim --round-log sometimes --quiet --out /tmp/jigsaw_cli_unused"),
        std::string("d2r"), std::string("--no-such-global-flag")}) {
    const CommandResult result = Jigsaw(args);
    EXPECT_EQ(result.exit_code, 2) << "jigsaw " << args << "\n" << result.output;
    EXPECT_TRUE(Contains(result.output, "jigsaw")) << result.output;
  }
}

TEST(CliConventions, UnknownSubcommandIsNamedWithASuggestion) {
  const CommandResult result = Jigsaw("smi --gpus 4");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_TRUE(Contains(result.output, "unknown subcommand 'smi'")) << result.output;
  EXPECT_TRUE(Contains(result.output, "did you mean 'sim'?")) << result.output;
  const CommandResult far = Jigsaw("frobnicate");
  EXPECT_EQ(far.exit_code, 2) << far.output;
  EXPECT_FALSE(Contains(far.output, "did you mean")) << far.output;
}

TEST(CliConventions, GlobalQuietSilencesTheSubcommand) {
  const auto dir = TempDir("quiet");
  for (const std::string& flag : {std::string("--quiet"), std::string("-q")}) {
    const CommandResult result =
        Jigsaw(flag + " sim --jobs 5 --gpus 4 --out " + (dir / "q").string());
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_EQ(result.output, "") << flag;
  }
  const CommandResult loud = Jigsaw("sim --jobs 5 --gpus 4 --out " + (dir / "l").string());
  EXPECT_NE(loud.output.find("sim: "), std::string::npos) << loud.output;
  std::filesystem::remove_all(dir);
}

TEST(CliConventions, NearestNameByEditDistance) {
  const std::vector<std::string> names = {"sim", "net", "sweep", "d2r", "tlights-report"};
  EXPECT_EQ(NearestName("swep", names), "sweep");
  EXPECT_EQ(NearestName("tlights-reprot", names), "tlights-report");
  EXPECT_EQ(NearestName("nte", names), "net");
  EXPECT_EQ(NearestName("completely-different", names), "");
}

TEST(CliConventions, OutputFolderIsCheckedBeforeTheRunStarts) {
  const auto dir = TempDir("writable");
  const auto file = dir / "a_file";
  std::ofstream(file) << "x";
  const CommandResult in_the_way = Jigsaw("sim --jobs 5 --gpus 4 --out " + file.string());
  EXPECT_EQ(in_the_way.exit_code, 2) << in_the_way.output;
  EXPECT_TRUE(Contains(in_the_way.output, "--out")) << in_the_way.output;
  EXPECT_TRUE(Contains(in_the_way.output, "must be a folder")) << in_the_way.output;
  // The simulation never started: no progress line was printed.
  EXPECT_FALSE(Contains(in_the_way.output, "sim: 5 jobs")) << in_the_way.output;
  // A folder that cannot be created (its parent is a file) fails the same way, for any
  // subcommand with an --out.
  const CommandResult below_file =
      Jigsaw("net --quiet --out " + (file / "sub").string() + " --topology nonexistent.txt");
  EXPECT_EQ(below_file.exit_code, 2) << below_file.output;
  EXPECT_TRUE(Contains(below_file.output, "cannot create the folder")) << below_file.output;
  std::filesystem::remove_all(dir);
}

// Every subcommand, those run by jigsaw-runtime included: --help exits 0, an unknown option
// exits 2, and an --out that names a file is refused with exit 2 before anything runs (the
// required options are given, so the refusal is the --out check and not a missing option).
struct SubcommandCase {
  std::string name;
  std::string required_args;  // enough to get past CLI11's required-option check
  bool has_out;
};

std::vector<SubcommandCase> EverySubcommand() {
  return {{"sim", "--jobs 5 --gpus 4", true},
          {"phase-plan", "--run nonexistent --profile nonexistent.json --phase-plans x.csv", false},
          {"spb-efficiency", "--full nonexistent --plan nonexistent", false},
          {"net", "--topology fattree:k=4", true},
          {"d2r", "--topology nonexistent.graphml --fail link:A-B", true},
          {"sweep", "nonexistent.toml", true},
          {"ps", "--workers 1", true},
          {"tlights", "--dev lo --ports 5001", false},
          {"tlights-report", "--dir .", true},
          {"paramsvc", "--token-file nonexistent.token", true},
          {"paramsvc-agg", "--coordinator 127.0.0.1:1 --token-file nonexistent.token", false},
          {"paramsvc-register",
           "--service 127.0.0.1:1 --token-file nonexistent.token --job-token-file nonexistent.job",
           false},
          {"paramsvc-status", "--service 127.0.0.1:1 --token-file nonexistent.token", false},
          {"paramsvc-sim", "--trace nonexistent.csv --throughputs nonexistent.json", true},
          {"ps-timed-worker", "", true},
          {"report", "nonexistent_run_folder", true},
          {"faas-sim", "", true},
          {"serve-bench", "--model lenet", true},
          {"train", "", true},
          {"profile", "", true},
          {"ps-worker", "", true},
          {"serve", "--model nonexistent.pt", false},
          {"fl", "", true}};
}

TEST(CliConventions, EverySubcommandIsListedInTheTopLevelHelp) {
  const CommandResult top = Jigsaw("--help");
  ASSERT_EQ(top.exit_code, 0) << top.output;
  for (const SubcommandCase& command : EverySubcommand()) {
    EXPECT_TRUE(Contains(top.output, "\n  " + command.name + " ")) << command.name;
  }
}

TEST(CliConventions, EverySubcommandsHelpExitsZeroAndItsUnknownOptionExitsTwo) {
  const auto dir = TempDir("unknown_option");
  for (const SubcommandCase& command : EverySubcommand()) {
    const CommandResult help = Jigsaw(command.name + " --help");
    EXPECT_EQ(help.exit_code, 0) << command.name << "\n" << help.output;
    EXPECT_TRUE(Contains(help.output, "Usage: ")) << command.name << "\n" << help.output;
    EXPECT_EQ(Contains(help.output, "--out"), command.has_out) << command.name;
    // A default output folder lies under out/, which .gitignore covers, so running an example
    // without --out leaves a checkout's git status clean.
    // A required option shows no default (it would never be used).
    std::istringstream lines(help.output);
    for (std::string line; std::getline(lines, line);) {
      if (!Contains(line, " REQUIRED")) continue;
      const std::string name_and_type = line.substr(0, line.find(" REQUIRED"));
      EXPECT_FALSE(Contains(name_and_type, "=")) << command.name << ": " << line;
    }
    const size_t out_default = help.output.find("--out TEXT=");
    if (out_default != std::string::npos) {
      EXPECT_EQ(help.output.substr(out_default + 11, 4), "out/") << command.name;
    }
    const std::string out = command.has_out ? " --out " + (dir / command.name).string() : "";
    const CommandResult bad =
        Jigsaw(command.name + " " + command.required_args + out + " --no-such-option 1");
    EXPECT_EQ(bad.exit_code, 2) << command.name << "\n" << bad.output;
    EXPECT_TRUE(Contains(bad.output, "--no-such-option")) << command.name << "\n" << bad.output;
  }
  std::filesystem::remove_all(dir);
}

TEST(CliConventions, EverySubcommandRefusesAnOutThatIsAFileBeforeRunning) {
  const auto dir = TempDir("out_is_file");
  const auto file = dir / "a_file";
  std::ofstream(file) << "x";
  for (const SubcommandCase& command : EverySubcommand()) {
    if (!command.has_out) continue;
    const CommandResult result =
        Jigsaw(command.name + " " + command.required_args + " --out " + file.string());
    EXPECT_EQ(result.exit_code, 2) << command.name << "\n" << result.output;
    EXPECT_TRUE(Contains(result.output, "must be a folder")) << command.name << "\n"
                                                             << result.output;
  }
  EXPECT_EQ(Slurp(file), "x");  // the file in the way is left as it was
  std::filesystem::remove_all(dir);
}

TEST(CliConventions, SummaryRecordsVersionEffectiveOptionsAndInputHashes) {
  const auto dir = TempDir("record");
  const std::string trace = (dir / "trace.txt").string();
  CommandResult write = Jigsaw("sim --jobs 12 --gpus 4 --seed 5 --quiet --write-trace " + trace +
                               " --out " + (dir / "first").string());
  ASSERT_EQ(write.exit_code, 0) << write.output;
  CommandResult run = Jigsaw("sim --trace " + trace + " --gpus 4 --policy fifo --quiet --out " +
                             (dir / "second").string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto summary = nlohmann::json::parse(Slurp(dir / "second" / "summary.json"));
  ASSERT_TRUE(summary.contains("run")) << summary.dump(2);
  const auto& record = summary["run"];
  EXPECT_EQ(record["command"], "sim");
  EXPECT_TRUE(record["version"].get<std::string>().starts_with("0."));
  EXPECT_EQ(record["options"]["--gpus"], 4);
  EXPECT_EQ(record["options"]["--policy"], "fifo");
  EXPECT_EQ(record["options"]["--round-s"], 120);  // a default, recorded too
  EXPECT_FALSE(record["options"].contains("--out"));
  EXPECT_EQ(record["inputs"]["--trace"]["sha256"], Sha256Hex(Slurp(trace)));
  std::filesystem::remove_all(dir);
}

TEST(CliConventions, RoundsCsvHasOneSchemaWhateverRoundLogSays) {
  const auto dir = TempDir("rounds");
  std::string header;
  for (const char* mode : {"full", "delta", "auto"}) {
    const auto out = dir / mode;
    const CommandResult result = Jigsaw(std::string("sim --jobs 10 --gpus 4 --quiet --round-log ") +
                                        mode + " --out " + out.string());
    ASSERT_EQ(result.exit_code, 0) << result.output;
    std::ifstream csv(out / "rounds.csv");
    std::string line;
    std::getline(csv, line);
    if (header.empty()) header = line;
    EXPECT_EQ(line, header) << mode;
    // Every row has as many fields as the header.
    const auto fields = [](const std::string& text) {
      return std::count(text.begin(), text.end(), ',');
    };
    while (std::getline(csv, line)) ASSERT_EQ(fields(line), fields(header)) << mode << ": " << line;
  }
  EXPECT_EQ(header,
            "round,start_s,end_s,active_jobs,gpus_used,started_jobs,stopped_jobs,scheduled_jobs,"
            "colocated_jobs");
  std::filesystem::remove_all(dir);
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace jigsaw

namespace jigsaw {
namespace {

// cmake --install puts the binaries, the data files, the licence and (with help2man) the man
// page under the prefix, and the installed binary finds its data there (no source path compiled
// in); JIGSAW_DATA_DIR overrides.
TEST(Packaging, InstallTreeFindsItsDataRelativeToTheExecutable) {
  const auto prefix =
      std::filesystem::temp_directory_path() / ("jigsaw_cli_install_" + std::to_string(::getpid()));
  std::filesystem::remove_all(prefix);
  FILE* pipe = popen(("\"" CMAKE_COMMAND_PATH "\" --install \"" JIGSAW_BUILD_DIR "\" --prefix " +
                      prefix.string() + " 2>&1")
                         .c_str(),
                     "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  while (fgets(buffer, sizeof(buffer), pipe)) output += buffer;
  ASSERT_EQ(pclose(pipe), 0) << output;
  const auto data = prefix / "share" / "jigsaw" / "data" / "spb_statistical_efficiency.json";
  EXPECT_TRUE(std::filesystem::exists(prefix / "bin" / "jigsaw"));
  EXPECT_TRUE(std::filesystem::exists(prefix / "bin" / "jigsaw-runtime"));
  EXPECT_TRUE(std::filesystem::exists(data));
  EXPECT_TRUE(std::filesystem::exists(prefix / "share" / "doc" / "jigsaw" / "LICENSE"));
  if (std::system("command -v help2man >/dev/null 2>&1") == 0) {
    // The man page documents every subcommand's options, not just the top-level list.
    const std::string page = Slurp(prefix / "share" / "man" / "man1" / "jigsaw.1");
    EXPECT_NE(page.find("Usage: jigsaw sweep"), std::string::npos);
    EXPECT_NE(page.find("--round-s FLOAT=120"), std::string::npos);
    // Defaults naming a shipped data file show the installed location, not the build tree's.
    EXPECT_EQ(page.find(JIGSAW_SOURCE_DIR "/data/"), std::string::npos);
    EXPECT_NE(page.find("<prefix>/share/jigsaw/data/spb_statistical_efficiency.json"),
              std::string::npos);
  }
  const auto help = [&](const std::string& env) {
    FILE* p = popen((env + (prefix / "bin" / "jigsaw").string() + " sim --help").c_str(), "r");
    std::string text;
    while (p && fgets(buffer, sizeof(buffer), p)) text += buffer;
    if (p) pclose(p);
    return text;
  };
  EXPECT_NE(help("").find("--spb-efficiency-file TEXT=" + data.string()), std::string::npos)
      << help("");
  EXPECT_NE(help("JIGSAW_DATA_DIR=" JIGSAW_SOURCE_DIR "/data ")
                .find(JIGSAW_SOURCE_DIR "/data/spb_statistical_efficiency.json"),
            std::string::npos);
  std::filesystem::remove_all(prefix);
}

}  // namespace
}  // namespace jigsaw
