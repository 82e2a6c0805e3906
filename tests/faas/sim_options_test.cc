// faas-sim's options without the binary: SimRunOptions::Validate (every check names its flag),
// the enum tables and the runs one invocation makes.
#include "faas/sim_options.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/error.h"

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

}  // namespace
}  // namespace jigsaw::faas
