// Physics of the rack transports: PL2 never drops and keeps every switch queue under its design
// bound at any load, Homa-like reaches line rate and grants by SRPT, and every transport
// conserves bytes. All runs are short, seeded and deterministic.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "net/homa.h"
#include "net/network.h"
#include "net/pl2.h"
#include "net/rack_workload.h"
#include "net/topology.h"

namespace jigsaw::net {
namespace {

Topology Rack(int hosts) {
  RackSpec spec;
  spec.hosts = hosts;
  return MakeRack(spec);
}

NetConfig ConfigFor(const std::string& transport) {
  NetConfig config;
  config.payload_bytes = 1452;
  config.buffer_bytes = 16ull << 20;
  if (transport == "pl2" || transport == "homa") {
    config.transport = transport == "pl2" ? TransportKind::kPl2 : TransportKind::kHoma;
    config.pfc = false;
    config.ecn = false;
  } else if (transport == "dctcp") {
    config.cc = CcMode::kDctcp;
    config.pfc = false;
  } else if (transport == "dcqcn") {
    config.cc = CcMode::kDcqcn;
  } else {
    config.cc = CcMode::kReno;
    config.pfc = false;
    config.ecn = false;
  }
  return config;
}

uint64_t MaxSwitchQueue(const Network& network) {
  uint64_t most = 0;
  for (const PortReport& port : network.SwitchPorts()) most = std::max(most, port.max_queue_bytes);
  return most;
}

double Goodput(const Flow& flow) {
  return static_cast<double>(flow.bytes) * 8e12 / static_cast<double>(flow.delivered - flow.start);
}

TEST(Pl2, QueueBoundFollowsTheDesign) {
  NetConfig config = ConfigFor("pl2");
  // 2 MTU + (8 requests + 2 guard) control packets.
  EXPECT_EQ(Pl2Transport::QueueBound(config), 2u * 1500 + 10u * 64);
}

class Pl2AtLoad : public testing::TestWithParam<double> {};

TEST_P(Pl2AtLoad, NeverDropsAndKeepsQueuesUnderTheBound) {
  NetConfig config = ConfigFor("pl2");
  Network network(Rack(32), config);
  RackWorkloadSpec spec;
  spec.load = GetParam();
  spec.duration = 300 * kMicrosecond;
  spec.drain = 100 * kMicrosecond;
  spec.ml_bytes = 2'000'000;
  spec.seed = 7;
  RackResult result = RunRackWorkload(&network, spec);
  const NetStats stats = network.Stats();
  EXPECT_EQ(stats.drops, 0u);
  EXPECT_LE(MaxSwitchQueue(network), Pl2Transport::QueueBound(config));
  // A NIC queues only its requests (data leaves one packet at a time, PL2 sends no ACKs).
  EXPECT_LE(stats.max_nic_control_packets, static_cast<uint64_t>(config.pl2.max_requests_per_host));
  EXPECT_GT(result.rpcs.size(), 100u);
  const auto* pl2 = dynamic_cast<const Pl2Transport*>(network.transport());
  ASSERT_NE(pl2, nullptr);
  EXPECT_GT(pl2->stats().grants, 0u);
  if (GetParam() > 1) {
    // Overload waits at the senders, not in the network.
    EXPECT_GT(pl2->stats().rejects, 0u);
    EXPECT_GT(pl2->stats().max_host_backlog_bytes, MaxSwitchQueue(network) * 100);
  }
  // Every RPC is answered within the paper's 60 us: a one-burst request books at most about
  // bulk_horizon + one burst behind the bulk load, whatever that load is.
  for (const RpcRecord& rpc : result.rpcs) {
    ASSERT_GE(rpc.done, 0);
    EXPECT_LE(rpc.done - rpc.issued, 60 * kMicrosecond);
  }
  EXPECT_EQ(stats.payload_dropped, 0u);
  EXPECT_LE(stats.payload_received, stats.payload_sent);  // the rest is still in flight
}

INSTANTIATE_TEST_SUITE_P(Loads, Pl2AtLoad, testing::Values(0.5, 1.0, 4.0));

TEST(Pl2, IncastRunsAtLineRateWithoutQueues) {
  NetConfig config = ConfigFor("pl2");
  Network network(Rack(9), config);
  for (uint32_t s = 1; s <= 8; ++s) network.AddFlow(s, 0, 1'000'000, 0, s);
  network.Run();
  Time last = 0;
  for (uint32_t f = 0; f < 8; ++f) {
    ASSERT_GE(network.flow(f).delivered, 0);
    EXPECT_EQ(network.flow(f).rcv_nxt, 1'000'000u);
    last = std::max(last, network.flow(f).delivered);
  }
  // 8 MB of payload through one 100 Gbps port: at least 95% of the payload rate.
  const double payload_rate = 100e9 * 1452 / 1500;
  EXPECT_GT(8e6 * 8e12 / static_cast<double>(last), 0.95 * payload_rate);
  EXPECT_EQ(network.Stats().drops, 0u);
  EXPECT_LE(MaxSwitchQueue(network), Pl2Transport::QueueBound(config));
}

TEST(Pl2, TicketsShareAnOverloadedReceiverFairly) {
  NetConfig config = ConfigFor("pl2");
  Network network(Rack(17), config);
  for (uint32_t s = 1; s <= 16; ++s) network.AddFlow(s, 0, 2'000'000, 0, s);
  network.Run();
  Time first = kNever, last = 0;
  for (uint32_t f = 0; f < 16; ++f) {
    ASSERT_GE(network.flow(f).delivered, 0);
    first = std::min(first, network.flow(f).delivered);
    last = std::max(last, network.flow(f).delivered);
  }
  // Every sender is served in turn (FIFO tickets), so all finish close together at the end.
  EXPECT_GT(static_cast<double>(first), 0.9 * static_cast<double>(last));
  const auto* pl2 = dynamic_cast<const Pl2Transport*>(network.transport());
  EXPECT_GT(pl2->stats().rejects, 0u);
  // Rejected requests come back once per slot, not in storms: at most a few per grant.
  EXPECT_LT(pl2->stats().rejects, 3 * pl2->stats().grants);
  EXPECT_EQ(network.Stats().drops, 0u);
  EXPECT_LE(MaxSwitchQueue(network), Pl2Transport::QueueBound(config));
}

// Four senders with three 500 KB messages each for one receiver, asked for in start order.
struct OrderRun {
  Time last_first = 0;   // when the last sender's first message was delivered
  Time first_third = 0;  // when the first sender's third message was delivered
  bool in_order = true;  // each sender's messages were delivered in start order
  uint64_t drops = 0;
  uint64_t max_queue = 0;
};

OrderRun RunThreeMessagesPerSender(bool oldest_first) {
  NetConfig config = ConfigFor("pl2");
  config.pl2.bulk_oldest_first = oldest_first;
  Network network(Rack(5), config);
  for (uint32_t s = 1; s <= 4; ++s) {
    for (int m = 0; m < 3; ++m) network.AddFlow(s, 0, 500'000, 0, s);
  }
  network.Run();
  OrderRun run;
  run.first_third = kNever;
  for (uint32_t s = 0; s < 4; ++s) {
    const Flow* message[3];
    for (uint32_t m = 0; m < 3; ++m) message[m] = &network.flow(3 * s + m);
    for (const Flow* flow : message) EXPECT_GE(flow->delivered, 0);
    run.in_order = run.in_order && message[0]->delivered < message[1]->delivered &&
                   message[1]->delivered < message[2]->delivered;
    run.last_first = std::max(run.last_first, message[0]->delivered);
    run.first_third = std::min(run.first_third, message[2]->delivered);
  }
  run.drops = network.Stats().drops;
  run.max_queue = MaxSwitchQueue(network);
  return run;
}

TEST(Pl2, OldestFirstSendersFinishMessagesInStartOrder) {
  const OrderRun oldest = RunThreeMessagesPerSender(true);
  EXPECT_TRUE(oldest.in_order);
  // The receiver's tickets interleave the senders, so every first message is in before any third.
  EXPECT_LT(oldest.last_first, oldest.first_third);
  EXPECT_EQ(oldest.drops, 0u);
  EXPECT_LE(oldest.max_queue, Pl2Transport::QueueBound(ConfigFor("pl2")));
  // By default every message asks, so they share the receiver burst by burst and the first
  // messages finish near the end too.
  const OrderRun shared = RunThreeMessagesPerSender(false);
  EXPECT_LT(2 * oldest.last_first, shared.last_first);
  EXPECT_EQ(shared.drops, 0u);
}

TEST(Homa, OneLargeMessageReachesLineRate) {
  NetConfig config = ConfigFor("homa");
  Network network(Rack(2), config);
  uint32_t id = network.AddFlow(0, 1, 20'000'000, 0, 0);
  network.Run();
  const Flow& flow = network.flow(id);
  ASSERT_GE(flow.delivered, 0);
  const double payload_rate = 100e9 * 1452 / 1500;
  EXPECT_GT(Goodput(flow), 0.97 * payload_rate);
  EXPECT_LE(Goodput(flow), payload_rate);
  EXPECT_EQ(network.Stats().drops, 0u);
}

TEST(Homa, UnscheduledPrefixIsOneRttAndPrioritiesFollowSize) {
  NetConfig config = ConfigFor("homa");
  Network network(Rack(3), config);
  uint32_t big = network.AddFlow(0, 1, 5'000'000, 0, 0);
  uint32_t tiny = network.AddFlow(0, 2, 500, 0, 0);
  const auto* homa = dynamic_cast<const HomaTransport*>(network.transport());
  ASSERT_NE(homa, nullptr);
  // RTTbytes = one BDP of the path in whole packets.
  const uint64_t bdp = network.flow(big).bdp;
  EXPECT_GE(homa->UnscheduledBytes(big), bdp);
  EXPECT_LT(homa->UnscheduledBytes(big), bdp + 1452);
  EXPECT_EQ(homa->UnscheduledBytes(tiny), 500u);
  EXPECT_EQ(homa->UnscheduledPriority(500), 0);
  EXPECT_EQ(homa->UnscheduledPriority(5000), 1);
  EXPECT_EQ(homa->UnscheduledPriority(50'000), 2);
  EXPECT_EQ(homa->UnscheduledPriority(5'000'000), 3);
  network.Run();
  EXPECT_GE(network.flow(tiny).delivered, 0);
  EXPECT_LT(network.flow(tiny).delivered, network.flow(big).delivered);
}

TEST(Homa, ReceiverGrantsShortestRemainingFirst) {
  NetConfig config = ConfigFor("homa");
  config.homa.overcommit = 1;
  Network network(Rack(4), config);
  uint32_t large = network.AddFlow(1, 0, 3'000'000, 0, 0);
  uint32_t small = network.AddFlow(2, 0, 1'000'000, 0, 0);
  uint32_t middle = network.AddFlow(3, 0, 2'000'000, 0, 0);
  network.Run();
  ASSERT_GE(network.flow(large).delivered, 0);
  EXPECT_LT(network.flow(small).delivered, network.flow(middle).delivered);
  EXPECT_LT(network.flow(middle).delivered, network.flow(large).delivered);
  // One message scheduled at a time still keeps the receiver's link busy.
  const double payload_rate = 100e9 * 1452 / 1500;
  EXPECT_GT(6e6 * 8e12 / static_cast<double>(network.flow(large).delivered), 0.9 * payload_rate);
  const auto* homa = dynamic_cast<const HomaTransport*>(network.transport());
  EXPECT_GT(homa->stats().grants, 0u);
  for (uint32_t f : {large, small, middle}) EXPECT_EQ(homa->granted(f), network.flow(f).bytes);
}

TEST(Homa, PerSenderLimitGrantsOneMessageOfASender) {
  for (int per_sender : {0, 1}) {
    NetConfig config = ConfigFor("homa");
    config.homa.overcommit = 2;
    config.homa.max_per_sender = per_sender;
    Network network(Rack(3), config);
    uint32_t first = network.AddFlow(1, 0, 1'000'000, 0, 0);
    uint32_t second = network.AddFlow(1, 0, 1'000'000, 0, 0);
    uint32_t other = network.AddFlow(2, 0, 3'000'000, 0, 0);
    const auto* homa = dynamic_cast<const HomaTransport*>(network.transport());
    network.Run(30 * kMicrosecond);  // the unscheduled prefixes are in, grants flow
    EXPECT_GT(homa->granted(first), homa->UnscheduledBytes(first));
    if (per_sender == 1) {
      EXPECT_EQ(homa->granted(second), homa->UnscheduledBytes(second));
      EXPECT_GT(homa->granted(other), homa->UnscheduledBytes(other));
    } else {  // plain SRPT: the two shortest, both from sender 1
      EXPECT_GT(homa->granted(second), homa->UnscheduledBytes(second));
    }
    network.Run();
    for (uint32_t f : {first, second, other}) EXPECT_GE(network.flow(f).delivered, 0);
  }
}

TEST(Homa, RecoversFromDropsInASmallBuffer) {
  NetConfig config = ConfigFor("homa");
  config.buffer_bytes = 256 * 1024;
  config.homa.resend_timeout = 20 * kMicrosecond;
  Network network(Rack(17), config);
  for (uint32_t s = 1; s <= 16; ++s) network.AddFlow(s, 0, 200'000, 0, s);
  network.Run();
  for (uint32_t f = 0; f < 16; ++f) {
    ASSERT_GE(network.flow(f).delivered, 0) << f;
    EXPECT_EQ(network.flow(f).rcv_nxt, 200'000u);
  }
  const NetStats stats = network.Stats();
  EXPECT_GT(stats.drops, 0u);  // 16 x one BDP unscheduled overflows the buffer
  const auto* homa = dynamic_cast<const HomaTransport*>(network.transport());
  EXPECT_GT(homa->stats().resend_requests + homa->stats().sender_timeouts, 0u);
}

// A receiver cut off from the start never answers, so its sender never hears back. It resends its
// unscheduled bytes after resend_timeout, then after twice the previous wait each time (capped at
// 2^6 timeouts), not every timeout: with 200 us, at about 0.2, 0.6, 1.4, 3.0, 6.2, 12.6, 25.4,
// 38.2, 51.0, 63.8, 76.6 and 89.4 ms (each up to half a timeout later: the timer ticks every
// 100 us) - 12 resends in 100 ms where resending every timeout would make about 330.
TEST(Homa, SenderBacksOffResendingUnheardBytes) {
  NetConfig config = ConfigFor("homa");
  Network network(Rack(2), config);
  network.FailLink(1, 2, 0);  // host 1's only link
  const uint32_t id = network.AddFlow(0, 1, 100'000, 0, 0);
  network.Run(100 * kMillisecond);
  const auto* homa = dynamic_cast<const HomaTransport*>(network.transport());
  EXPECT_EQ(homa->stats().sender_timeouts, 12u);
  EXPECT_LT(network.flow(id).delivered, 0);
  // Each resend is the unscheduled prefix (one RTTbytes, 21 packets) and nothing more.
  const uint64_t prefix_packets = homa->UnscheduledBytes(id) / config.payload_bytes;
  EXPECT_EQ(network.Stats().data_packets, 13 * prefix_packets);
  EXPECT_EQ(homa->granted(id), homa->UnscheduledBytes(id));
}

// A sender cut off after its first packets arrived never sends the rest: the receiver asks for a
// resend after resend_timeout without progress, then after twice the previous wait each time
// (capped at 2^6 timeouts) - the same 12 RESENDs in 100 ms - and the sender, which heard back,
// never times out itself.
TEST(Homa, ReceiverBacksOffResendRequestsWithoutProgress) {
  NetConfig config = ConfigFor("homa");
  Network network(Rack(2), config);
  network.FailLink(0, 2, 5 * kMicrosecond);  // host 0's only link
  const uint32_t id = network.AddFlow(0, 1, 1'000'000, 0, 0);
  network.Run(100 * kMillisecond);
  const auto* homa = dynamic_cast<const HomaTransport*>(network.transport());
  EXPECT_EQ(homa->stats().resend_requests, 12u);
  EXPECT_EQ(homa->stats().sender_timeouts, 0u);
  EXPECT_LT(network.flow(id).delivered, 0);
}

// 16 senders' unscheduled prefixes (16 x 30 KB) into one port of a 2 MiB switch: the per-ingress
// accounting admits them all; an egress dynamic threshold of 1/8 of the free buffer drops the
// excess, and Homa-like's RESEND still delivers everything.
TEST(Homa, EgressThresholdDropsAnIncastThatIngressAccountingAdmits) {
  for (int shift : {-1, 3}) {
    NetConfig config = ConfigFor("homa");
    config.buffer_bytes = 2 << 20;
    config.egress_shift = shift;
    config.homa.resend_timeout = 20 * kMicrosecond;
    Network network(Rack(17), config);
    for (uint32_t s = 1; s <= 16; ++s) network.AddFlow(s, 0, 200'000, 0, s);
    network.Run();
    for (uint32_t f = 0; f < 16; ++f) ASSERT_GE(network.flow(f).delivered, 0) << f;
    const NetStats stats = network.Stats();
    if (shift < 0) {
      EXPECT_EQ(stats.drops, 0u);
      EXPECT_GT(MaxSwitchQueue(network), config.buffer_bytes >> 3);
    } else {
      EXPECT_GT(stats.drops, 0u);
      EXPECT_LE(MaxSwitchQueue(network), config.buffer_bytes >> 3);
    }
  }
}

class EveryTransport : public testing::TestWithParam<const char*> {};

TEST_P(EveryTransport, ConservesBytes) {
  NetConfig config = ConfigFor(GetParam());
  config.buffer_bytes = 1 << 20;  // small enough that the lossy ones drop in the incast
  Network network(Rack(16), config);
  Rng rng(3);
  uint64_t offered = 0;
  for (int i = 0; i < 60; ++i) {
    const uint32_t src = static_cast<uint32_t>(rng.UniformInt(15)) + 1;
    const uint32_t dst = i % 3 == 0 ? 0 : static_cast<uint32_t>(rng.UniformInt(16));
    if (src == dst) continue;
    const uint64_t bytes = 1 + rng.UniformInt(i % 2 == 0 ? 2000 : 400'000);
    network.AddFlow(src, dst, bytes, static_cast<Time>(rng.UniformInt(50)) * kMicrosecond, i);
    offered += bytes;
  }
  network.Run();
  uint64_t delivered = 0;
  for (size_t f = 0; f < network.num_flows(); ++f) {
    const Flow& flow = network.flow(static_cast<uint32_t>(f));
    ASSERT_GE(flow.delivered, 0) << GetParam() << " flow " << f;
    EXPECT_EQ(flow.rcv_nxt, flow.bytes);
    delivered += flow.rcv_nxt;
  }
  EXPECT_EQ(delivered, offered);
  const NetStats stats = network.Stats();
  // Nothing is left in flight: every payload byte sent arrived or was dropped.
  EXPECT_EQ(stats.payload_sent, stats.payload_received + stats.payload_dropped) << GetParam();
  EXPECT_GE(stats.payload_received, offered);
  if (std::string(GetParam()) == "pl2" || std::string(GetParam()) == "dcqcn") {
    EXPECT_EQ(stats.drops, 0u);
    EXPECT_EQ(stats.payload_received, offered);  // no retransmissions either
  }
}

INSTANTIATE_TEST_SUITE_P(Rack, EveryTransport,
                         testing::Values("pl2", "homa", "dctcp", "dcqcn", "lossy"));

TEST(RackWorkload, EtcSizesFollowThePublishedFit) {
  Rng rng(11);
  double value_sum = 0, key_sum = 0;
  int small_values = 0;
  const int n = 200'000;
  for (int i = 0; i < n; ++i) {
    const uint32_t value = EtcValueBytes(rng);
    value_sum += value;
    small_values += value <= 1000;
    key_sum += EtcKeyBytes(rng);
  }
  // GP(0, 214.476, 0.348238): mean 329 B, P(v <= 1000) = 1 - (1 + xi 1000 / sigma)^(-1/xi) = 0.94.
  EXPECT_NEAR(value_sum / n, 329, 25);
  EXPECT_NEAR(static_cast<double>(small_values) / n, 0.94, 0.01);
  // GEV(30.8, 8.2, 0.079): mean mu + sigma (Gamma(1 - xi) - 1) / xi = 35.8.
  EXPECT_NEAR(key_sum / n, 35.8, 1.0);
}

TEST(RackWorkload, OfferedLoadMatchesTheSpec) {
  NetConfig config = ConfigFor("pl2");
  Network network(Rack(8), config);
  RackWorkloadSpec spec;
  spec.load = 2.0;
  spec.duration = 2 * kMillisecond;
  spec.drain = 0;
  spec.seed = 5;
  RackResult result = RunRackWorkload(&network, spec);
  uint64_t request_bytes = 0;
  for (const RpcRecord& rpc : result.rpcs) request_bytes += rpc.request_bytes;
  // 200% of 100 Gbps for 2 ms = 50 MB offered to the hot host (Poisson: within 30%).
  const double offered = static_cast<double>(request_bytes + result.bulk_bytes);
  EXPECT_NEAR(offered / 50e6, 1.0, 0.3);
  EXPECT_THROW(RunRackWorkload(&network, RackWorkloadSpec{.load = 0}), UsageError);
}

// Parameter server on host 1 (hosts 1, 3, 5, 7: one PS and three workers), 1 MB model in four
// shards: every iteration moves every shard's gradient from every worker to the PS and the shard's
// parameters back, and cannot beat the PS downlink carrying all gradients.
class ParameterServer : public testing::TestWithParam<const char*> {};

TEST_P(ParameterServer, IterationMovesEveryShardBothWays) {
  Network network(Rack(8), ConfigFor(GetParam()));
  RackWorkloadSpec spec;
  spec.load = 0.2;
  spec.duration = 1 * kMillisecond;
  spec.drain = 2 * kMillisecond;
  spec.ml_bytes = 1'000'000;
  spec.ml_hosts = 4;
  spec.ml_chunks = 4;
  spec.ml_pattern = MlPattern::kParameterServer;
  spec.seed = 3;
  RackResult result = RunRackWorkload(&network, spec);
  ASSERT_GE(result.ml_iterations.size(), 1u);
  const uint32_t ps = 1;
  uint64_t pushed = 0, pulled = 0;
  for (uint32_t id = 0; id < network.num_flows(); ++id) {
    const Flow& flow = network.flow(id);
    if (flow.bytes != 250'000 || flow.delivered < 0) continue;
    if (flow.dst_host == ps && flow.src_host % 2 == 1) ++pushed;
    if (flow.src_host == ps && flow.dst_host % 2 == 1) ++pulled;
  }
  const uint64_t iterations = result.ml_iterations.size();
  EXPECT_GE(pushed, 12 * iterations);  // 3 workers x 4 shards
  EXPECT_GE(pulled, 12 * iterations);
  EXPECT_LE(pulled, 12 * (iterations + 1));  // at most one iteration unfinished
  // 3 MB of gradients through one 100 Gbps downlink, then at least one shard back out.
  const Time floor = SerializationTime(3'000'000 + 250'000, 100'000'000'000);
  for (Time t : result.ml_iterations) EXPECT_GT(t, floor);
}

INSTANTIATE_TEST_SUITE_P(Rack, ParameterServer, testing::Values("pl2", "homa"));

}  // namespace
}  // namespace jigsaw::net
