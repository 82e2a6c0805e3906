// `jigsaw net --ps-jobs` end to end: summary.json's parameter-server fields, the band schedule
// identical to the one `jigsaw tlights --dry-run` prints, and exit 2 on bad option combinations.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "test_util/shell.h"

namespace {

using jigsaw::test_util::RunShell;
using jigsaw::test_util::Slurp;

std::string Out(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("jigsaw_ps_cli_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

jigsaw::test_util::CommandResult Net(const std::string& args) {
  return RunShell(std::string(JIGSAW_BINARY) + " net --quiet " + args + " 2>&1");
}

const char kSmall[] =
    " --topology rack:hosts=4,gbps=10 --ps-jobs 5 --ps-workers 2 --ps-model-bytes 100KB"
    " --ps-iterations 3 --ps-compute 50us";

TEST(PsCli, WritesJobsHostsAndSchedule) {
  const std::string out = Out("summary");
  const auto run = Net(std::string(kSmall) + " --host-priority static --out " + out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto summary = nlohmann::json::parse(Slurp(out + "/summary.json"));
  const auto& ps = summary["ps"];
  EXPECT_EQ(ps["host_priority"], "static");
  EXPECT_EQ(ps["unfinished_jobs"], 0);
  EXPECT_EQ(ps["pushed_bytes"], 5 * 2 * 3 * 100000);
  EXPECT_EQ(ps["model_sent_bytes"], 5 * 2 * 4 * 100000);
  ASSERT_EQ(ps["ps_host_links"].size(), 1u);
  const double up = ps["ps_host_links"][0]["uplink_utilization"].get<double>();
  EXPECT_GT(up, 0.1);
  EXPECT_LE(up, 1.0);
  ASSERT_EQ(summary["ps_jobs"].size(), 5u);
  for (const auto& job : summary["ps_jobs"]) {
    EXPECT_TRUE(job["finished"].get<bool>());
    EXPECT_EQ(job["iteration_times_us"].size(), 3u);
    EXPECT_EQ(job["straggler_spread_us"].size(), 3u);
    EXPECT_GT(job["jct_us"].get<double>(), 0);
  }
  // Static priority: the top band's job ends first.
  EXPECT_LT(summary["ps_jobs"][0]["jct_us"].get<double>(),
            summary["ps_jobs"][4]["jct_us"].get<double>());
}

// Oldest message first at every NIC: every job still finishes with every byte delivered once,
// and the order is echoed.
TEST(PsCli, NicOrderFifoRunsAndIsEchoed) {
  const std::string out = Out("fifo_order");
  const auto run = Net(std::string(kSmall) + " --nic-order fifo --out " + out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto summary = nlohmann::json::parse(Slurp(out + "/summary.json"));
  EXPECT_EQ(summary["nic_order"], "fifo");
  EXPECT_EQ(summary["ps"]["unfinished_jobs"], 0);
  EXPECT_EQ(summary["ps"]["pushed_bytes"], 5 * 2 * 3 * 100000);
  EXPECT_EQ(summary["ps"]["model_sent_bytes"], 5 * 2 * 4 * 100000);
}

// prio per class id from `jigsaw tlights --dry-run`: the install, then the first rotation.
std::vector<std::map<std::string, int>> AgentBands(int jobs) {
  std::string ports;
  for (int j = 0; j < jobs; ++j) ports += (j ? "," : "") + std::to_string(5001 + j);
  const auto run = RunShell(std::string(JIGSAW_BINARY) +
                            " tlights --dry-run --policy rotate --dev eth0 --ports " + ports);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  std::vector<std::map<std::string, int>> rotations(2);
  const std::regex line_re("classid (1:1[1-9]|1:[2-9][0-9]) htb .* prio ([0-9]+)");
  std::istringstream lines(run.output);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, line_re)) continue;
    const bool rotated = line.rfind("# after", 0) == 0;
    rotations[rotated ? 1 : 0][m[1]] = std::stoi(m[2]);
  }
  for (const auto& [cls, prio] : rotations[0]) rotations[1].emplace(cls, prio);  // unchanged
  return rotations;
}

TEST(PsCli, BandScheduleIsTheAgentsDryRun) {
  const std::string out = Out("schedule");
  const auto run =
      Net(std::string(kSmall) + " --host-priority rotate --rotate-interval 20us --out " + out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto schedule = nlohmann::json::parse(Slurp(out + "/summary.json"))["ps"]["band_schedule"];
  ASSERT_GE(schedule.size(), 2u);
  const auto agent = AgentBands(5);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(schedule[r]["rotation"], r);
    EXPECT_DOUBLE_EQ(schedule[r]["at_us"].get<double>(), 20.0 * r);
    ASSERT_EQ(agent[r].size(), 5u);
    for (int j = 0; j < 5; ++j) {
      EXPECT_EQ(schedule[r]["bands"][j].get<int>(), agent[r].at("1:" + std::to_string(11 + j)))
          << "rotation " << r << ", job " << j;
    }
  }
}

TEST(PsCli, BadCombinationsExitTwoNamingTheOption) {
  const std::string out = Out("bad");
  const std::string topology = " --topology rack:hosts=4,gbps=10 --out " + out;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {" --ps-workers 2 --ps-model mlp", "need --ps-jobs N"},
      {" --ps-jobs 2 --ps-model mlp", "--ps-jobs needs --ps-workers"},
      {" --ps-jobs 2 --ps-workers 2", "--ps-model NAME"},
      {" --ps-jobs 2 --ps-workers 2 --ps-model mlp --ps-model-bytes 1MB", "not both"},
      {" --ps-jobs 2 --ps-workers 2 --ps-model mlp --rotate-interval 5s",
       "--rotate-interval needs --host-priority rotate"},
      {" --ps-jobs 2 --ps-workers 2 --ps-model mlp --host-priority lights",
       "--host-priority 'lights'"},
      {" --ps-jobs 2 --ps-workers 4 --ps-model mlp", "--ps-workers 4"},
      {" --ps-jobs 2 --ps-workers 2 --ps-model mlp --ps-hosts 3", "--ps-hosts"},
      {" --ps-jobs 2 --ps-workers 2 --ps-model mlp --traffic permutation:1MB", "give one of"},
      {" --ps-jobs 2 --ps-workers 2 --ps-model mlp --host-priority static --transport homa",
       "host NIC priorities need the RDMA queue pairs"},
      {" --ps-jobs 2 --ps-workers 2 --ps-model mlp --ps-downlink-priority on",
       "--ps-downlink-priority on needs --host-priority static or rotate"},
      {" --ps-jobs 2 --ps-workers 2 --ps-model mlp --ps-compute-file /nonexistent.csv",
       "/nonexistent.csv"},
      {" --ps-jobs 2 --ps-workers 2 --ps-model mlp --nic-order lifo", "--nic-order 'lifo'"},
      {" --ps-jobs 2 --ps-workers 2 --ps-model mlp --cc-param retransmit_timeout=0s",
       "retransmit_timeout"},
  };
  for (const auto& [args, expected] : cases) {
    const auto run = Net(topology + args);
    EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.output;
    EXPECT_NE(run.output.find(expected), std::string::npos) << args << "\n" << run.output;
  }
}

}  // namespace
