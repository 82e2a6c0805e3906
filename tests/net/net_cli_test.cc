// `jigsaw net` end to end: outputs, byte-identical reruns, and clean errors on bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "test_util/shell.h"

namespace {

struct Result {
  int status;
  std::string stderr_text;
};

std::string TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("jigsaw_net_cli_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

// Standard error only (the order of the redirections sends standard output to /dev/null).
Result RunCli(const std::string& args) {
  const jigsaw::test_util::CommandResult run =
      jigsaw::test_util::RunShell(std::string(JIGSAW_BINARY) + " net " + args + " 2>&1 >/dev/null");
  return {run.exit_code, run.output};
}

using jigsaw::test_util::Slurp;

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
  EXPECT_EQ(summary["ack_priority"], "data");
  EXPECT_EQ(summary["flows"]["count"], 6);
  EXPECT_EQ(summary["flows"]["unfinished"], 0);
  EXPECT_EQ(summary["network"]["drops"], 0);
  EXPECT_GT(summary["network"]["ecn_marks"].get<int>(), 0);
  EXPECT_GT(summary["network"]["max_queue_bytes"].get<int>(), 0);
  std::string csv = Slurp(a + "/flows.csv");
  EXPECT_EQ(csv.rfind("flow,src,dst,bytes,start_us,end_us,fct_us,ideal_fct_us,slowdown\n", 0), 0u);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);
  // Six flows into one host: none alone, so each is slower than its ideal.
  EXPECT_GT(summary["flows"]["slowdown_mean"].get<double>(), 1.5);
  EXPECT_FALSE(std::filesystem::exists(a + "/timeseries"));
}

TEST(NetCli, FlowFileTimeSeriesAndFailures) {
  const std::string out = TempDir("flowfile");
  const std::string flows = out + ".flows.txt";
  // clos:leaves=2,spines=2,hosts=2: hosts 0..3, leaves 4 and 5, spines 6 and 7.
  {
    std::ofstream file(flows);
    file << "3\n0 2 3 100 1000 0.000001\n1 2 3 100 400000 0.000001\n3 2 1 100 400000 0.000001\n";
  }
  const std::string topology = " --topology clos:leaves=2,spines=2,hosts=2,rate=100Gbps --quiet";
  Result run =
      RunCli(topology + " --flows " + flows + " --timeseries --sample-interval 5us --out " + out);
  ASSERT_EQ(run.status, 0) << run.stderr_text;
  const std::string csv = Slurp(out + "/flows.csv");
  EXPECT_NE(csv.find("\n0,0,2,1000,1.000,"), std::string::npos) << csv;
  auto summary = nlohmann::json::parse(Slurp(out + "/summary.json"));
  EXPECT_EQ(summary["flows"]["count"], 3);
  EXPECT_EQ(summary["flows"]["unfinished"], 0);
  EXPECT_EQ(summary["timeseries"]["sample_interval_us"], 5.0);
  EXPECT_EQ(Slurp(out + "/timeseries/queue.csv").rfind("time_us,node,port,queue_bytes\n", 0), 0u);
  EXPECT_EQ(Slurp(out + "/timeseries/pfc.csv").rfind("node,port,priority,start_us,end_us\n", 0),
            0u);
  const std::string rate = Slurp(out + "/timeseries/rate.csv");
  EXPECT_EQ(rate.rfind("time_us,flow_id,rate_gbps\n", 0), 0u);
  EXPECT_NE(rate.find("\n5.000,1,100.000\n"), std::string::npos) << rate;
  EXPECT_GT(summary["timeseries"]["queue_rows"].get<int>(), 0);  // two senders into host 2

  // A run without --timeseries removes the previous series.
  ASSERT_EQ(RunCli(topology + " --flows " + flows + " --out " + out).status, 0);
  EXPECT_FALSE(std::filesystem::exists(out + "/timeseries"));

  // Host 3 loses its only link at 2 us: its flow never finishes (exit 3), the others do.
  Result cut = RunCli(topology + " --flows " + flows + " --fail-link 3-5@2us --out " + out);
  EXPECT_EQ(cut.status, 3) << cut.stderr_text;
  summary = nlohmann::json::parse(Slurp(out + "/summary.json"));
  EXPECT_EQ(summary["flows"]["unfinished"], 1);
  EXPECT_EQ(summary["link_failures"][0]["at_us"], 2.0);

  // Background traffic alone, and joined to a flow file.
  Result background = RunCli(topology +
                             " --background websearch --background-load 100% "
                             "--background-duration 500us --out " +
                             out);
  EXPECT_EQ(background.status, 0) << background.stderr_text;
  summary = nlohmann::json::parse(Slurp(out + "/summary.json"));
  EXPECT_EQ(summary["background"]["cdf"], "websearch");
  EXPECT_GT(summary["flows"]["count"].get<int>(), 0);

  // Malformed inputs: file:line, exit 2.
  {
    std::ofstream file(flows);
    file << "2\n0 2 3 100 1000 0\n0 6 3 100 1000 0\n";
  }
  Result bad = RunCli(topology + " --flows " + flows + " --out " + out);
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.stderr_text.find(flows + ":3"), std::string::npos) << bad.stderr_text;
  EXPECT_NE(bad.stderr_text.find("is a switch"), std::string::npos) << bad.stderr_text;
  for (const std::string& args :
       {std::string(" --flows ") + flows + " --traffic permutation:1MB",
        std::string(" --traffic permutation:1MB --fail-link 4-6"),
        std::string(" --traffic permutation:1MB --fail-link 0-1@1us"),
        std::string(" --traffic permutation:1MB --timeseries some"),
        std::string(" --traffic permutation:1MB --timeseries --sample-interval 0us"),
        std::string(" --background websearch --background-load 150%"),
        std::string(" --background nosuchcdf.txt"),
        std::string(" --traffic permutation:1MB --cc-param hpcc.rate_ai"),
        std::string(" --traffic permutation:1MB --cc-param hpcc.rate=1Gbps"),
        std::string(" --traffic permutation:1MB --cc-param hpcc.max_stage=1.5"),
        std::string(" --traffic permutation:1MB --cc-param dcqcn.increase_timer=5")}) {
    Result r = RunCli(topology + args + " --out " + out);
    EXPECT_EQ(r.status, 2) << args << ": " << r.stderr_text;
  }
  std::filesystem::remove(flows);
  std::filesystem::remove_all(out);
}

TEST(NetCli, CcParamsChangeTheLaw) {
  const std::string a = TempDir("ccparam_a"), b = TempDir("ccparam_b");
  const std::string common =
      " --topology rack:hosts=9 --cc dcqcn --traffic incast:8:2MB --window off --quiet";
  ASSERT_EQ(RunCli(common + " --out " + a).status, 0);
  Result slow =
      RunCli(common + " --cc-param dcqcn.rate_ai=1Gbps --cc-param dcqcn.g=0.5 --out " + b);
  ASSERT_EQ(slow.status, 0) << slow.stderr_text;
  auto base = nlohmann::json::parse(Slurp(a + "/summary.json"));
  auto tuned = nlohmann::json::parse(Slurp(b + "/summary.json"));
  EXPECT_EQ(tuned["cc_params"]["dcqcn.rate_ai"], "1Gbps");
  EXPECT_FALSE(base.contains("cc_params"));
  EXPECT_NE(base["network"]["events"], tuned["network"]["events"]);
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
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

// --placement random: every host used once, seeded (same seed, same ranks; another seed, other
// ranks), and the new reaction counters are in summary.json.
TEST(NetCli, RandomPlacementIsSeededAndCoversTheHosts) {
  const std::string dir = TempDir("placement");
  std::filesystem::create_directories(dir);
  {
    std::ofstream workload(dir + "/w.txt");
    workload << "MICRO\n1\nl -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 65536 5\n";
  }
  auto ranks = [&](int seed, const std::string& out) {
    EXPECT_EQ(RunCli("--topology clos:leaves=4,spines=2,hosts=4,rate=100Gbps --quiet --workload " +
                     dir + "/w.txt --workload " + dir + "/w.txt --placement random --seed " +
                     std::to_string(seed) + " --out " + out)
                  .status,
              0);
    auto summary = nlohmann::json::parse(Slurp(out + "/summary.json"));
    EXPECT_EQ(summary["network"]["rate_cuts"], 0);  // --cc none
    EXPECT_TRUE(summary["network"].contains("hol_victim_flows"));
    std::vector<int> all;
    for (const auto& job : summary["jobs"]) {
      EXPECT_EQ(job["host_ranks"].size(), 8u);
      for (const auto& r : job["host_ranks"]) all.push_back(r.get<int>());
    }
    return all;
  };
  std::vector<int> one = ranks(1, dir + "/a"), again = ranks(1, dir + "/b"),
                   two = ranks(2, dir + "/c");
  EXPECT_EQ(one, again);
  EXPECT_NE(one, two);
  std::vector<int> sorted = one;
  std::sort(sorted.begin(), sorted.end());
  for (int h = 0; h < 16; ++h) EXPECT_EQ(sorted[h], h);
  Result bad = RunCli("--topology clos:leaves=4,spines=2,hosts=4 --workload " + dir +
                      "/w.txt --placement diagonal --out " + dir + "/d");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.stderr_text.find("--placement 'diagonal'"), std::string::npos);
  std::filesystem::remove_all(dir);
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
  EXPECT_NE(both.stderr_text.find("give one of --workload"), std::string::npos);
  Result dims = RunCli("--topology fattree:k=4 --traffic permutation:1MB --dims 3xq --out " + out);
  EXPECT_EQ(dims.status, 2);
  Result ack =
      RunCli("--topology fattree:k=4 --traffic permutation:1MB --ack-priority low --out " + out);
  EXPECT_EQ(ack.status, 2);
  EXPECT_NE(ack.stderr_text.find("--ack-priority 'low': expected data or high"), std::string::npos)
      << ack.stderr_text;
  ASSERT_EQ(RunCli("--topology fattree:k=4 --traffic incast:3:100KB --ack-priority high --quiet "
                   "--out " +
                   out)
                .status,
            0);
  EXPECT_EQ(nlohmann::json::parse(Slurp(out + "/summary.json"))["ack_priority"], "high");
}

// A buffer smaller than the PFC headroom was accepted, and one port then queued 390 KB
// in a 64 KiB buffer. 100 Gbps x 10 us links need 3 x 125 KB of headroom per port.
TEST(NetCli, BufferSmallerThanPfcHeadroomIsRefused) {
  const std::string out = TempDir("headroom");
  Result option = RunCli(
      "--topology fattree:k=4,rate=100Gbps,delay=10us --buffer 64KiB "
      "--traffic permutation:1MB --quiet --out " +
      out);
  EXPECT_EQ(option.status, 2);
  EXPECT_NE(option.stderr_text.find("smaller than the PFC headroom"), std::string::npos)
      << option.stderr_text;
  EXPECT_NE(option.stderr_text.find("--buffer"), std::string::npos) << option.stderr_text;
  EXPECT_FALSE(std::filesystem::exists(out + "/summary.json"));
  Result rack = RunCli(
      "--topology rack:hosts=8,delay=10us,buffer=64KiB --traffic incast:2:10KB "
      "--quiet --out " +
      out);
  EXPECT_EQ(rack.status, 2);
  EXPECT_NE(rack.stderr_text.find("buffer= of a rack: topology"), std::string::npos)
      << rack.stderr_text;
  // Without PFC there is no headroom to reserve: the same buffer is valid (and drops).
  EXPECT_EQ(RunCli("--topology rack:hosts=8,delay=10us,buffer=64KiB --pfc off "
                   "--traffic incast:2:10KB --quiet --out " +
                   out)
                .status,
            0);
}

// Links so slow that simulated time would pass 2^63 ps crashed the heap
// (exit 139); --cycle-ns -1/nan/inf and 2^63 compute cycles silently dropped compute time;
// --stop 0s exited 0 with the job unfinished; extra layer lines were ignored; clos:spines=5e7
// and --chunks 1e6 exhausted memory. Now: exit 2 with the option or file:line, or 3 when the
// run stopped before the jobs finished.
TEST(NetCli, AbsurdInputsEndCleanly) {
  const std::string out = TempDir("absurd");
  const std::string slow = out + "_slow.txt";
  std::ofstream(slow) << "4 2 4\n2 3\n0 2 1bps 1us 0\n1 2 1bps 1us 0\n2 3 1bps 1us 0\n"
                         "3 1 1bps 1us 0\n";
  const std::string tiny = out + "_tiny.txt";
  std::ofstream(tiny) << "DATA\n1\nconv -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 1048576 5\n";
  const std::string huge_cycles = out + "_cycles.txt";
  std::ofstream(huge_cycles) << "DATA\n1\nconv -1 9223372036854775807 NONE 0 5 NONE 0 5 "
                                "ALLREDUCE 4096 5\n";
  const std::string extra = out + "_extra.txt";
  std::ofstream(extra) << "DATA\n1\nconv -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 4096 5\n"
                          "fc -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 4096 5\n";
  const std::string delay = out + "_delay.txt";
  std::ofstream(delay) << "3 1 2\n2\n0 2 100Gbps 1000000s 0\n1 2 100Gbps 1us 0\n";
  const std::pair<std::string, std::string> kExit2[] = {
      {"--topology " + slow + " --workload " + tiny, "would pass its horizon of 1000000 s"},
      {"--topology " + slow + " --traffic permutation:1MB", "would pass its horizon"},
      {"--topology fattree:k=4 --workload " + tiny + " --cycle-ns -1", "--cycle-ns must be in"},
      {"--topology fattree:k=4 --workload " + tiny + " --cycle-ns nan", "--cycle-ns must be in"},
      {"--topology fattree:k=4 --workload " + tiny + " --cycle-ns inf", "--cycle-ns must be in"},
      {"--topology fattree:k=4 --workload " + huge_cycles,
       huge_cycles + ":3: expected an integer in [0, 1000000000000000] in column 3"},
      {"--topology fattree:k=4 --workload " + extra,
       extra + ":4: more layer lines than the 1 announced on line 2"},
      {"--topology clos:spines=50000000 --workload " + tiny, "clos: leaves, spines and hosts"},
      {"--topology clos:leaves=100000,hosts=100000 --workload " + tiny,
       "got leaves=100000, spines=8, hosts=100000"},
      {"--topology fattree:k=4 --workload " + tiny + " --chunks 1000000",
       "--chunks must be in [1, 1024]"},
      {"--topology fattree:k=4 --workload " + tiny + " --iterations 0", "--iterations must be in"},
      {"--topology fattree:k=4 --traffic permutation:1PB", "at most 100000000000 bytes"},
      {"--topology " + delay + " --workload " + tiny, delay + ":3: column 4 (delay)"}};
  for (const auto& [args, expected] : kExit2) {
    Result result = RunCli(args + " --quiet --out " + out);
    EXPECT_EQ(result.status, 2) << args << ": " << result.stderr_text;
    EXPECT_NE(result.stderr_text.find(expected), std::string::npos)
        << args << ": " << result.stderr_text;
  }
  Result stopped =
      RunCli("--topology fattree:k=4 --workload " + tiny + " --stop 0s --quiet --out " + out);
  EXPECT_EQ(stopped.status, 3) << stopped.stderr_text;
  EXPECT_NE(stopped.stderr_text.find("1 job(s) unfinished"), std::string::npos)
      << stopped.stderr_text;
  nlohmann::json summary = nlohmann::json::parse(Slurp(out + "/summary.json"));
  EXPECT_FALSE(summary["jobs"][0]["finished"].get<bool>());
  for (const std::string& file : {slow, tiny, huge_cycles, extra, delay}) {
    std::filesystem::remove(file);
  }
  std::filesystem::remove_all(out);
}

}  // namespace

namespace {

TEST(NetCli, RackExperimentReportsLatencyQueuesAndMl) {
  const std::string a = TempDir("rack_a"), b = TempDir("rack_b");
  const std::string common =
      " --topology rack:hosts=8,gbps=100 --transport pl2 --load 200% --duration 300us --drain 200us"
      " --ml-bytes 1MB --ml-hosts 4 --payload 1452 --quiet";
  ASSERT_EQ(RunCli(common + " --out " + a).status, 0);
  ASSERT_EQ(RunCli(common + " --out " + b).status, 0);
  EXPECT_EQ(Slurp(a + "/summary.json"), Slurp(b + "/summary.json"));
  auto summary = nlohmann::json::parse(Slurp(a + "/summary.json"));
  EXPECT_EQ(summary["transport"], "pl2");
  EXPECT_EQ(summary["pl2_bulk_order"], "oldest");  // the default sender order
  EXPECT_EQ(summary["network"]["drops"], 0);
  const auto& rack = summary["rack"];
  EXPECT_GT(rack["rpc"]["count"].get<int>(), 10);
  EXPECT_GT(rack["rpc"]["p99_us"].get<double>(), rack["rpc"]["p50_us"].get<double>() - 1e-9);
  EXPECT_TRUE(rack["rpc"]["by_response_size"].contains("le_1KB"));
  EXPECT_EQ(rack["switch_ports"].size(), 8u);
  EXPECT_GT(rack["ml"]["iterations"].get<int>(), 0);
  EXPECT_LE(summary["network"]["max_queue_bytes"].get<int>(),
            rack["pl2"]["queue_bound_bytes"].get<int>());
  for (const char* transport : {"homa", "dctcp", "dcqcn", "lossy"}) {
    const std::string out = TempDir(std::string("rack_") + transport);
    ASSERT_EQ(RunCli(" --topology rack:hosts=8 --transport " + std::string(transport) +
                     " --load 100% --duration 100us --drain 100us --quiet --out " + out)
                  .status,
              0)
        << transport;
    auto s = nlohmann::json::parse(Slurp(out + "/summary.json"));
    EXPECT_EQ(s["transport"], transport);
    EXPECT_TRUE(s["rack"]["rpc"].contains("p999_us"));
  }
  Result bad_transport = RunCli(" --topology rack:hosts=8 --transport tcp --load 1 --out " + a);
  EXPECT_EQ(bad_transport.status, 2);
  EXPECT_NE(bad_transport.stderr_text.find("--transport 'tcp'"), std::string::npos);
  Result bad_load = RunCli(" --topology rack:hosts=8 --transport pl2 --load lots --out " + a);
  EXPECT_EQ(bad_load.status, 2);
  EXPECT_NE(bad_load.stderr_text.find("--load 'lots'"), std::string::npos);
  Result two_nics =
      RunCli(" --topology fattree:k=4 --transport homa --traffic incast:2:1MB --out " + a);
  EXPECT_EQ(two_nics.status, 0) << two_nics.stderr_text;  // one NIC per host: fine
  Result pl2_fabric =
      RunCli(" --topology fattree:k=4 --transport pl2 --traffic incast:2:1MB --out " + a);
  EXPECT_EQ(pl2_fabric.status, 2);
  EXPECT_NE(pl2_fabric.stderr_text.find("one rack switch"), std::string::npos);
  Result placement =
      RunCli(" --topology rack:hosts=8 --transport pl2 --load 1 --ml-placement side --out " + a);
  EXPECT_EQ(placement.status, 2);
  EXPECT_NE(placement.stderr_text.find("--ml-placement 'side'"), std::string::npos);
  Result pattern =
      RunCli(" --topology rack:hosts=8 --transport pl2 --load 1 --ml-pattern tree --out " + a);
  EXPECT_EQ(pattern.status, 2);
  EXPECT_NE(pattern.stderr_text.find("--ml-pattern 'tree'"), std::string::npos);
  Result no_ml_hosts = RunCli(
      " --topology rack:hosts=4 --transport pl2 --load 1 --ml-bytes 1MB"
      " --ml-hosts 9 --out " +
      a);
  EXPECT_EQ(no_ml_hosts.status, 2);
}

}  // namespace
