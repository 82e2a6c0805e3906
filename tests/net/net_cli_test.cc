// `jigsaw net` end to end: outputs, byte-identical reruns, and clean errors on bad input.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

struct Result {
  int status;
  std::string stderr_text;
};

std::string TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("jigsaw_net_cli_" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

Result RunCli(const std::string& args) {
  const std::string err = TempDir("stderr") + ".txt";
  std::string command = std::string(JIGSAW_BINARY) + " net " + args + " 2>" + err;
  int raw = std::system(command.c_str());
  std::ifstream in(err);
  std::stringstream text;
  text << in.rdbuf();
  return {WEXITSTATUS(raw), text.str()};
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(NetCli, WritesSummaryAndFlowsDeterministically) {
  const std::string a = TempDir("a"), b = TempDir("b");
  const std::string common =
      " --topology fattree:k=4,rate=100Gbps,delay=1us --cc dcqcn --traffic incast:6:500KB --window "
      "off";
  ASSERT_EQ(RunCli(common + " --out " + a).status, 0);
  ASSERT_EQ(RunCli(common + " --quiet --out " + b).status, 0);
  EXPECT_EQ(Slurp(a + "/summary.json"), Slurp(b + "/summary.json"));
  EXPECT_EQ(Slurp(a + "/flows.csv"), Slurp(b + "/flows.csv"));
  auto summary = nlohmann::json::parse(Slurp(a + "/summary.json"));
  EXPECT_EQ(summary["hosts"], 16);
  EXPECT_EQ(summary["flows"]["count"], 6);
  EXPECT_EQ(summary["flows"]["unfinished"], 0);
  EXPECT_EQ(summary["network"]["drops"], 0);
  EXPECT_GT(summary["network"]["ecn_marks"].get<int>(), 0);
  EXPECT_GT(summary["network"]["max_queue_bytes"].get<int>(), 0);
  std::string csv = Slurp(a + "/flows.csv");
  EXPECT_EQ(csv.rfind("flow,src,dst,bytes,start_us,end_us,fct_us\n", 0), 0u);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);
}

TEST(NetCli, RunsAnAstraWorkload) {
  const std::string path = std::string(JIGSAW_SHARED_DATA) + "/workloads/astra/microAllToAll.txt";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no shared data at " << path;
  const std::string out = TempDir("workload");
  ASSERT_EQ(RunCli("--topology clos:leaves=2,spines=2,hosts=4,rate=100Gbps --cc hpcc --quiet "
                   "--workload " +
                   path + " --out " + out)
                .status,
            0);
  auto summary = nlohmann::json::parse(Slurp(out + "/summary.json"));
  ASSERT_EQ(summary["jobs"].size(), 1u);
  EXPECT_GT(summary["jobs"][0]["iteration_time_us"].get<double>(), 0);
  EXPECT_EQ(summary["jobs"][0]["collectives"][0]["type"], "alltoall");
}

TEST(NetCli, BadInputsFailWithLocatedMessages) {
  const std::string out = TempDir("bad");
  const std::string topology = out + "_topology.txt";
  std::ofstream(topology) << "3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps soon 0\n";
  Result bad_file = RunCli("--topology " + topology + " --traffic permutation:1MB --out " + out);
  EXPECT_EQ(bad_file.status, 2);
  EXPECT_NE(bad_file.stderr_text.find(topology + ":4: column 4 (delay)"), std::string::npos)
      << bad_file.stderr_text;
  Result bad_cc =
      RunCli("--topology fattree:k=4 --cc cubic --traffic permutation:1MB --out " + out);
  EXPECT_EQ(bad_cc.status, 2);
  EXPECT_NE(bad_cc.stderr_text.find("--cc 'cubic'"), std::string::npos);
  Result both = RunCli("--topology fattree:k=4 --out " + out);
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.stderr_text.find("either --workload"), std::string::npos);
  Result dims = RunCli("--topology fattree:k=4 --traffic permutation:1MB --dims 3xq --out " + out);
  EXPECT_EQ(dims.status, 2);
}

}  // namespace
