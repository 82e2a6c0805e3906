// The expected end of a net run that its progress line measures simulated time against: a lower
// bound from the hosts' NICs for flows, compute plus collective bytes for workload jobs; and the
// run's result summary naming its files.
#include "net/progress_estimate.h"

#include <gtest/gtest.h>

#include <string>

#include "net/run_summary.h"
#include "net/topology.h"

namespace jigsaw::net {
namespace {

Topology Star(int hosts) {
  std::string text = std::to_string(hosts + 1) + " 1 " + std::to_string(hosts) + "\n" +
                     std::to_string(hosts) + "\n";
  for (int h = 0; h < hosts; ++h) {
    text += std::to_string(h) + " " + std::to_string(hosts) + " 100Gbps 1us 0\n";
  }
  return ParseTopologyText("star", text);
}

TEST(ProgressEstimate, IncastEndsNoEarlierThanTheReceiversNicAllows) {
  NetConfig config;
  Network network(Star(5), config);
  EXPECT_EQ(EstimatedEndOfFlows(network), 0);
  for (uint32_t s = 1; s <= 4; ++s) network.AddFlow(s, 0, 1'000'000, 0, 0);
  // 4 MB into one 100 Gbps NIC: 320 us; each flow alone needs about 80 us.
  const Time end = EstimatedEndOfFlows(network);
  EXPECT_NEAR(static_cast<double>(end), 320.0 * kMicrosecond, 2);
  network.Run();
  // The estimate is a lower bound: the real run ends later (headers, the path's latency).
  EXPECT_GT(network.Stats().end, end);
  EXPECT_LT(network.Stats().end, 2 * end);
}

TEST(ProgressEstimate, WorkloadJobsCountComputeAndTwiceTheirCollectiveBytes) {
  JobSpec job;
  Layer layer;
  layer.forward_cycles = 1000;                                             // 1 us at 1 GHz
  layer.weight_grad_comm = {true, CollectiveType::kAllReduce, 1'250'000};  // 2 x 100 us at 100G
  job.workload.layers = {layer, layer};
  job.iterations = 3;
  EXPECT_NEAR(static_cast<double>(EstimatedEndOfJobs({job}, 100'000'000'000ULL)),
              3.0 * (2 + 400) * kMicrosecond, 6);
  EXPECT_EQ(EstimatedEndOfJobs({}, 100'000'000'000ULL), 0);
  EXPECT_EQ(EstimatedEndOfJobs({job}, 0), 0);
}

TEST(NetRunSummary, NamesTheFiguresAndTheFilesWritten) {
  const Json summary = {{"topology", "fattree:k=4"},
                        {"transport", "rdma"},
                        {"cc", "dcqcn"},
                        {"flows", {{"count", 3}, {"unfinished", 0}, {"fct_mean_us", 4.9}}},
                        {"network", {{"simulated_time_us", 9.9}, {"events", 403}}}};
  const std::string text = NetRunSummaryText(summary, "out/net", 0.01);
  EXPECT_EQ(text.rfind("net: fattree:k=4, rdma dcqcn: simulated 9.900 us", 0), 0u) << text;
  EXPECT_NE(text.find("out/net/flows.csv"), std::string::npos) << text;
  EXPECT_NE(text.find("out/net/summary.json"), std::string::npos) << text;
  EXPECT_EQ(text.find("timeseries"), std::string::npos) << text;
}

}  // namespace
}  // namespace jigsaw::net
