#include "net/topology.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/error.h"
#include "net/network.h"
#include "net/units.h"

namespace jigsaw::net {
namespace {

const std::string kClosFile =
    std::string(JIGSAW_SHARED_DATA) + "/topologies/clos/128_nodes_16_switch_topology.txt";

std::string ErrorOf(const std::string& text) {
  try {
    ParseTopologyText("topo.txt", text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(NetUnits, ParsesRatesDurationsAndBytes) {
  uint64_t rate = 0;
  EXPECT_TRUE(ParseRate("200Gbps", &rate));
  EXPECT_EQ(rate, 200'000'000'000u);
  EXPECT_TRUE(ParseRate("100M", &rate));
  EXPECT_EQ(rate, 100'000'000u);
  EXPECT_FALSE(ParseRate("fast", &rate));
  EXPECT_FALSE(ParseRate("10", &rate));
  Time t = 0;
  EXPECT_TRUE(ParseDuration("0.0125ms", &t));
  EXPECT_EQ(t, 12'500 * kNanosecond);
  EXPECT_TRUE(ParseDuration("1000ns", &t));
  EXPECT_EQ(t, kMicrosecond);
  EXPECT_FALSE(ParseDuration("5", &t));
  uint64_t bytes = 0;
  EXPECT_TRUE(ParseBytes("1MiB", &bytes));
  EXPECT_EQ(bytes, 1u << 20);
  EXPECT_TRUE(ParseBytes("2MB", &bytes));
  EXPECT_EQ(bytes, 2'000'000u);
  EXPECT_FALSE(ParseBytes("2XB", &bytes));
  EXPECT_EQ(SerializationTime(1000, 100'000'000'000), 80 * kNanosecond);
}

TEST(NetTopology, ReadsTheStudyClos) {
  if (!std::filesystem::exists(kClosFile)) GTEST_SKIP() << "no shared data at " << kClosFile;
  Topology topology = ReadTopologyFile(kClosFile);
  EXPECT_EQ(topology.num_nodes(), 144u);
  EXPECT_EQ(topology.num_switches(), 16u);
  EXPECT_EQ(topology.links.size(), 192u);
  EXPECT_EQ(topology.HostNodes().size(), 128u);
  EXPECT_EQ(topology.links[0].rate_bps, 200'000'000'000u);
  EXPECT_EQ(topology.links[0].delay, 5 * kMicrosecond);
  int fabric = 0;
  for (const Link& link : topology.links) fabric += link.delay == 12'500 * kNanosecond;
  EXPECT_EQ(fabric, 64);
}

TEST(NetTopology, ReadsEveryShippedClosFile) {
  const std::string dir = std::string(JIGSAW_SHARED_DATA) + "/topologies/clos";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no shared data at " << dir;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.find("topology") == std::string::npos) continue;
    Topology topology = ReadTopologyFile(entry.path().string());
    EXPECT_GT(topology.HostNodes().size(), 0u) << name;
    ++files;
  }
  EXPECT_GE(files, 6);
}

TEST(NetTopology, ErrorsNameFileLineAndExpectation) {
  EXPECT_EQ(ErrorOf(""), "topo.txt: empty file: expected '<nodes> <switches> <links>'");
  EXPECT_NE(ErrorOf("3 1\n").find("topo.txt:1: expected '<nodes> <switches> <links>'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("3 1 2\n2 1\n").find("topo.txt:2: expected 1 switch ids, found 2"),
            std::string::npos);
  EXPECT_NE(ErrorOf("3 1 2\n2\n0 2 100Gbps 1us 0\n1 5 100Gbps 1us 0\n").find("topo.txt:4:"),
            std::string::npos);
  EXPECT_NE(ErrorOf("3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 fast 1us 0\n")
                .find("topo.txt:4: column 3 (rate): expected a rate"),
            std::string::npos);
  EXPECT_NE(ErrorOf("3 1 2\n2\n0 2 100Gbps 1 0\n").find("topo.txt:3: column 4 (delay)"),
            std::string::npos);
  EXPECT_NE(ErrorOf("3 1 2\n2\n0 2 100Gbps 1us 0\n").find("expected 2 link lines, found 1"),
            std::string::npos);
  EXPECT_NE(ErrorOf("3 1 1\n2\n2 2 100Gbps 1us 0\n").find("to itself"), std::string::npos);
}

TEST(NetTopology, MissingFileIsAnInputError) {
  EXPECT_THROW(LoadTopology("/nonexistent/topology.txt"), InputError);
}

TEST(NetTopology, FatTreeHasTheTextbookShape) {
  Topology topology = LoadTopology("fattree:k=4,rate=100Gbps,delay=1us");
  EXPECT_EQ(topology.HostNodes().size(), 16u);
  EXPECT_EQ(topology.num_switches(), 20u);
  EXPECT_EQ(topology.links.size(), 48u);
  Topology k16 = MakeFatTree(16, 100'000'000'000, kMicrosecond);
  EXPECT_EQ(k16.HostNodes().size(), 1024u);
  EXPECT_EQ(k16.num_switches(), 320u);
  EXPECT_THROW(LoadTopology("fattree:k=5"), UsageError);
  EXPECT_THROW(LoadTopology("fattree:k=4,speed=1G"), UsageError);
}

TEST(NetTopology, FatTreePathsCrossTheExpectedNumberOfHops) {
  // Base RTT = sum over hops of 2 x delay + data and ACK serialisation.
  NetConfig config;
  Network network(MakeFatTree(4, 100'000'000'000, kMicrosecond), config);
  const Time per_hop = 2 * kMicrosecond + SerializationTime(1048, 100'000'000'000) +
                       SerializationTime(64, 100'000'000'000);
  uint32_t same_edge = network.AddFlow(0, 1, 1000, 0, 0);
  uint32_t same_pod = network.AddFlow(0, 2, 1000, 0, 0);
  uint32_t other_pod = network.AddFlow(0, 15, 1000, 0, 0);
  EXPECT_EQ(network.flow(same_edge).base_rtt, 2 * per_hop);
  EXPECT_EQ(network.flow(same_pod).base_rtt, 4 * per_hop);
  EXPECT_EQ(network.flow(other_pod).base_rtt, 6 * per_hop);
  network.Run();
  EXPECT_GE(network.flow(other_pod).delivered, 0);
}

TEST(NetTopology, ClosGeneratorMatchesTheStudyShape) {
  Topology topology = LoadTopology("clos:leaves=8,spines=8,hosts=16,rate=200Gbps");
  EXPECT_EQ(topology.HostNodes().size(), 128u);
  EXPECT_EQ(topology.num_switches(), 16u);
  EXPECT_EQ(topology.links.size(), 192u);
}

TEST(NetTopology, RackIsOneSwitchWithItsBuffer) {
  Topology topology = LoadTopology("rack:hosts=8,gbps=100");
  ASSERT_EQ(topology.HostNodes().size(), 8u);
  EXPECT_EQ(topology.num_switches(), 1u);
  ASSERT_EQ(topology.links.size(), 8u);
  for (const Link& link : topology.links) {
    EXPECT_EQ(link.b, 8u);
    EXPECT_EQ(link.rate_bps, 100'000'000'000u);
    EXPECT_EQ(link.delay, 500 * kNanosecond);
  }
  EXPECT_EQ(topology.switch_buffer_bytes, 16ull << 20);
  Topology custom = LoadTopology("rack:hosts=4,gbps=25,delay=1us,buffer=4MiB");
  EXPECT_EQ(custom.links[0].rate_bps, 25'000'000'000u);
  EXPECT_EQ(custom.links[0].delay, kMicrosecond);
  EXPECT_EQ(custom.switch_buffer_bytes, 4ull << 20);
  EXPECT_EQ(LoadTopology("rack:").HostNodes().size(), 32u);
  EXPECT_THROW(LoadTopology("rack:hosts=1"), UsageError);
  EXPECT_THROW(LoadTopology("rack:gbps=0"), UsageError);
  EXPECT_THROW(LoadTopology("rack:hosts=4,speed=1"), UsageError);
  EXPECT_THROW(LoadTopology("rack:buffer=lots"), UsageError);
}

TEST(NetTopology, UnreachableHostIsReported) {
  Topology topology = ParseTopologyText("split", "4 2 2\n2 3\n0 2 1Gbps 1us 0\n1 3 1Gbps 1us 0\n");
  NetConfig config;
  Network network(topology, config);
  EXPECT_THROW(network.AddFlow(0, 1, 100, 0, 0), InputError);
}

}  // namespace
}  // namespace jigsaw::net
