// `jigsaw net --chakra` end to end: the shipped ASTRA-sim examples against their --workload
// equivalents, collectives.csv, the progress file written while running, and exit 2 with a clear
// message on bad input and bad option combinations.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_util/shell.h"

namespace {

using jigsaw::test_util::RunShell;
using jigsaw::test_util::Slurp;

const std::string kChakra = std::string(JIGSAW_SHARED_DATA) + "/workloads/chakra";

std::string Out(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("jigsaw_chakra_cli_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

jigsaw::test_util::CommandResult Net(const std::string& args) {
  return RunShell(std::string(JIGSAW_BINARY) + " net --quiet " + args + " 2>&1");
}

double IterationUs(const std::string& dir, const char* key) {
  return nlohmann::json::parse(Slurp(dir + "/summary.json"))[key][0]["iteration_time_us"]
      .get<double>();
}

// Each collective of the shipped examples on 4 NPUs equals its ASTRA-sim 1.0 text twin.
TEST(ChakraCli, ShippedExamplesAgreeWithTheirWorkloadEquivalents) {
  if (!std::filesystem::exists(kChakra)) GTEST_SKIP() << kChakra << " not found";
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"all_reduce", "ALLREDUCE"},
      {"all_gather", "ALLGATHER"},
      {"reduce_scatter", "REDUCESCATTER"},
      {"all_to_all", "ALLTOALL"}};
  const std::string topology = " --topology rack:hosts=4,gbps=100";
  for (const auto& [dir, type] : kinds) {
    const std::string chakra = Out("ex_" + dir), workload = Out("wl_" + dir);
    const auto run = Net(topology + " --chakra " + kChakra + "/workload/microbenchmarks/" + dir +
                         "/4npus_1MB/" + dir + " --out " + chakra);
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const std::string text = workload + ".txt";
    std::ofstream(text) << "MICRO\n1\nl0 -1 0 NONE 0 0 NONE 0 0 " << type << " 1048576 0\n";
    ASSERT_EQ(Net(topology + " --workload " + text + " --out " + workload).exit_code, 0);
    const double a = IterationUs(chakra, "chakra_jobs"), b = IterationUs(workload, "jobs");
    EXPECT_NEAR(a, b, 0.01 * b) << dir;
    const std::string csv = Slurp(chakra + "/collectives.csv");
    EXPECT_EQ(csv.rfind("job,iteration,node_id,name,type,bytes,src_rank,dst_rank,issued_us,", 0),
              0u);
    EXPECT_NE(csv.find(",1048576,,,0.000,0.000,"), std::string::npos) << csv;
  }
}

TEST(ChakraCli, WritesProgressWhileRunningAndRemovesStaleOutputs) {
  if (!std::filesystem::exists(kChakra)) GTEST_SKIP() << kChakra << " not found";
  const std::string out = Out("progress");
  const std::string custom =
      kChakra + "/system/custom_collectives/custom_ring_allreduce_8npus_1MB/custom_allreduce";
  const auto run = Net("--topology rack:hosts=8,gbps=100 --chakra " + custom +
                       " --timeseries --sample-interval 20us --out " + out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // The custom collective's GlobalMetadata attributes are read, not modelled: named on stderr.
  EXPECT_NE(run.output.find("GlobalMetadata attribute input_file read and not modelled"),
            std::string::npos)
      << run.output;
  const std::string progress = Slurp(out + "/progress.csv");
  EXPECT_EQ(progress.rfind("time_us,events,job,nodes_done,nodes_total,comms_done\n20.000,", 0), 0u)
      << progress;
  EXPECT_NE(progress.find(",0,280,280,112\n"), std::string::npos) << progress;  // all done
  const auto summary = nlohmann::json::parse(Slurp(out + "/summary.json"));
  EXPECT_EQ(summary["chakra_jobs"][0]["sends"], 112);
  EXPECT_EQ(summary["chakra_jobs"][0]["ignored"]["GlobalMetadata attribute input_file"], 8);
  // Another kind of run into the same folder leaves no trace outputs behind.
  ASSERT_EQ(
      Net("--topology rack:hosts=8,gbps=100 --traffic permutation:10KB --out " + out).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(out + "/progress.csv"));
  EXPECT_FALSE(std::filesystem::exists(out + "/collectives.csv"));
}

TEST(ChakraCli, BadInputExitsTwoNamingFileNodeAndExpectation) {
  const std::string out = Out("bad");
  const std::string dir = out + "_traces";
  std::filesystem::create_directories(dir);
  // Rank 0: metadata then a node whose varint is cut off; rank 1 missing for a second prefix.
  std::ofstream(dir + "/cut.0.et", std::ios::binary) << std::string(
      "\x07\x0a\x05"
      "0.0.4\x02\x08\xff",
      11);
  std::ofstream(dir + "/one.0.et", std::ios::binary) << std::string(
      "\x07\x0a\x05"
      "0.0.4",
      8);
  std::ofstream(dir + "/system.json") << R"({"all-reduce-implementation": ["halvingDoubling"]})";
  const std::string topology = " --topology rack:hosts=4,gbps=10 --out " + out;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {" --chakra " + dir + "/cut", dir + "/cut.0.et: byte 10, node message #0: truncated varint"},
      {" --chakra " + dir + "/none", dir + "/none.0.et: cannot open"},
      {" --npu-tflops 100", "--npu-tflops and --chakra-system need --chakra PREFIX"},
      {" --chakra " + dir + "/one --npu-tflops fast", "--npu-tflops 'fast'"},
      {" --chakra " + dir + "/one --traffic permutation:1MB", "give one of"},
      {" --chakra " + dir + "/one --chakra-system " + dir + "/system.json",
       "all-reduce-implementation 'halvingDoubling': not modelled; expected ring"},
  };
  for (const auto& [args, expected] : cases) {
    const auto run = Net(topology + args);
    EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.output;
    EXPECT_NE(run.output.find(expected), std::string::npos) << args << "\n" << run.output;
  }
  if (std::filesystem::exists(kChakra)) {
    // 16 ranks on a 4-host fabric.
    const auto run = Net(topology + " --chakra " + kChakra +
                         "/workload/microbenchmarks/all_reduce/16npus_1MB/all_reduce");
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("16 ranks, but the placement gives the job 4 hosts"),
              std::string::npos)
        << run.output;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
