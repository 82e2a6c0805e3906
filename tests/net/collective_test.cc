// Collectives on an idle fabric against their analytic completion times, and workload execution.
#include "net/collective.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>
#include <string>

#include "core/error.h"
#include "net/workload.h"

namespace jigsaw::net {
namespace {

Topology Star(int hosts) {
  std::string text = std::to_string(hosts + 1) + " 1 " + std::to_string(hosts) + "\n" +
                     std::to_string(hosts) + "\n";
  for (int h = 0; h < hosts; ++h)
    text += std::to_string(h) + " " + std::to_string(hosts) + " 100Gbps 1us 0\n";
  return ParseTopologyText("star", text);
}

// Payload bits per second of a 100 Gbps port whose every data packet is matched by an ACK for
// traffic in the opposite direction (in ring and all-to-all patterns each link carries data one
// way and the ACKs of the reverse flow's data the same way), so B excludes both header and ACK.
double Goodput(const NetConfig& config) {
  return 100e9 * config.payload_bytes /
         (config.data_packet_bytes(config.payload_bytes) + config.ack_bytes);
}

std::vector<uint32_t> Ranks(uint32_t n) {
  std::vector<uint32_t> hosts(n);
  std::iota(hosts.begin(), hosts.end(), 0);
  return hosts;
}

class Recorder : public CollectiveClient {
 public:
  void OnCollectiveDone(uint32_t id) override { done.push_back(id); }
  std::vector<uint32_t> done;
};

Time RunCollective(CollectiveSpec spec, CcMode mode, int hosts) {
  NetConfig config;
  config.cc = mode;
  Network network(Star(hosts), config);
  CollectiveEngine engine(&network);
  Recorder recorder;
  uint32_t id = engine.Start(spec, &recorder);
  network.Run();
  EXPECT_EQ(recorder.done.size(), 1u);
  EXPECT_EQ(network.Stats().drops, 0u);
  return engine.end_time(id) - engine.start_time(id);
}

struct RingCase {
  std::vector<int> dims;
  int chunks;
  CcMode mode;
};

class NetRingAllReduce : public testing::TestWithParam<RingCase> {};

TEST_P(NetRingAllReduce, MatchesTheAnalyticTimeOnAnIdleFabric) {
  const int n = 8;
  const uint64_t bytes = 16'000'000;
  CollectiveSpec spec;
  spec.type = CollectiveType::kAllReduce;
  spec.bytes = bytes;
  spec.hosts = Ranks(n);
  spec.dims = GetParam().dims;
  spec.chunks = GetParam().chunks;
  Time measured = RunCollective(spec, GetParam().mode, n);
  NetConfig config;
  double analytic_s = 2.0 * (n - 1) / n * bytes * 8 / Goodput(config);
  double ratio = static_cast<double>(measured) / 1e12 / analytic_s;
  EXPECT_GT(ratio, 1.0);  // latency only adds
  // HPCC deliberately runs links at eta = 95% utilisation.
  if (GetParam().mode == CcMode::kHpcc) ratio *= config.hpcc.target_utilization;
  EXPECT_LT(ratio, 1.05);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, NetRingAllReduce,
    testing::Values(RingCase{{}, 1, CcMode::kNone}, RingCase{{}, 4, CcMode::kNone},
                    RingCase{{4, 2}, 1, CcMode::kNone}, RingCase{{2, 4}, 2, CcMode::kNone},
                    RingCase{{}, 1, CcMode::kDcqcn}, RingCase{{}, 1, CcMode::kHpcc}),
    [](const testing::TestParamInfo<RingCase>& info) {
      std::string name = CcModeName(info.param.mode);
      name += info.param.dims.empty() ? "_ring" : "_grid";
      for (int d : info.param.dims) name += std::to_string(d);
      return name + "_chunks" + std::to_string(info.param.chunks);
    });

TEST(NetAllToAll, IsBoundByTheReceiverDownlinks) {
  const int n = 8;
  const uint64_t bytes = 16'000'000;
  CollectiveSpec spec;
  spec.type = CollectiveType::kAllToAll;
  spec.bytes = bytes;
  spec.hosts = Ranks(n);
  Time measured = RunCollective(spec, CcMode::kNone, n);
  NetConfig config;
  double analytic_s = static_cast<double>(n - 1) / n * bytes * 8 / Goodput(config);
  double ratio = static_cast<double>(measured) / 1e12 / analytic_s;
  EXPECT_GT(ratio, 1.0);
  EXPECT_LT(ratio, 1.05);
}

TEST(NetCollective, RejectsDimensionsThatDoNotCoverTheGroup) {
  NetConfig config;
  Network network(Star(4), config);
  CollectiveEngine engine(&network);
  CollectiveSpec spec;
  spec.bytes = 1000;
  spec.hosts = Ranks(4);
  spec.dims = {3};
  EXPECT_THROW(engine.Start(spec, nullptr), UsageError);
}

TEST(NetWorkload, ParsesLayersAndReportsBadLines) {
  Workload w = ParseAstraWorkload("w.txt",
                                  "DATA\n2\nconv1 -1 10 NONE 0 20 NONE 0 30 ALLREDUCE 4096 5\n"
                                  "fc\t-1\t1\tNONE\t0\t2\tNONE\t0\t3\tALLTOALL\t800\t0\n");
  ASSERT_EQ(w.layers.size(), 2u);
  EXPECT_EQ(w.layers[0].weight_grad_comm.bytes, 4096u);
  EXPECT_EQ(w.layers[1].weight_grad_comm.type, CollectiveType::kAllToAll);
  EXPECT_FALSE(w.layers[0].forward_comm.present);
  auto error = [](const std::string& text) {
    try {
      ParseAstraWorkload("w.txt", text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("SOMETHING\n1\n").find("w.txt:1: unknown parallelism"), std::string::npos);
  EXPECT_NE(error("DATA\nx\n").find("w.txt:2:"), std::string::npos);
  EXPECT_NE(error("DATA\n1\nconv -1 1 NONE 0 1 NONE 0 1 BROADCAST 5 0\n")
                .find("w.txt:3: columns 10-11 (weight-gradient communication) type"),
            std::string::npos);
  EXPECT_NE(error("DATA\n1\nconv -1 1 NONE 0\n").find("w.txt:3: expected 12 fields"),
            std::string::npos);
  EXPECT_NE(error("DATA\n2\nconv -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n").find("expected 2 layer lines"),
            std::string::npos);
}

TEST(NetWorkload, MicroAllReduceIterationIsComputePlusCollective) {
  const std::string path = std::string(JIGSAW_SHARED_DATA) + "/workloads/astra/microAllReduce.txt";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no shared data at " << path;
  JobSpec job;
  job.workload = ReadAstraWorkload(path);
  job.hosts = Ranks(8);
  job.chunks = 1;
  job.iterations = 2;
  NetConfig config;
  Network network(Star(8), config);
  std::vector<JobResult> results = RunJobs(&network, {job});
  ASSERT_EQ(results.size(), 1u);
  const JobResult& result = results[0];
  ASSERT_EQ(result.iteration_times.size(), 2u);
  ASSERT_EQ(result.collectives.size(), 2u);
  Time collective = result.collectives[0].finished - result.collectives[0].started;
  // fwd 5 + ig 5 + wg 5 cycles of compute, the all-reduce, then a 5-cycle update.
  EXPECT_EQ(result.iteration_times[0], collective + 20 * kNanosecond);
  EXPECT_EQ(result.iteration_times[1], result.iteration_times[0]);
  // And the collective itself is the analytic ring time plus latency.
  double analytic_s = 2.0 * 7 / 8 * 1048576 * 8 / Goodput(config);
  EXPECT_LT(static_cast<double>(collective) / 1e12 / analytic_s, 1.25);
}

TEST(NetWorkload, SameSeedGivesIdenticalRuns) {
  auto run = [] {
    NetConfig config;
    config.cc = CcMode::kDcqcn;
    config.window = false;
    Network network(LoadTopology("fattree:k=4,rate=100Gbps,delay=1us"), config);
    JobSpec job;
    job.workload =
        ParseAstraWorkload("a2a", "MICRO\n1\nx -1 5 NONE 0 5 NONE 0 5 ALLTOALL 2000000 5\n");
    job.hosts = Ranks(16);
    std::vector<JobResult> results = RunJobs(&network, {job});
    std::vector<Time> times;
    for (size_t f = 0; f < network.num_flows(); ++f) times.push_back(network.flow(f).delivered);
    times.push_back(results[0].finished);
    times.push_back(static_cast<Time>(network.Stats().events));
    return times;
  };
  EXPECT_EQ(run(), run());
}

// Background flows (tag 0) on hosts outside the ring share the Network and its observer; in a star
// they share no link with the ring, so the all-reduce must take exactly as long as alone (the old
// engine counted each background delivery as the receipt of its first message). 4 ranks x (3
// reduce-scatter + 3 all-gather steps) = 24 messages.
Time RingWithBackground(int background_flows) {
  NetConfig config;
  Network network(Star(6), config);
  CollectiveEngine engine(&network);
  for (int i = 0; i < background_flows; ++i) network.AddFlow(4, 5, 20'000, i * kMicrosecond, 0);
  CollectiveSpec spec;
  spec.bytes = 4'000'000;
  spec.hosts = Ranks(4);
  Recorder recorder;
  const uint32_t id = engine.Start(spec, &recorder);
  network.Run();
  EXPECT_EQ(recorder.done.size(), 1u);
  EXPECT_EQ(network.num_flows(), static_cast<size_t>(24 + background_flows));
  for (size_t f = 0; f < network.num_flows(); ++f) EXPECT_GE(network.flow(f).delivered, 0);
  return engine.end_time(id) - engine.start_time(id);
}

TEST(NetCollective, IgnoresDeliveriesOfFlowsThatAreNotItsMessages) {
  const Time alone = RingWithBackground(0);
  EXPECT_GT(alone, 0);
  EXPECT_EQ(RingWithBackground(1), alone);
  EXPECT_EQ(RingWithBackground(50), alone);
}

TEST(NetCollective, BackgroundDeliveredBeforeTheFirstMessageIsIgnored) {
  NetConfig config;
  Network network(Star(4), config);
  CollectiveEngine engine(&network);
  network.AddFlow(2, 3, 1'000, 0, 0);
  network.Run();  // delivered while the engine has sent nothing
  EXPECT_GE(network.flow(0).delivered, 0);
  CollectiveSpec spec;
  spec.bytes = 1'000'000;
  spec.hosts = Ranks(4);
  Recorder recorder;
  engine.Start(spec, &recorder);
  network.Run();
  EXPECT_EQ(recorder.done.size(), 1u);
}

}  // namespace
}  // namespace jigsaw::net
