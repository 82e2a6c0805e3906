// Ideal FCT and slowdown, the time series (queues, PFC pauses, rates) and link failures of the
// packet simulator, on scenarios small enough to check by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "net/network.h"
#include "net/topology.h"

namespace jigsaw::net {
namespace {

// One switch (node `hosts`) with `hosts` hosts on 1 us links of `rate`.
Topology Star(int hosts, const std::string& rate = "100Gbps") {
  std::string text = std::to_string(hosts + 1) + " 1 " + std::to_string(hosts) + "\n" +
                     std::to_string(hosts) + "\n";
  for (int h = 0; h < hosts; ++h)
    text += std::to_string(h) + " " + std::to_string(hosts) + " " + rate + " 1us 0\n";
  return ParseTopologyText("star", text);
}

TEST(NetIdealFct, LoneFlowHasSlowdownOne) {
  for (uint64_t bytes : {1ull, 999ull, 1000ull, 1500ull, 200'000ull, 1'000'001ull}) {
    NetConfig config;
    Network network(Star(2), config);
    const uint32_t id = network.AddFlow(0, 1, bytes, 5 * kMicrosecond, 0);
    network.Run();
    const Flow& flow = network.flow(id);
    ASSERT_GE(flow.delivered, 0);
    // Two 1 us hops at 100 Gbps: by hand for one 1000-byte packet, 2 x 83.84 ns + 2 us.
    if (bytes == 1000) {
      EXPECT_EQ(flow.ideal_fct, 2 * 83'840 + 2 * kMicrosecond);
    }
    EXPECT_EQ(flow.delivered - flow.start, flow.ideal_fct) << bytes << " bytes";
  }
}

TEST(NetIdealFct, LoneFlowOnMixedRatesAndClos) {
  // 25 Gbps hosts on a 100 Gbps fabric: the NIC is the bottleneck.
  ClosSpec spec;
  spec.leaves = 2;
  spec.spines = 2;
  spec.hosts_per_leaf = 2;
  spec.host_rate_bps = 25'000'000'000;
  spec.fabric_rate_bps = 100'000'000'000;
  for (CcMode cc : {CcMode::kNone, CcMode::kDcqcn, CcMode::kHpcc}) {
    NetConfig config;
    config.cc = cc;
    Network network(MakeClos(spec), config);
    const uint32_t id = network.AddFlow(0, 3, 300'000, 0, 0);
    network.Run();
    const Flow& flow = network.flow(id);
    ASSERT_GE(flow.delivered, 0);
    const double slowdown =
        static_cast<double>(flow.delivered - flow.start) / static_cast<double>(flow.ideal_fct);
    if (cc == CcMode::kNone) {
      EXPECT_EQ(flow.delivered - flow.start, flow.ideal_fct);
    } else {
      // HPCC aims at 95% of the line rate; DCQCN starts at line rate and stays there.
      EXPECT_GE(slowdown, 1.0 - 1e-9) << CcModeName(cc);
      EXPECT_LT(slowdown, 1.1) << CcModeName(cc);
    }
  }
}

TEST(NetTimeSeries, IncastQueueGrowsByOnePacketPerPacketTime) {
  // Hosts 1 and 2 each send 200 packets to host 0 at line rate: the switch port to host 0 gains
  // one 1048-byte packet every 83.84 ns while both send, then drains at the same pace.
  NetConfig config;
  config.window = false;
  Network network(Star(3), config);
  network.EnableTimeSeries(2 * kMicrosecond, false);
  network.AddFlow(1, 0, 200'000, 0, 0);
  network.AddFlow(2, 0, 200'000, 0, 0);
  network.Run();
  const NetStats stats = network.Stats();
  const double packet_time = 83'840;                      // ps
  const double first_arrival = 83'840 + 1'000'000;        // ps: first packets reach the switch
  const double peak = first_arrival + 200 * packet_time;  // both senders done
  ASSERT_FALSE(network.queue_samples().empty());
  uint64_t largest = 0;
  for (const QueueSample& q : network.queue_samples()) {
    EXPECT_EQ(q.node, 3u);
    EXPECT_EQ(q.time % (2 * kMicrosecond), 0);
    if (q.port != 0) {
      // The ports towards the senders carry only their ACKs (64 bytes each, in the data queue).
      EXPECT_LE(q.bytes, 64u);
      continue;
    }
    const double t = static_cast<double>(q.time);
    const double packets =
        t < peak ? (t - first_arrival) / packet_time : 200 - (t - peak) / packet_time;
    EXPECT_NEAR(static_cast<double>(q.bytes), std::max(0.0, packets) * 1048, 2 * 1048.0)
        << "at " << ToMicroseconds(q.time) << " us";
    largest = std::max(largest, q.bytes);
  }
  EXPECT_GT(largest, 180u * 1048);
  EXPECT_LE(largest, stats.max_queue_bytes);
  // Rates: no CC, so every unfinished flow samples at line rate, and only while unfinished.
  ASSERT_FALSE(network.rate_samples().empty());
  for (const RateSample& r : network.rate_samples()) {
    EXPECT_DOUBLE_EQ(r.rate_bps, 100e9);
    const Flow& flow = network.flow(r.flow);
    EXPECT_GE(r.time, flow.start);
    EXPECT_LT(r.time, flow.acked);
  }
  // No pause here, and sampling added no events.
  EXPECT_TRUE(network.PauseIntervals().empty());
  Network plain(Star(3), config);
  plain.AddFlow(1, 0, 200'000, 0, 0);
  plain.AddFlow(2, 0, 200'000, 0, 0);
  plain.Run();
  EXPECT_EQ(plain.Stats().events, stats.events);
  EXPECT_EQ(plain.Stats().end, stats.end);
  EXPECT_EQ(plain.flow(0).delivered, network.flow(0).delivered);
}

TEST(NetTimeSeries, PauseIntervalsAddUpToThePauseTime) {
  NetConfig config;
  config.window = false;
  config.buffer_bytes = 2 << 20;
  Network network(Star(9), config);
  network.EnableTimeSeries(1 * kMicrosecond, true);
  for (uint32_t s = 1; s <= 8; ++s) network.AddFlow(s, 0, 1'000'000, 0, 0);
  network.Run();
  const NetStats stats = network.Stats();
  ASSERT_GT(stats.pause_frames, 0u);
  const std::vector<PauseInterval> pauses = network.PauseIntervals();
  ASSERT_FALSE(pauses.empty());
  Time total = 0;
  for (const PauseInterval& p : pauses) {
    EXPECT_LT(p.start, p.end);
    EXPECT_NE(p.node, 9u);  // the switch pauses the senders' NICs
    EXPECT_EQ(p.priority, 0);
    total += p.end - p.start;
  }
  EXPECT_EQ(total, stats.pause_time);
  // `all`: every switch port in every sample.
  EXPECT_EQ(network.queue_samples().size() % 9, 0u);
}

// Leaves 4 and 5 with hosts 0,1 and 2,3; spines 6 and 7.
Topology SmallClos() {
  ClosSpec spec;
  spec.leaves = 2;
  spec.spines = 2;
  spec.hosts_per_leaf = 2;
  spec.host_rate_bps = 100'000'000'000;
  spec.fabric_rate_bps = 100'000'000'000;
  spec.host_delay = kMicrosecond;
  spec.fabric_delay = kMicrosecond;
  return MakeClos(spec);
}

TEST(NetLinkFailure, FlowsMoveToTheSurvivingSpine) {
  NetConfig config;
  // Both spines carry a flow at first (two flows, per-flow ECMP); after leaf 4 loses spine 6 both
  // go through spine 7, still finish, and the loss is recovered.
  Network network(SmallClos(), config);
  network.FailLink(4, 6, 20 * kMicrosecond);
  std::vector<uint32_t> ids;
  for (uint32_t f = 0; f < 8; ++f)
    ids.push_back(network.AddFlow(f % 2, 2 + f % 2, 2'000'000, 0, 0));
  network.Run();
  const NetStats stats = network.Stats();
  for (uint32_t id : ids) EXPECT_GE(network.flow(id).delivered, 0) << id;
  EXPECT_GT(stats.drops, 0u);
  EXPECT_GT(stats.retransmitted_packets, 0u);
  EXPECT_EQ(stats.payload_sent, stats.payload_received + stats.payload_dropped);
  // Nothing crosses spine 6 from leaf 4 after the failure: every packet dropped went there.
  Network healthy(SmallClos(), config);
  for (uint32_t f = 0; f < 8; ++f) healthy.AddFlow(f % 2, 2 + f % 2, 2'000'000, 0, 0);
  healthy.Run();
  EXPECT_EQ(healthy.Stats().drops, 0u);
  EXPECT_GT(stats.end, healthy.Stats().end);  // half the fabric is gone for the rest of the run
}

TEST(NetLinkFailure, CutOffHostGivesUpAndTheRunEnds) {
  NetConfig config;
  Network network(SmallClos(), config);
  network.FailLink(0, 4, 10 * kMicrosecond);  // host 0's only link
  const uint32_t cut = network.AddFlow(0, 2, 5'000'000, 0, 0);
  const uint32_t other = network.AddFlow(1, 3, 1'000'000, 0, 0);
  network.Run();
  EXPECT_LT(network.flow(cut).delivered, 0);
  EXPECT_GE(network.flow(other).delivered, 0);
  EXPECT_LT(network.now(), 50 * kMillisecond);  // one timeout after the cut, not forever
}

TEST(NetLinkFailure, UnknownLinkIsRefused) {
  NetConfig config;
  Network network(SmallClos(), config);
  EXPECT_THROW(network.FailLink(0, 1, 0), UsageError);  // two hosts
  EXPECT_THROW(network.FailLink(4, 99, 0), UsageError);
}

TEST(NetPriority, HigherClassOvertakesAtTheSwitch) {
  NetConfig config;
  config.window = false;
  Network network(Star(3), config);
  const uint32_t low = network.AddFlow(1, 0, 1'000'000, 0, 0, 3);
  const uint32_t high = network.AddFlow(2, 0, 1'000'000, 0, 0, 1);
  network.Run();
  // Same size, same start: class 1 is served first at the shared egress and finishes first,
  // close to its ideal; class 3 waits behind it.
  EXPECT_LT(network.flow(high).delivered, network.flow(low).delivered);
  EXPECT_LT(network.flow(high).delivered - network.flow(high).start,
            network.flow(high).ideal_fct * 11 / 10);
  EXPECT_THROW(network.AddFlow(1, 0, 1000, 0, 0, 8), UsageError);
}

}  // namespace
}  // namespace jigsaw::net
