// Measured duration distributions: the duration file's rules (file:line errors), the inverse CDF
// the simulator samples, the SGS's recent-duration quantiles, and faas-sim replaying a
// distribution and a constant dispatch overhead on a tiny input.
#include "faas/duration_table.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "faas/dag_reader.h"
#include "faas/simulator.h"

namespace jigsaw::faas {
namespace {

constexpr Time kMs = net::kMillisecond;

Catalog TwoFunctions() {
  return ParseDagText("dags.json", R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "one", "deadline": "1s", "rate": 5, "functions": [
      {"name": "f", "duration": "50ms", "setup": "100ms"},
      {"name": "g", "duration": "50ms", "after": ["f"]}]}]})");
}

std::string ErrorOf(const std::string& text) {
  try {
    ParseDurationText("d.csv", text, TwoFunctions());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(DurationTable, ReadsQuantilesAndSamplesTheirInverseCdf) {
  const auto table = ParseDurationText("d.csv",
                                       "# measured\n"
                                       "dag,function,quantile,duration\n"
                                       "one,f,1,40ms\n"
                                       "one,f,0,10ms\n"
                                       "\n"
                                       "one,f,0.5,20ms\n",
                                       TwoFunctions());
  ASSERT_EQ(table.size(), 2u);
  EXPECT_TRUE(table[1].empty());  // g keeps the lognormal
  const DurationQuantiles& f = table[0];
  ASSERT_EQ(f.quantiles.size(), 3u);
  EXPECT_EQ(f.line, 4);
  EXPECT_EQ(f.Sample(0), 10 * kMs);
  EXPECT_EQ(f.Sample(0.25), 15 * kMs);
  EXPECT_EQ(f.Sample(0.5), 20 * kMs);
  EXPECT_EQ(f.Sample(0.75), 30 * kMs);
  EXPECT_EQ(f.Sample(1), 40 * kMs);
  EXPECT_EQ(f.Mean(), 22'500 * net::kMicrosecond);  // 0.5 x 15 ms + 0.5 x 30 ms
}

TEST(DurationTable, MalformedFilesNameTheLine) {
  const std::string header = "dag,function,quantile,duration\n";
  EXPECT_NE(ErrorOf("one,f,0,1ms\n").find("d.csv:1:"), std::string::npos);
  EXPECT_NE(ErrorOf("").find("d.csv:1:"), std::string::npos);
  EXPECT_NE(ErrorOf(header + "one,f,0,1ms\none,h,1,2ms\n").find("d.csv:3: no function 'h'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(header + "two,f,0,1ms\n").find("d.csv:2:"), std::string::npos);
  EXPECT_NE(ErrorOf(header + "one,f,0,1ms,3\n").find("d.csv:2:"), std::string::npos);
  EXPECT_NE(ErrorOf(header + "one,f,1.5,1ms\n").find("d.csv:2:"), std::string::npos);
  EXPECT_NE(ErrorOf(header + "one,f,0,fast\n").find("d.csv:2: column 4"), std::string::npos);
  EXPECT_NE(ErrorOf(header + "one,f,0,1ms\none,f,0,2ms\n").find("d.csv:3:"), std::string::npos);
  EXPECT_NE(ErrorOf(header + "one,f,0.5,1ms\none,f,1,2ms\n").find("d.csv:2:"),
            std::string::npos);  // no quantile 0
  const std::string decreasing = ErrorOf(header + "one,f,0,5ms\none,f,0.5,4ms\none,f,1,9ms\n");
  EXPECT_NE(decreasing.find("d.csv:3:"), std::string::npos) << decreasing;
  EXPECT_NE(decreasing.find("must not decrease"), std::string::npos) << decreasing;
}

TEST(DurationTable, RecentDurationsKeepTheLastRunsAndTheirQuantiles) {
  RecentDurations recent(2, 4);
  EXPECT_TRUE(recent.Quantiles(0, {0, 1}).empty());
  for (Time t : {100, 1, 2, 3, 4}) recent.Add(0, t * kMs);  // 100 ms is overwritten
  EXPECT_EQ(recent.count(0), 5u);
  EXPECT_EQ(recent.Quantiles(0, {0, 1}), (std::vector<Time>{1 * kMs, 4 * kMs}));
  EXPECT_EQ(recent.Quantiles(0, {0.5}), (std::vector<Time>{3 * kMs}));  // nearest rank 1.5 -> 2
  EXPECT_EQ(recent.count(1), 0u);
}

SimOptions Tiny() {
  SimOptions o;
  o.platform = Platform::kArchipelago;
  o.cores = 8;
  o.cores_per_worker = 4;
  o.workers_per_sgs = 2;
  o.worker_memory = 4ULL << 30;
  o.requests = 2'000;
  o.warmup = 20 * net::kSecond;
  return o;
}

TEST(FaasSimulatorDurations, ReplaysTheMeasuredDistributionAndTheDispatchOverhead) {
  const Catalog catalog = TwoFunctions();
  // f always 7 ms, g uniform in [10, 30] ms: a request (f then g, far below capacity: 5/s on 8
  // cores) runs 17..37 ms, median and mean 27 ms; every task pays the dispatch overhead on top.
  const auto table = ParseDurationText("d.csv",
                                       "dag,function,quantile,duration\n"
                                       "one,f,0,7ms\none,f,1,7ms\n"
                                       "one,g,0,10ms\none,g,1,30ms\n",
                                       catalog);
  SimOptions o = Tiny();
  o.measured_durations = &table;
  const SimResult plain = Simulate(catalog, o);
  EXPECT_EQ(plain.cold_starts, 0u);
  // Bursts sometimes make g wait for its busy sandbox (parking beats a 100 ms cold start), so
  // only the centre is pinned, not the maximum.
  EXPECT_GE(plain.p50_ms, 26.0);
  EXPECT_LE(plain.p50_ms, 28.0);
  EXPECT_GE(plain.mean_ms, 26.0);
  EXPECT_LE(plain.mean_ms, 29.0);
  o.dispatch_overhead = 3 * kMs;
  const SimResult overhead = Simulate(catalog, o);
  EXPECT_NEAR(overhead.p50_ms, plain.p50_ms + 6.0, 0.5);  // 2 tasks x 3 ms
  EXPECT_NEAR(overhead.mean_ms, plain.mean_ms + 6.0, 0.5);
}

}  // namespace
}  // namespace jigsaw::faas
