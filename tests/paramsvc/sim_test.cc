#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "paramsvc/trace_sim.h"

namespace jigsaw::paramsvc {
namespace {

const std::string kData = JIGSAW_SHARED_DATA;
const std::string kThroughputs = kData + "/throughputs/shockwave_tacc_throughputs.json";

TEST(ParamServiceSim, TwoOverlappingJobsShareOneAggregator) {
  if (!std::filesystem::exists(kThroughputs)) GTEST_SKIP() << "no " << kThroughputs;
  const std::string trace = std::filesystem::temp_directory_path() /
                            ("jigsaw_paramsvc_sim_" + std::to_string(getpid()) + ".csv");
  {
    std::ofstream out(trace);
    out << "timestamp,duration,num_gpus,gpu_time,cluster\n"
        << "2017-10-09 00:00:00,1000,2,2000,c\n"  // [0, 1000)
        << "2017-10-09 00:05:00,1000,4,4000,c\n"  // [300, 1300)
        << "2017-10-09 00:10:00,500,1,500,c\n";   // one GPU: no PS
  }
  TraceSimOptions options;
  options.trace = trace;
  options.throughputs = kThroughputs;
  options.ns_per_float = 1e-3;  // tiny demands: everything fits one aggregator
  options.sample_s = 100;
  const TraceSimResult r = SimulateTrace(options);
  std::filesystem::remove(trace);
  EXPECT_EQ(r.trace_jobs, 3);
  ASSERT_EQ(r.ps_jobs, 2);
  EXPECT_DOUBLE_EQ(r.peak_dedicated, 2);
  EXPECT_DOUBLE_EQ(r.peak_service, 1);
  EXPECT_DOUBLE_EQ(r.span_s, 1300);
  // Dedicated: 1 core on [0, 300) and [1000, 1300), 2 on [300, 1000): 2000 core-s.
  EXPECT_NEAR(r.mean_dedicated, 2000.0 / 1300, 1e-9);
  EXPECT_NEAR(r.mean_service, 1.0, 1e-9);
  ASSERT_EQ(r.samples.size(), 14u);  // t = 0, 100, ..., 1300
  EXPECT_DOUBLE_EQ(r.samples[5].dedicated_cores, 2);
  EXPECT_DOUBLE_EQ(r.samples[5].service_cores, 1);
}

TEST(ParamServiceSim, PhillyPrefixSavesCoresOnceDedicatedServersAreSizedForBursts) {
  const std::string philly = kData + "/traces/philly/philly.csv";
  if (!std::filesystem::exists(philly) || !std::filesystem::exists(kThroughputs)) {
    GTEST_SKIP() << "no Philly trace or throughputs under " << kData;
  }
  TraceSimOptions options;
  options.trace = philly;
  options.throughputs = kThroughputs;
  options.max_jobs = 5000;
  options.burst_fraction = 0.5;  // a dedicated PS aggregates within half an iteration
  const TraceSimResult r = SimulateTrace(options);
  EXPECT_GT(r.ps_jobs, 100);
  EXPECT_GT(r.peak_dedicated, 0);
  EXPECT_LT(r.peak_service, r.peak_dedicated);
  EXPECT_LT(r.mean_service, r.mean_dedicated);
  EXPECT_GT(r.migrations, 0);
  // The service holds at least the demand (capacity 0.8 per aggregator).
  EXPECT_GE(r.mean_service + 1e-9, r.mean_demand / 0.8);
}

}  // namespace
}  // namespace jigsaw::paramsvc
