// The real platform's and the load client's options without the binary: each check names its
// flag.
#include "faas/platform_run.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "faas/load_run.h"

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
