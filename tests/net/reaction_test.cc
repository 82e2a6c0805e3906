// Whether congestion control and PFC reacted: rate cuts per law, and head-of-line victims of PFC
// (NetStats::rate_cuts, pfc_blocked_flows, hol_victim_flows; docs/net.md "PFC victims").
#include <gtest/gtest.h>

#include <string>

#include "net/network.h"
#include "net/topology.h"

namespace jigsaw::net {
namespace {

// Switch A (node 7) holds hosts 0-1, switch B (node 8) hosts 2-6; hosts on 100 Gbps, A-B on
// 200 Gbps so that only B's port towards host 2 can be congested.
Topology TwoSwitches() {
  std::string text = "9 2 8\n7 8\n";
  for (int h = 0; h < 2; ++h) text += std::to_string(h) + " 7 100Gbps 1us 0\n";
  for (int h = 2; h < 7; ++h) text += std::to_string(h) + " 8 100Gbps 1us 0\n";
  text += "7 8 200Gbps 1us 0\n";
  return ParseTopologyText("two-switches", text);
}

NetConfig SmallBuffer(CcMode cc) {
  NetConfig config;
  config.cc = cc;
  config.buffer_bytes = 1 << 20;  // PFC thresholds of ~100 KB: pauses within microseconds
  config.window = false;          // rate-limited only, so the incast is not held to one BDP
  return config;
}

// Four 1 MB flows into host 2 (from 0 across A->B, and from 4, 5, 6) congest B's port to host 2.
// B pauses its ingress from A (root: the port to host 2, the longest queue at B) and the NICs of
// 4-6; A's queue towards B then grows and A pauses the NICs of 0 and 1, the root passed down the
// chain. Flow 1 -> 3 (`victim_dst` 3) shares A->B and host 1's NIC with the congestion but never
// crosses B's port to host 2: exactly one head-of-line victim among five blocked flows. Sent to
// host 2 instead, it is part of the congestion and there is no victim.
NetStats RunHolScenario(CcMode cc, uint32_t victim_dst) {
  Network network(TwoSwitches(), SmallBuffer(cc));
  network.AddFlow(0, 2, 1'000'000, 0, 0);
  network.AddFlow(1, victim_dst, 1'000'000, 0, 0);
  for (uint32_t h = 4; h < 7; ++h) network.AddFlow(h, 2, 1'000'000, 0, 0);
  network.Run();
  for (uint32_t f = 0; f < network.num_flows(); ++f) EXPECT_GE(network.flow(f).delivered, 0);
  return network.Stats();
}

TEST(NetPfcVictims, FlowToAnUncongestedPortIsTheOnlyVictim) {
  NetStats stats = RunHolScenario(CcMode::kNone, 3);
  EXPECT_GT(stats.pause_frames, 0u);
  EXPECT_EQ(stats.pfc_blocked_flows, 5u);
  EXPECT_EQ(stats.hol_victim_flows, 1u);
  EXPECT_EQ(stats.pause_roots, 1u);  // B's port to host 2, for both switches' pauses
  EXPECT_EQ(stats.rate_cuts, 0u);    // no law
  EXPECT_EQ(stats.rate_cut_flows, 0u);
}

TEST(NetPfcVictims, FlowIntoTheCongestionIsNoVictim) {
  NetStats stats = RunHolScenario(CcMode::kNone, 2);
  EXPECT_EQ(stats.pfc_blocked_flows, 5u);
  EXPECT_EQ(stats.hol_victim_flows, 0u);
  EXPECT_EQ(stats.pause_roots, 1u);
}

TEST(NetPfcVictims, NoPauseNoVictim) {
  Network network(TwoSwitches(), NetConfig{});  // 32 MiB buffers: 2 MB of incast fits
  network.AddFlow(0, 2, 500'000, 0, 0);
  network.AddFlow(4, 2, 500'000, 0, 0);
  network.AddFlow(1, 3, 500'000, 0, 0);
  network.Run();
  NetStats stats = network.Stats();
  EXPECT_EQ(stats.pause_frames, 0u);
  EXPECT_EQ(stats.pfc_blocked_flows, 0u);
  EXPECT_EQ(stats.hol_victim_flows, 0u);
  EXPECT_EQ(stats.pause_roots, 0u);
}

class NetRateCuts : public testing::TestWithParam<CcMode> {};

// One switch, hosts 0-4 on 100 Gbps: four 4 MB flows into host 4 build a queue far above the ECN
// thresholds (32 MiB buffer, no PFC pause) and every law cuts all four; a lone flow at line rate
// is never cut by the ECN laws (no queue, no mark), and with --cc none nothing is ever cut.
NetStats RunIncast(CcMode cc, uint32_t senders) {
  std::string text = "6 1 5\n5\n";
  for (int h = 0; h < 5; ++h) text += std::to_string(h) + " 5 100Gbps 1us 0\n";
  NetConfig config;
  config.cc = cc;
  config.window = false;
  Network network(ParseTopologyText("star", text), config);
  for (uint32_t h = 0; h < senders; ++h) network.AddFlow(h, 4, 4'000'000, 0, 0);
  network.Run();
  for (uint32_t f = 0; f < network.num_flows(); ++f) EXPECT_GE(network.flow(f).delivered, 0);
  return network.Stats();
}

TEST_P(NetRateCuts, LawsCutUnderIncastOnly) {
  NetStats stats = RunIncast(GetParam(), 4);
  EXPECT_GT(stats.rate_cuts, 0u) << CcModeName(GetParam());
  EXPECT_EQ(stats.rate_cut_flows, 4u) << CcModeName(GetParam());
  EXPECT_GE(stats.rate_cuts, stats.rate_cut_flows);

  NetStats alone = RunIncast(GetParam(), 1);
  EXPECT_EQ(alone.ecn_marks, 0u);
  if (GetParam() == CcMode::kDcqcn || GetParam() == CcMode::kDctcp) {
    EXPECT_EQ(alone.rate_cuts, 0u);
  }
}

TEST(NetRateCutsNone, NeverCut) {
  NetStats stats = RunIncast(CcMode::kNone, 4);
  EXPECT_GT(stats.ecn_marks, 0u);  // congestion, but no law to react to it
  EXPECT_EQ(stats.rate_cuts, 0u);
  EXPECT_EQ(stats.rate_cut_flows, 0u);
}

INSTANTIATE_TEST_SUITE_P(Laws, NetRateCuts,
                         testing::Values(CcMode::kDcqcn, CcMode::kDctcp, CcMode::kTimely,
                                         CcMode::kHpcc),
                         [](const testing::TestParamInfo<CcMode>& info) {
                           return std::string(CcModeName(info.param));
                         });

}  // namespace
}  // namespace jigsaw::net
