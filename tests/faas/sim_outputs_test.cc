// faas-sim's output format and the run as a library call, without the binary.
#include "faas/sim_outputs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "faas/sim_run.h"

namespace jigsaw::faas {
namespace {

Catalog OneDag(const std::string& name) {
  Catalog catalog;
  Function f;
  f.name = "f";
  f.duration = 10 * net::kMillisecond;
  f.memory = 100 << 20;
  catalog.functions.push_back(f);
  Dag dag;
  dag.name = name;
  dag.deadline = 100 * net::kMillisecond;
  dag.nodes = {0};
  dag.successors = {{}};
  dag.predecessor_count = {0};
  dag.rate_per_s = 2;
  catalog.dags.push_back(dag);
  return catalog;
}

// A DAG name with a comma stays one CSV field; rows follow the documented columns.
TEST(SimOutputs, RowsFollowTheHeaderAndQuoteText) {
  const Catalog catalog = OneDag("a,b");
  SimOutputs outputs(catalog, 10 * net::kSecond, 8);
  SimResult r;
  r.platform = "archipelago";
  r.policy = "rlsf";
  r.requests = r.completed = r.measured = 4;
  r.per_dag.resize(1);
  r.per_dag[0].measured = 4;
  r.per_dag[0].missed = 1;
  DagPeriodOutcome period;
  period.arrived = 4;
  period.missed = 1;
  r.per_dag_period.push_back(period);
  outputs.Add(r);
  EXPECT_NE(outputs.results_csv().find("\narchipelago,rlsf,4,4,0,0,4,0.000,"), std::string::npos)
      << outputs.results_csv();
  EXPECT_NE(outputs.per_dag_csv().find("\narchipelago,rlsf,\"a,b\",http,1,2.0000,0.020,100.000,"
                                       "10.000,4,1,25.000,"),
            std::string::npos)
      << outputs.per_dag_csv();
  EXPECT_NE(outputs.per_dag_period_csv().find("\narchipelago,rlsf,\"a,b\",0.0,4,"),
            std::string::npos)
      << outputs.per_dag_period_csv();
  const Json j = SimResultJson(r);
  EXPECT_EQ(j["platform"], "archipelago");
  EXPECT_EQ(j["tail_above_p99"]["requests"], 0);
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// RunSimulation validates, simulates and writes the four files; the inputs echo the options as
// spelled and the offered load the generator scaled to.
TEST(RunSimulation, WritesTheOutputFolder) {
  SimRunOptions o;
  o.sim.requests = 300;
  o.sim.cores = 40;
  o.sim.cores_per_worker = 4;
  o.sim.workers_per_sgs = 2;
  o.workload.dags = 5;
  o.platforms = "archipelago,sparrow";
  o.keep_alive = "60s";
  o.quiet = true;
  o.out =
      (std::filesystem::temp_directory_path() / ("jigsaw_sim_run_" + std::to_string(::getpid())))
          .string();
  ASSERT_EQ(RunSimulation(o), 0);
  const Json summary = Json::parse(Slurp(o.out + "/summary.json"));
  EXPECT_EQ(summary["format"], "jigsaw-faas-sim-v1");
  EXPECT_EQ(summary["inputs"]["keep_alive"], "60s");
  EXPECT_NEAR(summary["inputs"]["offered_load"].get<double>(), 0.7, 1e-3);
  ASSERT_EQ(summary["results"].size(), 2u);
  EXPECT_EQ(summary["results"][1]["platform"], "sparrow");
  EXPECT_EQ(summary["results"][0]["lost"], 0);
  const std::string csv = Slurp(o.out + "/results.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;
  EXPECT_TRUE(std::filesystem::exists(o.out + "/per_dag.csv"));
  EXPECT_TRUE(std::filesystem::exists(o.out + "/per_dag_period.csv"));
  std::filesystem::remove_all(o.out);
}

TEST(RunSimulation, NothingMeasuredWarningNamesTheWarmup) {
  SimResult r;
  r.platform = "openwhisk";
  r.policy = "fifo";
  r.requests = 40;
  const std::string text = NothingMeasuredWarning(r, "1000s", 1000 * net::kSecond, 2.0);
  EXPECT_NE(text.find("openwhisk/fifo measured no request"), std::string::npos) << text;
  EXPECT_NE(text.find("--warmup 1000s"), std::string::npos) << text;
}

}  // namespace
}  // namespace jigsaw::faas
