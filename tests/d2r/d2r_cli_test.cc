// `jigsaw d2r` end to end on a tiny GraphML topology: outputs, byte-identical reruns, and clean
// errors (exit 2) for bad options and malformed input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "test_util/shell.h"

namespace {

struct Result {
  int status;
  std::string stderr_text;
};

// Per process: ctest runs these tests concurrently, and other checkouts may run them too.
std::string TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("jigsaw_d2r_cli_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

// Standard error only (the order of the redirections sends standard output to /dev/null).
Result RunCli(const std::string& args) {
  const jigsaw::test_util::CommandResult run =
      jigsaw::test_util::RunShell(std::string(JIGSAW_BINARY) + " d2r " + args + " 2>&1 >/dev/null");
  return {run.exit_code, run.output};
}

using jigsaw::test_util::Slurp;

// A ring of four cities with a chord: New York, Chicago, Denver, Atlanta.
std::string WriteTopology() {
  const std::string path = TempDir("topology") + ".graphml";
  std::ofstream out(path);
  out << R"(<?xml version="1.0" encoding="utf-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key attr.name="label" attr.type="string" for="node" id="d0" />
  <key attr.name="Latitude" attr.type="double" for="node" id="d1" />
  <key attr.name="Longitude" attr.type="double" for="node" id="d2" />
  <graph edgedefault="undirected">
    <node id="0"><data key="d0">New York</data><data key="d1">40.71</data><data key="d2">-74.0</data></node>
    <node id="1"><data key="d0">Chicago</data><data key="d1">41.85</data><data key="d2">-87.65</data></node>
    <node id="2"><data key="d0">Denver</data><data key="d1">39.74</data><data key="d2">-104.98</data></node>
    <node id="3"><data key="d0">Atlanta</data><data key="d1">33.75</data><data key="d2">-84.39</data></node>
    <edge source="0" target="1" />
    <edge source="1" target="2" />
    <edge source="2" target="3" />
    <edge source="3" target="0" />
    <edge source="1" target="3" />
  </graph>
</graphml>
)";
  return path;
}

TEST(D2rCli, SingleFailureSummaryForEveryScheme) {
  const std::string topology = WriteTopology();
  const std::string a = TempDir("a"), b = TempDir("b");
  const std::string common = " --topology " + topology +
                             " --fail link:Chicago-Denver --policy avoid:node:Atlanta"
                             " --traffic 1000pps";
  Result run = RunCli(common + " --out " + a);
  ASSERT_EQ(run.status, 0) << run.stderr_text;
  // The result summary on stderr: every scheme's recovery and the files written.
  EXPECT_NE(run.stderr_text.find("files written:"), std::string::npos) << run.stderr_text;
  EXPECT_NE(run.stderr_text.find(a + "/scenarios.csv"), std::string::npos) << run.stderr_text;
  EXPECT_NE(run.stderr_text.find("controller"), std::string::npos) << run.stderr_text;
  ASSERT_EQ(RunCli(common + " --quiet --out " + b).status, 0);
  EXPECT_EQ(Slurp(a + "/summary.json"), Slurp(b + "/summary.json"));
  EXPECT_EQ(Slurp(a + "/scenarios.csv"), Slurp(b + "/scenarios.csv"));
  auto summary = nlohmann::json::parse(Slurp(a + "/summary.json"));
  EXPECT_EQ(summary["network"]["nodes"], 4);
  EXPECT_EQ(summary["network"]["links"], 5);
  EXPECT_EQ(summary["policy"], "avoid:node:Atlanta");
  EXPECT_EQ(summary["failure"], "link:Chicago-Denver");
  EXPECT_EQ(summary["traffic"]["flows"], 6);  // ordered pairs of the three allowed cities
  EXPECT_GT(summary["flows_affected"].get<int>(), 0);
  for (const char* scheme : {"d2r", "controller", "link_state", "lfa"}) {
    ASSERT_TRUE(summary["schemes"].contains(scheme)) << scheme;
    EXPECT_TRUE(summary["schemes"][scheme].contains("recovery_us"));
    EXPECT_TRUE(summary["schemes"][scheme].contains("per_switch"));
  }
  // Avoiding Atlanta, Chicago-Denver has no detour: every affected flow is unrecoverable.
  EXPECT_EQ(summary["flows_recoverable"], 0);
  EXPECT_GT(summary["d2r_state_per_switch"]["total_register_bits"].get<int>(), 0);
}

TEST(D2rCli, D2rBeatsTheControllerOnASingleFailure) {
  const std::string topology = WriteTopology(), out = TempDir("fast");
  ASSERT_EQ(RunCli(" --topology " + topology +
                   " --fail link:0-1 --traffic 1Mpps --d2r-backup-trees 0 --quiet --out " + out)
                .status,
            0);
  auto summary = nlohmann::json::parse(Slurp(out + "/summary.json"));
  const auto& d2r = summary["schemes"]["d2r"];
  EXPECT_GT(summary["flows_recoverable"].get<int>(), 0);
  EXPECT_EQ(d2r["packets_lost"], 0);
  EXPECT_EQ(d2r["flows_violating_policy"], 0);
  EXPECT_GT(d2r["packets_held"].get<int>(), 0);
  EXPECT_GT(d2r["work"]["recirculations"].get<int>(), 0);
  EXPECT_GT(summary["schemes"]["controller"]["packets_lost"].get<int>(), 0);
  const auto& bounded = summary["d2r_speedup_over_controller_bounded"];
  if (bounded.is_string()) {
    EXPECT_EQ(bounded, "inf");
  } else {
    EXPECT_GE(bounded.get<double>(), 100.0);
  }
  EXPECT_LE(d2r["recovery_bounded_us"].get<double>(), d2r["recovery_us"].get<double>());
  // Defaults: the level-parallel BFS (its replication state reported), the stale hold rule
  // (subtree labels in registers), an in-band controller, a 100 us delay bound.
  EXPECT_EQ(summary["timing"]["d2r_bfs"], "level");
  EXPECT_EQ(summary["timing"]["d2r_hold"], "stale");
  EXPECT_EQ(summary["timing"]["delay_bound_us"], 100.0);
  EXPECT_EQ(summary["timing"]["controller_control"], "in-band");
  EXPECT_EQ(summary["d2r_state_per_switch"]["multicast_groups"], summary["network"]["nodes"]);
  EXPECT_GT(summary["d2r_state_per_switch"]["label_bits"].get<int>(), 0);

  // The sequential BFS: same losses and routes, slower.
  const std::string entry_out = TempDir("fast_entry");
  ASSERT_EQ(
      RunCli(
          " --topology " + topology +
          " --fail link:0-1 --traffic 1Mpps --quiet --d2r-backup-trees 0 --d2r-bfs entry --out " +
          entry_out)
          .status,
      0);
  auto entry = nlohmann::json::parse(Slurp(entry_out + "/summary.json"));
  EXPECT_EQ(entry["timing"]["d2r_bfs"], "entry");
  EXPECT_FALSE(entry["d2r_state_per_switch"].contains("multicast_groups"));
  EXPECT_EQ(entry["schemes"]["d2r"]["packets_lost"], 0);
  EXPECT_EQ(entry["schemes"]["d2r"]["mean_stretch"], d2r["mean_stretch"]);
  EXPECT_GE(entry["schemes"]["d2r"]["recovery_us"].get<double>(), d2r["recovery_us"].get<double>());

  // The port hold rule keeps no subtree labels.
  const std::string port_out = TempDir("fast_port");
  ASSERT_EQ(
      RunCli(
          " --topology " + topology +
          " --fail link:0-1 --traffic 1Mpps --quiet --d2r-backup-trees 0 --d2r-hold port --out " +
          port_out)
          .status,
      0);
  auto port = nlohmann::json::parse(Slurp(port_out + "/summary.json"));
  EXPECT_EQ(port["timing"]["d2r_hold"], "port");
  EXPECT_EQ(port["d2r_state_per_switch"]["label_bits"], 0);
  EXPECT_EQ(port["schemes"]["d2r"]["packets_lost"], 0);

  // Precomputed single-failure trees (the default): both ends of 0-1 switch to their tree for
  // 0-1 instead of computing, so nothing is held or recirculated; same losses and routes.
  const std::string backup_out = TempDir("fast_backup");
  ASSERT_EQ(RunCli(" --topology " + topology + " --fail link:0-1 --traffic 1Mpps --quiet --out " +
                   backup_out)
                .status,
            0);
  auto backup = nlohmann::json::parse(Slurp(backup_out + "/summary.json"));
  EXPECT_EQ(backup["timing"]["d2r_backup_trees"], 16);
  EXPECT_EQ(backup["timing"]["d2r_backup_radius"], 1);
  EXPECT_GT(backup["d2r_state_per_switch"]["backup_trees"].get<int>(), 0);
  EXPECT_GT(backup["d2r_state_per_switch"]["backup_bits"].get<int>(), 0);
  const auto& switched = backup["schemes"]["d2r"];
  EXPECT_GE(switched["work"]["backup_tree_switches"].get<int>(), 2);
  EXPECT_EQ(switched["packets_lost"], 0);
  EXPECT_EQ(switched["mean_stretch"], d2r["mean_stretch"]);
  EXPECT_LE(switched["packets_held"].get<int>(), d2r["packets_held"].get<int>());
}

TEST(D2rCli, ManyScenariosAggregate) {
  const std::string topology = WriteTopology(), out = TempDir("each");
  ASSERT_EQ(RunCli(" --topology " + topology + " --fail each-link --quiet --out " + out).status, 0);
  auto summary = nlohmann::json::parse(Slurp(out + "/summary.json"));
  EXPECT_EQ(summary["scenarios"], 5);
  EXPECT_TRUE(summary["schemes"]["d2r"].contains("recovery_ms"));
  EXPECT_EQ(summary["schemes"]["d2r"]["packets_lost"]["total"], 0);
  std::string csv = Slurp(out + "/scenarios.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 5 * 4);
  ASSERT_EQ(RunCli(" --topology " + topology + " --fail pairs:3 --quiet --out " + out).status, 0);
  summary = nlohmann::json::parse(Slurp(out + "/summary.json"));
  EXPECT_EQ(summary["scenarios"], 3);
}

TEST(D2rCli, BadOptionsAreUsageErrors) {
  const std::string topology = WriteTopology(), out = TempDir("bad");
  const std::string base = " --topology " + topology + " --out " + out;
  struct Case {
    std::string args;
    std::string message;
  } cases[] = {
      {" --fail link:Chicago-Boston",
       "jigsaw: --fail 'link:Chicago-Boston': no node with id or label 'Boston'\n"},
      {" --fail link:New York-Denver", ""},  // the shell splits the name: an unexpected argument
      {" --fail link:0-1 --bogus", ""},
      {" --fail wobble:3",
       "jigsaw: --fail 'wobble:3': expected link:X-Y[,..], node:X, random:K, each-link[:N] or "
       "pairs:N\n"},
      {" --fail random:9", "jigsaw: --fail 'random:9': the topology has only 5 links\n"},
      {" --fail link:0-1 --policy avoid:node:Paris",
       "jigsaw: --policy term 'avoid:node:Paris': no node with id or label 'Paris'\n"},
      {" --fail link:0-1 --traffic fast",
       "jigsaw: --traffic 'fast': expected a per-flow rate like 10000pps, 10kpps or 100Mbps\n"},
      {" --fail link:0-1 --detection-delay 5",
       "jigsaw: --detection-delay '5': expected a duration like 10ms, 5us or 0us\n"},
      {" --fail link:0-1 --d2r-adjacency-per-pass 0",
       "jigsaw: --d2r-adjacency-per-pass must be 1..64\n"},
      {" --fail link:0-1 --d2r-bfs parallel",
       "jigsaw: --d2r-bfs 'parallel': expected entry or level\n"},
      {" --fail link:0-1 --d2r-hold all", "jigsaw: --d2r-hold 'all': expected port or stale\n"},
      {" --fail link:0-1 --d2r-backup-trees -1", "jigsaw: --d2r-backup-trees must be 0..1024\n"},
      {" --fail link:0-1 --d2r-backup-radius 17", "jigsaw: --d2r-backup-radius must be 0..16\n"},
      {" --fail link:0-1 --control oob",
       "jigsaw: --control 'oob': expected in-band or out-of-band\n"},
  };
  for (const Case& c : cases) {
    Result r = RunCli(base + c.args);
    EXPECT_EQ(r.status, 2) << c.args << ": " << r.stderr_text;
    if (!c.message.empty()) {
      EXPECT_EQ(r.stderr_text, c.message) << c.args;
    }
  }
}

TEST(D2rCli, MalformedTopologyNamesFileAndLine) {
  const std::string path = TempDir("broken") + ".graphml", out = TempDir("broken_out");
  {
    std::ofstream file(path);
    file << "<graphml>\n  <graph>\n    <node id=\"a\"/>\n    <edge source=\"a\" target=\"b\"/>\n"
            "  </graph>\n</graphml>\n";
  }
  Result r = RunCli(" --topology " + path + " --fail link:a-b --out " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.stderr_text, "jigsaw: " + path + ":4: edge target 'b' is not a node id\n");
}

}  // namespace
