// Physics of the packet simulator: line rate, fair lossless incast under PFC, and queues kept
// below the PFC thresholds by DCQCN and HPCC.
#include "net/network.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.h"
#include "net/topology.h"

namespace jigsaw::net {
namespace {

// One switch (node `hosts`) with `hosts` hosts on 100 Gbps, 1 us links.
Topology Star(int hosts) {
  std::string text = std::to_string(hosts + 1) + " 1 " + std::to_string(hosts) + "\n" +
                     std::to_string(hosts) + "\n";
  for (int h = 0; h < hosts; ++h)
    text += std::to_string(h) + " " + std::to_string(hosts) + " 100Gbps 1us 0\n";
  return ParseTopologyText("star", text);
}

double PayloadRate(const NetConfig& config, uint64_t rate_bps) {
  return static_cast<double>(rate_bps) * config.payload_bytes /
         config.data_packet_bytes(config.payload_bytes);
}

double Goodput(const Flow& flow) {
  return static_cast<double>(flow.bytes) * 8e12 / static_cast<double>(flow.delivered - flow.start);
}

class NetLineRate : public testing::TestWithParam<CcMode> {};

TEST_P(NetLineRate, OneFlowReachesLineRate) {
  NetConfig config;
  config.cc = GetParam();
  Network network(Star(2), config);
  uint32_t id = network.AddFlow(0, 1, 20'000'000, 0, 0);
  network.Run();
  const Flow& flow = network.flow(id);
  ASSERT_GE(flow.delivered, 0);
  double share = Goodput(flow) / PayloadRate(config, 100'000'000'000);
  // HPCC aims at 95% utilisation by design; the others run at line rate when alone.
  double floor = config.cc == CcMode::kHpcc ? 0.90 : 0.98;
  EXPECT_GT(share, floor) << CcModeName(config.cc);
  EXPECT_LE(share, 1.0);
  NetStats stats = network.Stats();
  EXPECT_EQ(stats.drops, 0u);
  EXPECT_EQ(stats.pause_frames, 0u);
  EXPECT_EQ(stats.data_packets, 20'000u);
  EXPECT_EQ(stats.ack_packets, 20'000u);
}

INSTANTIATE_TEST_SUITE_P(AllModes, NetLineRate,
                         testing::Values(CcMode::kNone, CcMode::kDcqcn, CcMode::kDctcp,
                                         CcMode::kTimely, CcMode::kHpcc),
                         [](const auto& info) { return std::string(CcModeName(info.param)); });

struct IncastResult {
  NetStats stats;
  std::vector<double> goodputs;
  Time last_delivery = 0;
};

IncastResult RunIncast(CcMode mode, int senders, uint64_t bytes) {
  NetConfig config;
  config.cc = mode;
  config.window = false;  // let queues build so PFC has something to do
  Network network(Star(senders + 1), config);
  std::vector<uint32_t> ids;
  for (int s = 1; s <= senders; ++s) ids.push_back(network.AddFlow(s, 0, bytes, 0, 0));
  network.Run();
  IncastResult result;
  result.stats = network.Stats();
  for (uint32_t id : ids) {
    const Flow& flow = network.flow(id);
    EXPECT_GE(flow.delivered, 0);
    result.goodputs.push_back(Goodput(flow));
    result.last_delivery = std::max(result.last_delivery, flow.delivered);
  }
  return result;
}

double JainIndex(const std::vector<double>& values) {
  double sum = 0, squares = 0;
  for (double v : values) {
    sum += v;
    squares += v * v;
  }
  return sum * sum / (values.size() * squares);
}

TEST(NetIncast, PfcSharesFairlyAndLosesNothing) {
  const int senders = 8;
  const uint64_t bytes = 4'000'000;
  IncastResult result = RunIncast(CcMode::kNone, senders, bytes);
  EXPECT_EQ(result.stats.drops, 0u);
  EXPECT_GT(result.stats.pause_frames, 0u);
  EXPECT_GT(result.stats.pause_time, 0);
  EXPECT_GT(JainIndex(result.goodputs), 0.99);
  // The receiver's downlink is the bottleneck and stays busy.
  NetConfig config;
  double aggregate = senders * bytes * 8e12 / static_cast<double>(result.last_delivery);
  EXPECT_GT(aggregate / PayloadRate(config, 100'000'000'000), 0.95);
}

TEST(NetIncast, DcqcnAndHpccStayBelowPfcThresholds) {
  const int senders = 8;
  const uint64_t bytes = 4'000'000;
  IncastResult baseline = RunIncast(CcMode::kNone, senders, bytes);
  for (CcMode mode : {CcMode::kDcqcn, CcMode::kHpcc}) {
    IncastResult result = RunIncast(mode, senders, bytes);
    EXPECT_EQ(result.stats.pause_frames, 0u) << CcModeName(mode);
    EXPECT_EQ(result.stats.drops, 0u) << CcModeName(mode);
    EXPECT_LT(result.stats.max_queue_bytes, baseline.stats.max_queue_bytes / 2) << CcModeName(mode);
    EXPECT_GT(JainIndex(result.goodputs), 0.9) << CcModeName(mode);
  }
}

// ACKs once always took a strict-priority queue, while the study's config (ACK_HIGH_PRIO 0)
// queues them with data. Host 0 sends 500 KB to host 1 while 8 senders fill the switch port
// towards host 0: with ACKs in the data queue, host 0's ACKs wait behind that queue and its
// BDP-window flow slows down; with high-priority ACKs they overtake it.
struct AckPriorityRun {
  Time fct = 0;
  NetStats stats;
};

AckPriorityRun RunAckPriority(AckPriority priority) {
  NetConfig config;
  config.ack_priority = priority;
  Network network(Star(10), config);
  const uint32_t probe = network.AddFlow(0, 1, 500'000, 0, 0);
  for (uint32_t s = 2; s < 10; ++s) network.AddFlow(s, 0, 1'000'000, 0, 0);
  network.Run();
  for (size_t f = 0; f < network.num_flows(); ++f) {
    EXPECT_EQ(network.flow(static_cast<uint32_t>(f)).rcv_nxt,
              network.flow(static_cast<uint32_t>(f)).bytes);
  }
  return {network.flow(probe).delivered, network.Stats()};
}

TEST(NetAckPriority, DataAcksQueueBehindDataAndHighAcksDoNot) {
  EXPECT_EQ(NetConfig{}.ack_priority, AckPriority::kData);  // the study's ACK_HIGH_PRIO 0
  const AckPriorityRun data = RunAckPriority(AckPriority::kData);
  const AckPriorityRun high = RunAckPriority(AckPriority::kHigh);
  EXPECT_EQ(data.stats.max_switch_control_packets, 0u);  // never in a switch's control queue
  EXPECT_GT(high.stats.max_switch_control_packets, 0u);
  EXPECT_EQ(data.stats.drops + high.stats.drops, 0u);
  // Alone the probe would take about 42 us; behind 8 senders' windows its ACKs wait far longer.
  EXPECT_GT(data.fct, 3 * high.fct) << "data " << data.fct << " ps, high " << high.fct << " ps";
  AckPriority parsed = AckPriority::kData;
  EXPECT_TRUE(ParseAckPriority("high", &parsed));
  EXPECT_EQ(parsed, AckPriority::kHigh);
  EXPECT_FALSE(ParseAckPriority("low", &parsed));
}

TEST(NetLossy, WithoutPfcDropsAreRecoveredByGoBackN) {
  NetConfig config;
  config.pfc = false;
  config.window = false;
  config.buffer_bytes = 1 << 20;
  Network network(Star(9), config);
  std::vector<uint32_t> ids;
  for (int s = 1; s <= 8; ++s) ids.push_back(network.AddFlow(s, 0, 2'000'000, 0, 0));
  network.Run();
  NetStats stats = network.Stats();
  EXPECT_GT(stats.drops, 0u);
  EXPECT_GT(stats.retransmitted_packets, 0u);
  EXPECT_EQ(stats.data_packets, 8 * 2000 + stats.retransmitted_packets);  // every resend counted
  EXPECT_EQ(stats.pause_frames, 0u);
  for (uint32_t id : ids) {
    EXPECT_GE(network.flow(id).delivered, 0);
    EXPECT_EQ(network.flow(id).rcv_nxt, 2'000'000u);
  }
}

// The counter once compared the resent sequence with snd_una / rcv_nxt, which a NACK has
// just rewound to, so go-back-N resends counted 0. By hand: 100 Gbps in, 30 Gbps out, no shared
// buffer, so the switch holds one packet on the wire plus three in its 4096-byte ingress reserve
// (1048-byte packets arrive every 83.84 ns, one leaves every 279.47 ns). Of 8 back-to-back packets
// p0..p4 fit, p5 (419.2 ns) and p6 (503.0 ns) find the reserve full and are dropped, p7 (586.9 ns)
// fits again after p1 left at 558.9 ns. p7 reaches the receiver out of order: one NACK for byte
// 5000, and the sender resends p5, p6, p7 into an empty switch: exactly 3 retransmissions.
TEST(NetLossy, RetransmissionsAreCountedExactly) {
  const Topology topology =
      ParseTopologyText("drop2", "3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 30Gbps 1us 0\n");
  NetConfig config;
  config.pfc = false;
  config.window = false;
  config.buffer_bytes = 2 * config.reserve_bytes;  // two ports' reserves: nothing shared
  Network network(topology, config);
  const uint32_t id = network.AddFlow(0, 1, 8000, 0, 0);
  network.Run();
  const NetStats stats = network.Stats();
  EXPECT_EQ(stats.drops, 2u);
  EXPECT_EQ(stats.retransmitted_packets, 3u);
  EXPECT_EQ(stats.data_packets, 11u);
  EXPECT_EQ(stats.payload_sent, 11'000u);
  EXPECT_EQ(stats.payload_received, 9'000u);  // p7's first copy arrived and was refused
  EXPECT_EQ(stats.payload_dropped, 2'000u);
  EXPECT_EQ(network.flow(id).rcv_nxt, 8000u);
  EXPECT_GE(network.flow(id).acked, 0);
  // The 1 ms retransmission timer armed at the first send fires after the flow finished; it must
  // not count as simulated time (end = the last ACK, a few microseconds in).
  EXPECT_EQ(stats.end, network.flow(id).acked);
  EXPECT_LT(stats.end, 20 * kMicrosecond);
  EXPECT_GE(stats.now, kMillisecond);
}

// DCQCN's rate-increase timer fires 900 us after a cut, long after the traffic, and
// stretched the simulated time and diluted the average queue (157 us vs 1,035 us on one
// traffic). The end is the last ACK; the queue average is over [0, end].
TEST(NetEndTime, IdleCcTimersDoNotExtendTheRun) {
  for (CcMode mode : {CcMode::kNone, CcMode::kDcqcn}) {
    NetConfig config;
    config.cc = mode;
    config.window = false;
    Network network(Star(5), config);
    for (uint32_t s = 1; s <= 4; ++s) network.AddFlow(s, 0, 1'000'000, 0, 0);
    network.Run();
    const NetStats stats = network.Stats();
    Time last_ack = 0;
    for (uint32_t f = 0; f < 4; ++f) last_ack = std::max(last_ack, network.flow(f).acked);
    EXPECT_EQ(stats.end, last_ack) << CcModeName(mode);
    double sum = 0;
    int ports = 0;
    for (const PortReport& port : network.SwitchPorts()) {
      if (port.tx_bytes == 0) continue;
      sum += port.avg_queue_bytes;
      ++ports;
    }
    EXPECT_DOUBLE_EQ(stats.avg_queue_bytes, sum / ports);
    if (mode == CcMode::kDcqcn) {
      EXPECT_GT(stats.ecn_marks, 0u);
      EXPECT_GT(stats.now, stats.end + 800 * kMicrosecond);  // the idle increase timer did fire
    } else {
      EXPECT_LT(stats.end, 400 * kMicrosecond);  // 4 MB at 100 Gbps: about 340 us
      EXPECT_EQ(stats.now, stats.end);
    }
  }
}

// The MMU once set headroom aside that the buffer did not have.
TEST(NetErrors, BufferSmallerThanPfcHeadroomIsRefused) {
  const Topology far =
      ParseTopologyText("far", "3 1 2\n2\n0 2 100Gbps 10us 0\n1 2 100Gbps 10us 0\n");
  NetConfig config;
  // Per port: 3 x 125,000 bytes of one-way BDP + 2 x 1048-byte packets + 4096 reserve.
  const uint64_t needed = 2 * (3 * 125'000 + 2 * 1048 + 4096);
  config.buffer_bytes = needed - 1;
  try {
    Network network(far, config);
    FAIL() << "a buffer below the headroom was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("give a --buffer of at least " + std::to_string(needed)),
              std::string::npos)
        << e.what();
  }
  config.buffer_bytes = needed;
  EXPECT_NO_THROW(Network(far, config));
  config.buffer_bytes = 65536;
  config.pfc = false;  // no headroom without PFC
  EXPECT_NO_THROW(Network(far, config));
}

TEST(NetErrors, CorruptingLinkStillDeliversEveryByte) {
  Topology topology =
      ParseTopologyText("lossy", "3 1 2\n2\n0 2 100Gbps 1us 0.01\n1 2 100Gbps 1us 0\n");
  NetConfig config;
  Network network(topology, config);
  uint32_t id = network.AddFlow(0, 1, 1'000'000, 0, 0);
  network.Run();
  EXPECT_GT(network.Stats().drops, 0u);
  EXPECT_EQ(network.flow(id).rcv_nxt, 1'000'000u);
  EXPECT_GE(network.flow(id).acked, 0);
}

}  // namespace
// 1 bps links pushed simulated time past 2^63 ps; the overflow reordered events
// and ended in erase(end()) and exit 139. Every event is now checked against the horizon.
// The "for transports" methods: a transport may push only its own event types, and learns its
// hosts' NIC ports from the fabric.
TEST(NetTransportApi, TypedTimersRefuseFabricEventTypesAndPortsAreListed) {
  Network network(Star(3), NetConfig{});
  for (uint8_t fabric_type = 0; fabric_type < kFirstTransportEventType; ++fabric_type) {
    if (fabric_type == kEventRetransmit) continue;
    EXPECT_THROW(network.PushTypedTimer(0, fabric_type, 0, 0), std::logic_error) << +fabric_type;
  }
  EXPECT_EQ(network.num_ports(), 6u);  // three links, two ends each
  for (uint32_t host = 0; host < 3; ++host) {
    EXPECT_EQ(network.host_num_ports(host), 1u);
    EXPECT_LT(network.host_port(host), network.num_ports());
  }
  EXPECT_TRUE(network.HostsConnected(0, 2));
  EXPECT_FALSE(network.losses_possible());  // PFC on, nothing dropped yet
}

TEST(NetHorizon, TimePastTheHorizonIsAnErrorNotAnOverflow) {
  const Topology slow = ParseTopologyText("slow", "3 1 2\n2\n0 2 1bps 1us 0\n1 2 1bps 1us 0\n");
  Network network(slow, NetConfig{});
  network.AddFlow(0, 1, 10'000'000, 0, 0);
  try {
    network.Run();
    FAIL() << "ran past the horizon";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("horizon of 1000000 s"), std::string::npos) << e.what();
  }
  EXPECT_LE(network.now(), kMaxTime);
  EXPECT_EQ(SerializationTime(uint64_t{1} << 40, 1), kPastHorizon);  // 2^43 s: saturates
  EXPECT_EQ(SaturatingTime(std::nan("")), 0);
  EXPECT_EQ(SaturatingTime(1e300), kPastHorizon);
}

}  // namespace jigsaw::net
