// End-to-end tests of `jigsaw sim`: outputs, byte-identical reruns, and error reporting.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace jigsaw {
namespace {

struct CommandResult {
  int exit_code;
  std::string output;
};

CommandResult RunCommand(const std::string& args) {
  const std::string command = std::string(JIGSAW_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char buffer[4096];
  while (pipe && fgets(buffer, sizeof(buffer), pipe)) output += buffer;
  const int status = pipe ? pclose(pipe) : -1;
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::filesystem::path TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("jigsaw_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(SimCli, DefaultRunWritesAllOutputsAndIsByteIdentical) {
  auto dir = TempDir("sim");
  for (const char* run : {"a", "b"}) {
    auto result =
        RunCommand("sim --jobs 40 --gpus 8 --seed 3 --quiet --out " + (dir / run).string());
    ASSERT_EQ(result.exit_code, 0) << result.output;
  }
  for (const char* file : {"summary.json", "jobs.csv", "rounds.csv"}) {
    const std::string a = Slurp(dir / "a" / file);
    ASSERT_FALSE(a.empty()) << file;
    EXPECT_EQ(a, Slurp(dir / "b" / file)) << file;
  }
  auto summary = nlohmann::json::parse(Slurp(dir / "a" / "summary.json"));
  for (const char* key :
       {"makespan_s", "avg_jct_s", "geomean_jct_s", "worst_ftf_rho", "unfair_frac_105",
        "unfair_frac_110", "cluster_util", "cluster_efficiency", "jobs", "rounds"}) {
    EXPECT_TRUE(summary.contains(key)) << key;
  }
  EXPECT_EQ(summary["jobs"].get<int>(), 40);
  std::string jobs_csv = Slurp(dir / "a" / "jobs.csv");
  EXPECT_EQ(std::count(jobs_csv.begin(), jobs_csv.end(), '\n'), 41);
  std::filesystem::remove_all(dir);
}

TEST(SimCli, BadInputsGiveClearErrors) {
  auto dir = TempDir("bad");
  {
    std::ofstream trace(dir / "bad.trace");
    trace << "LM (batch size 10)\tc\tlm\t--steps\t1\t1000\t1\tgns\t1\t-1\t1418\t0\n"
          << "LM (batch size 10)\tc\tlm\t--steps\t1\tmany\t1\tgns\t1\t-1\t1418\t5\n";
  }
  auto result = RunCommand("sim --quiet --trace " + (dir / "bad.trace").string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("bad.trace:2: expected a number in column 6 (total_steps)"),
            std::string::npos)
      << result.output;

  result = RunCommand("sim --quiet --policy nope --out " + (dir / "o").string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("unknown policy 'nope'"), std::string::npos) << result.output;

  result = RunCommand("sim --quiet --trace /nonexistent.trace");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("/nonexistent.trace: cannot open"), std::string::npos);

  {
    std::ofstream table(dir / "t.json");
    table << "{\"v100\": {\"('LM (batch size 10)', 1)\": {\"null\": }}}";
  }
  result = RunCommand("sim --quiet --throughputs " + (dir / "t.json").string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("t.json:1: malformed JSON"), std::string::npos) << result.output;

  result =
      RunCommand("sim --quiet --policy jigsaw --spb-efficiency 1.5 --out " + (dir / "o").string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--spb-efficiency must be auto or a number in [0, 1]"),
            std::string::npos)
      << result.output;
  result = RunCommand("sim --quiet --policy jigsaw --spb-profile ResNet-18 --out " +
                      (dir / "o").string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--spb-profile expects MODEL=FILE"), std::string::npos)
      << result.output;
  result = RunCommand("sim --quiet --policy jigsaw --spb-profile ResNet-18=" +
                      (dir / "t.json").string() + " --out " + (dir / "o").string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("t.json:1: not valid JSON"), std::string::npos) << result.output;
  const std::pair<const char*, const char*> kBadOptions[] = {
      {"--colocation-base nope", "(--colocation-base) must be shockwave or least_served"},
      {"--max-jobs -1", "--max-jobs must be >= 0"},
      {"--gpus-per-node 0", "--gpus-per-node must be >= 1"},
      {"--isolated-time whole", "--isolated-time must be exact or reference"},
      {"--measure-window 5", "--measure-window expects BEGIN:END"},
      {"--measure-window 30:20", "--measure-window must be BEGIN:END with 0 <= BEGIN < END"},
      {"--arrival-rate-jph -3", "--arrival-rate-jph must be a positive number"}};
  for (const auto& [bad, expected] : kBadOptions) {
    result = RunCommand(std::string("sim --quiet --policy jigsaw ") + bad + " --out " +
                        (dir / "o").string());
    EXPECT_EQ(result.exit_code, 2) << bad;
    EXPECT_NE(result.output.find(expected), std::string::npos) << bad << ": " << result.output;
  }

  result = RunCommand("sim --quiet --gpus 0 --out " + (dir / "o").string());
  EXPECT_NE(result.exit_code, 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace jigsaw
