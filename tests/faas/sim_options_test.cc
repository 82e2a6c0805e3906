// faas's own options and output format, without the binary: SimRunOptions::Validate (every check
// names its flag), the enum tables, the runs a faas-sim invocation makes, the CSV rows, and the
// real platform's and the load client's options.
#include "faas/sim_options.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "faas/load_run.h"
#include "faas/platform_run.h"
#include "faas/sim_outputs.h"

namespace jigsaw::faas {
namespace {

// The message of the UsageError `validate` throws; "" when it throws none.
std::string UsageMessage(const std::function<void()>& validate) {
  try {
    validate();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(SimRunOptions, DefaultsValidate) {
  const SimRunSpec spec = SimRunOptions().Validate();
  ASSERT_EQ(spec.platforms.size(), 3u);
  EXPECT_EQ(spec.platforms[1], Platform::kOpenWhisk);
  ASSERT_EQ(spec.policies.size(), 1u);
  EXPECT_EQ(spec.policies[0], QueuePolicy::kRequestSlack);
  EXPECT_TRUE(spec.auto_warmup);
  EXPECT_EQ(spec.sim.worker_memory, 64ULL << 30);
  EXPECT_EQ(spec.sim.proactive_options.keep_window, 600 * net::kSecond);
  EXPECT_EQ(spec.workload.cores, spec.sim.cores);
}

// Each refused field's error names its flag, as on the command line.
TEST(SimRunOptions, EveryCheckNamesItsFlag) {
  const std::vector<std::pair<std::function<void(SimRunOptions&)>, std::string>> cases = {
      {[](SimRunOptions& o) { o.worker_memory = "0"; }, "--worker-memory '0'"},
      {[](SimRunOptions& o) { o.keep_alive = "0s"; }, "--keep-alive '0s'"},
      {[](SimRunOptions& o) { o.burst_period = "soon"; }, "--burst-period 'soon'"},
      {[](SimRunOptions& o) { o.dispatch_overhead = "11s"; }, "--dispatch-overhead"},
      {[](SimRunOptions& o) { o.ow_pause_grace = "x"; }, "--ow-pause-grace 'x'"},
      {[](SimRunOptions& o) { o.ow_unpause_cost = "11s"; }, "--ow-unpause-cost"},
      {[](SimRunOptions& o) { o.invoker_memory = "0"; }, "--invoker-memory '0'"},
      {[](SimRunOptions& o) { o.sim.ow_stem_cells = 65; }, "--ow-stem-cells"},
      {[](SimRunOptions& o) { o.ow_stem_cell_memory = "40GiB"; }, "--ow-stem-cell-memory"},
      {[](SimRunOptions& o) { o.sim.ow_stem_cell_init_share = 2; }, "--ow-stem-cell-init-share"},
      {[](SimRunOptions& o) { o.duration_model = "long"; }, "expected azure or short"},
      {[](SimRunOptions& o) { o.setup_median = "0s"; }, "--setup-median"},
      {[](SimRunOptions& o) { o.duration_median = "-"; }, "--duration-median"},
      {[](SimRunOptions& o) { o.workload.load = 0; }, "--load"},
      {[](SimRunOptions& o) { o.sim.cores = 0; }, "--cores"},
      {[](SimRunOptions& o) { o.sim.cores_per_worker = 2000; }, "--cores-per-worker"},
      {[](SimRunOptions& o) { o.sim.workers_per_sgs = 0; }, "--workers-per-sgs"},
      {[](SimRunOptions& o) { o.sim.requests = 0; }, "--requests"},
      {[](SimRunOptions& o) { o.workload.dags = 0; }, "--apps"},
      {[](SimRunOptions& o) { o.sim.sparrow_probes = 9; }, "--sparrow-probes"},
      {[](SimRunOptions& o) { o.sim.burst_sigma = -1; }, "--burst-sigma"},
      {[](SimRunOptions& o) { o.sim.max_retries = 101; }, "--max-retries"},
      {[](SimRunOptions& o) { o.kills = {"x@1s"}; }, "--kill 'x@1s'"},
      {[](SimRunOptions& o) { o.kills = {"3@soon"}; }, "--kill 'soon'"},
      {[](SimRunOptions& o) { o.platforms = "lambda"; },
       "--platforms: unknown 'lambda' (archipelago, openwhisk, sparrow)"},
      {[](SimRunOptions& o) { o.policies = "sjf"; },
       "--policies: unknown 'sjf' (lsf, edf, fifo, rlsf)"},
      {[](SimRunOptions& o) { o.policies = " , "; }, "--platforms and --policies"},
      {[](SimRunOptions& o) {
         o.platforms = "archipelago";
         o.stem_cells_given = true;
       },
       "apply to the openwhisk platform only"},
      {[](SimRunOptions& o) { o.warmup = "soon"; }, "--warmup 'soon'"},
  };
  for (const auto& [mutate, fragment] : cases) {
    SimRunOptions o;
    mutate(o);
    const std::string message = UsageMessage([&] { o.Validate(); });
    EXPECT_NE(message.find(fragment), std::string::npos) << fragment << ": " << message;
  }
}

TEST(SimRunOptions, ParsesKillsAndWarmup) {
  SimRunOptions o;
  o.kills = {"2@30s"};
  o.warmup = "5s";
  const SimRunSpec spec = o.Validate();
  ASSERT_EQ(spec.sim.kills.size(), 1u);
  EXPECT_EQ(spec.sim.kills[0].worker, 2u);
  EXPECT_EQ(spec.sim.kills[0].at, 30 * net::kSecond);
  EXPECT_FALSE(spec.auto_warmup);
  EXPECT_EQ(spec.sim.warmup, 5 * net::kSecond);
}

TEST(EnumTables, FeedParsingAndLists) {
  EXPECT_EQ(EnumNames(Platforms(), ", ", " or "), "archipelago, openwhisk or sparrow");
  EXPECT_EQ(EnumNames(QueuePolicies(), ",", ","), "lsf,edf,fifo,rlsf");
  EXPECT_EQ(EnumNames(DurationModels(), ", ", " or "), "azure or short");
  for (const EnumName<QueuePolicy>& entry : QueuePolicies()) {
    QueuePolicy parsed;
    ASSERT_TRUE(ParseQueuePolicy(entry.name, &parsed));
    EXPECT_EQ(parsed, entry.value);
    EXPECT_STREQ(QueuePolicyName(entry.value), entry.name);
  }
  Platform platform;
  EXPECT_FALSE(ParsePlatform("lambda", &platform));
  EXPECT_STREQ(PlatformName(Platform::kSparrow), "sparrow");
}

// Archipelago once per policy, then each ablation with the first policy; a baseline once, FIFO.
TEST(SimVariants, ArchipelagoPoliciesThenAblationsThenBaselines) {
  SimRunOptions o;
  o.platforms = "archipelago,sparrow";
  o.policies = "lsf,edf";
  o.no_proactive_ablation = o.admission_control = true;
  const std::vector<SimOptions> runs = SimVariants(o.Validate(), o);
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[1].queue_policy, QueuePolicy::kEarliestDeadline);
  EXPECT_FALSE(runs[2].proactive);
  EXPECT_EQ(runs[2].queue_policy, QueuePolicy::kLeastSlack);
  EXPECT_TRUE(runs[3].admission_control);
  EXPECT_EQ(runs[4].platform, Platform::kSparrow);
  EXPECT_EQ(runs[4].queue_policy, QueuePolicy::kFifo);
}

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

TEST(PlatformRunOptions, ChecksNameTheirFlag) {
  const Catalog catalog = OneDag("d");
  const std::vector<std::pair<std::function<void(PlatformRunOptions&)>, std::string>> cases = {
      {[](PlatformRunOptions& o) { o.platform.platform = "lambda"; },
       "expected archipelago, openwhisk or sparrow"},
      {[](PlatformRunOptions& o) { o.policy = "sjf"; }, "--policy 'sjf': expected lsf, edf"},
      {[](PlatformRunOptions& o) { o.memory = "50MB"; }, "more memory than --memory 50MB"},
      {[](PlatformRunOptions& o) { o.invoker_memory = "1GiB"; }, "openwhisk only"},
      {[](PlatformRunOptions& o) { o.sparrow_probes = "2"; }, "--sparrow-probes applies"},
      {[](PlatformRunOptions& o) {
         o.platform.platform = "sparrow";
         o.sparrow_probes = "9";
       },
       "--sparrow-probes '9': expected 1..8"},
      {[](PlatformRunOptions& o) { o.platform.sgs.slots = 0; }, "--slots"},
      {[](PlatformRunOptions& o) { o.max_retries = 11; }, "--max-retries"},
      {[](PlatformRunOptions& o) { o.epoch = "0s"; }, "--epoch '0s'"},
      {[](PlatformRunOptions& o) { o.platform.max_sgs_restarts = -1; }, "--sgs-restarts"},
      {[](PlatformRunOptions& o) { o.platform.http_threads = 0; }, "--http-threads"},
      {[](PlatformRunOptions& o) { o.sandbox_memory = "lots"; }, "--sandbox-memory 'lots'"},
  };
  for (const auto& [mutate, fragment] : cases) {
    PlatformRunOptions o;
    mutate(o);
    const std::string message = UsageMessage([&] { o.Validate(catalog); });
    EXPECT_NE(message.find(fragment), std::string::npos) << fragment << ": " << message;
  }
  PlatformRunOptions openwhisk;
  openwhisk.platform.platform = "openwhisk";
  const PlatformOptions p = openwhisk.Validate(catalog);
  EXPECT_EQ(p.sgs.pause_grace, 50 * net::kMillisecond);
  EXPECT_EQ(p.sgs.resume_cost, 15 * net::kMillisecond);
}

TEST(LoadRunOptions, RateAndBurstChecks) {
  LoadRunOptions o;
  o.rate = "20/s";
  EXPECT_EQ(o.Validate().rate_per_s, 20);
  o.rate = "fast";
  EXPECT_NE(UsageMessage([&] { o.Validate(); }).find("--rate 'fast'"), std::string::npos);
  o.rate = "20";
  o.burst_period = "0s";
  EXPECT_NE(UsageMessage([&] { o.Validate(); }).find("--burst-period '0s'"), std::string::npos);
  o.burst_period = "10s";
  o.load.burst_sigma = 6;
  EXPECT_NE(UsageMessage([&] { o.Validate(); }).find("--burst-sigma"), std::string::npos);
}

}  // namespace
}  // namespace jigsaw::faas
