// D2R and the baselines on small topologies: what each loses, holds and violates, and the timing
// of notices, computations and rule installs.
#include <gtest/gtest.h>

#include <string>

#include "d2r/baselines.h"
#include "d2r/d2r_scheme.h"
#include "d2r/install_plan.h"
#include "d2r/packet_sim.h"
#include "d2r/study.h"
#include "test_graphs.h"

namespace jigsaw::d2r {
namespace {

StudyOptions Options(const std::string& policy, const std::string& traffic = "10000pps") {
  StudyOptions options;
  options.topology = "test";
  options.policy = policy;
  options.traffic = traffic;
  options.max_flows = 100000;
  return options;
}

Scenario Fail(const Topology& t, std::vector<std::pair<int, int>> links) {
  Scenario scenario;
  scenario.name = "test";
  for (auto [a, b] : links) scenario.links.push_back(t.FindLink(a, b));
  return scenario;
}

// The default timing with the BFS itself at work: no precomputed single-failure trees.
Timing BfsTiming() {
  Timing timing;
  timing.backup_trees = 0;
  return timing;
}

// BfsTiming with 20-us passes and no replica gap: the timing of the hand-derived level traces.
Timing SlowPassTiming() {
  Timing timing = BfsTiming();
  timing.pass = 20 * net::kMicrosecond;
  timing.replica_gap = 0;
  return timing;
}

const SchemeResult& Scheme(const ScenarioResult& result, const std::string& name) {
  for (const SchemeResult& r : result.schemes) {
    if (r.scheme == name) return r;
  }
  ADD_FAILURE() << "no scheme " << name;
  return result.schemes.front();
}

TEST(PacketModel, CountsEmissionsExactly) {
  // Packets at 3 + 10k.
  EXPECT_EQ(CountEmissions(3, 10, 0, 100), 10);
  EXPECT_EQ(CountEmissions(3, 10, 3, 4), 1);
  EXPECT_EQ(CountEmissions(3, 10, 4, 13), 0);
  EXPECT_EQ(CountEmissions(3, 10, -100, 0), 10);  // -97 .. -7
  EXPECT_EQ(CountEmissions(3, 10, 50, 50), 0);
}

// On every single-link failure of random 2-connected-ish graphs, with waypoint and avoidance
// policies, D2R loses nothing after detection, violates nothing and reacts >= 100x faster than
// the controller. Both data-plane BFS modes, under the port hold rule (the stale rule, the
// default, holds at switches far from the failure too: its holds are within the delay bound,
// D2rStaleHoldsStayWithinTheDelayBound).
class D2rBfsModes : public ::testing::TestWithParam<BfsMode> {};

// Runs every single-link failure that leaves a compliant way out, on 12 random 8-switch graphs
// under shortest, waypoint and waypoint + avoidance policies, a packet every 10 us (some arrive
// mid-computation); `check` sees each result. Returns how many scenarios ran.
template <typename Check>
int ForEachRecoverableLinkFailure(BfsMode bfs, HoldRule hold, Check check, int backup_trees = 0) {
  Rng rng(3);
  int scenarios = 0;
  for (int trial = 0; trial < 12; ++trial) {
    Topology t = RandomGraph(8, 0.35, &rng);
    const std::string policy = trial % 3 == 0   ? "shortest"
                               : trial % 3 == 1 ? "waypoint:random"
                                                : "waypoint:random+avoid:node:random";
    StudyOptions options = Options(policy, "100kpps");
    options.timing.bfs = bfs;
    options.timing.hold = hold;
    options.timing.backup_trees = backup_trees;
    Study study(options, t);
    for (int link = 0; link < study.topology().num_links(); ++link) {
      Scenario scenario;
      scenario.name = "link";
      scenario.links = {link};
      ScenarioResult result = study.Run(scenario, false);
      if (result.flows_recoverable == 0) continue;
      ++scenarios;
      SCOPED_TRACE("trial " + std::to_string(trial) + " link " + std::to_string(link));
      check(result);
    }
  }
  return scenarios;
}

TEST_P(D2rBfsModes, D2rLosesNothingAndViolatesNothingWhereACompliantPathExists) {
  int d2r_held = 0, controller_lost = 0;
  const int scenarios =
      ForEachRecoverableLinkFailure(GetParam(), HoldRule::kPort, [&](const ScenarioResult& result) {
        const SchemeResult& d2r = Scheme(result, "d2r");
        const SchemeResult& controller = Scheme(result, "controller");
        EXPECT_EQ(d2r.lost, 0);
        EXPECT_EQ(d2r.violating_flows, 0);
        EXPECT_EQ(d2r.not_restored, 0);
        EXPECT_GT(d2r.recovery, 0);
        EXPECT_GE(controller.recovery, 100 * d2r.recovery);
        EXPECT_EQ(controller.violating_flows, 0);  // policy-aware, and it drops rather than detours
        d2r_held += d2r.held > 0;
        controller_lost += controller.lost > 0;
        // Everyone's final routes are the same shortest compliant routes.
        EXPECT_DOUBLE_EQ(d2r.stretch_sum, controller.stretch_sum);
        EXPECT_DOUBLE_EQ(d2r.stretch_sum, Scheme(result, "link_state").stretch_sum);
      });
  EXPECT_GT(scenarios, 50);
  // The detecting switch holds packets while it computes; a level-parallel BFS takes a few
  // microseconds, so at a packet every 10 us some computations see no packet.
  if (GetParam() == BfsMode::kEntry) {
    EXPECT_EQ(d2r_held, scenarios);
  } else {
    EXPECT_GT(d2r_held, 0);
  }
  EXPECT_EQ(controller_lost, scenarios);

  // With precomputed single-failure trees (the default; on 8 switches radius 1 covers most
  // links), the switches near the failure switch trees instead of computing: still nothing lost,
  // violated or left unrestored, the same final routes, and some switches hold nothing at all.
  int switched = 0, with_backups = 0;
  ForEachRecoverableLinkFailure(
      GetParam(), HoldRule::kPort,
      [&](const ScenarioResult& result) {
        const SchemeResult& d2r = Scheme(result, "d2r");
        const SchemeResult& controller = Scheme(result, "controller");
        EXPECT_EQ(d2r.lost, 0);
        EXPECT_EQ(d2r.violating_flows, 0);
        EXPECT_EQ(d2r.not_restored, 0);
        EXPECT_GE(controller.recovery, 100 * d2r.recovery);
        EXPECT_DOUBLE_EQ(d2r.stretch_sum, controller.stretch_sum);
        switched += d2r.totals["backup_tree_switches"].get<int64_t>() > 0;
        ++with_backups;
      },
      StudyOptions().timing.backup_trees);
  EXPECT_EQ(with_backups, scenarios);
  EXPECT_EQ(switched, scenarios);
}

// The same scenarios under the default stale hold rule: nothing lost or violated, holds shorter
// than the 100 us delay bound, so that D2R's bounded recovery is its unavoidable losses' (packets
// on the wire or sent before detection, the same for the controller) and >= 100x faster.
TEST_P(D2rBfsModes, D2rStaleHoldsStayWithinTheDelayBound) {
  ASSERT_EQ(Options("shortest", "100kpps").timing.hold, HoldRule::kStale);
  int d2r_held = 0;
  const int scenarios = ForEachRecoverableLinkFailure(
      GetParam(), HoldRule::kStale, [&](const ScenarioResult& result) {
        const SchemeResult& d2r = Scheme(result, "d2r");
        const SchemeResult& controller = Scheme(result, "controller");
        EXPECT_EQ(d2r.lost, 0);
        EXPECT_EQ(d2r.violating_flows, 0);
        EXPECT_EQ(d2r.not_restored, 0);
        EXPECT_LE(d2r.recovery_bounded, d2r.recovery);
        EXPECT_EQ(controller.recovery_bounded, controller.recovery);  // it never holds
        EXPECT_GE(controller.recovery_bounded, 100 * d2r.recovery_bounded);
        d2r_held += d2r.held > 0;
      });
  EXPECT_GT(scenarios, 50);
  EXPECT_GT(d2r_held, 0);
}

INSTANTIATE_TEST_SUITE_P(Schemes, D2rBfsModes, ::testing::Values(BfsMode::kEntry, BfsMode::kLevel),
                         [](const ::testing::TestParamInfo<BfsMode>& info) {
                           return info.param == BfsMode::kEntry ? "Entry" : "Level";
                         });

TEST(Schemes, LfaViolatesAnAvoidancePolicyThatD2rKeeps) {
  // 0-1 primary; 2 is avoided but is 0's loop-free alternate towards 1; 0-3-4-1 complies.
  Topology t = MakeGraph(5, {{0, 1}, {0, 2}, {2, 1}, {0, 3}, {3, 4}, {4, 1}});
  Study study(Options("avoid:node:N2"), t);
  ScenarioResult result = study.Run(Fail(study.topology(), {{0, 1}}), false);
  ASSERT_GT(result.flows_recoverable, 0);
  EXPECT_GT(Scheme(result, "lfa").violating_flows, 0);
  EXPECT_GT(Scheme(result, "lfa").noncompliant_packets, 0);
  EXPECT_EQ(Scheme(result, "d2r").violating_flows, 0);
  EXPECT_EQ(Scheme(result, "d2r").lost, 0);
  EXPECT_EQ(Scheme(result, "link_state").violating_flows, 0);
}

TEST(Schemes, LfaLoopsOnADoubleFailureWhereD2rDoesNot) {
  // Triangle 0-1-2 with a long way round 0-3-4-1; 0-1 and 2-1 fail together: 0 and 2 are each
  // other's alternate towards 1, so LFA traffic ping-pongs until the IGP converges.
  Topology t = MakeGraph(5, {{0, 1}, {0, 2}, {2, 1}, {0, 3}, {3, 4}, {4, 1}});
  Study study(Options("shortest"), t);
  ScenarioResult result = study.Run(Fail(study.topology(), {{0, 1}, {2, 1}}), true);
  ASSERT_GT(result.flows_recoverable, 0);
  EXPECT_GT(Scheme(result, "lfa").lost, 0);
  EXPECT_EQ(Scheme(result, "d2r").lost, 0);
  EXPECT_EQ(Scheme(result, "d2r").not_restored, 0);
}

TEST(Schemes, UnrecoverableFlowsAreCountedNotSimulated) {
  // A line: failing the middle link leaves no path for the flows that crossed it.
  Topology t = MakeGraph(4, {{0, 1}, {1, 2}, {2, 3}});
  Study study(Options("shortest"), t);
  ScenarioResult result = study.Run(Fail(study.topology(), {{1, 2}}), false);
  EXPECT_EQ(result.flows_affected, 8);  // {0,1} x {2,3} both ways
  EXPECT_EQ(result.flows_recoverable, 0);
  for (const SchemeResult& r : result.schemes) {
    EXPECT_EQ(r.recovery, 0);
    EXPECT_EQ(r.lost, 0);
  }
}

TEST(Schemes, NoticesFloodAndComputationsAreCharged) {
  // Line 0-1-2-3, 100 us links: 2-3 fails; 0 learns two hops (2 x (pass + 100 us)) after 2.
  Topology t = MakeGraph(4, {{0, 1}, {1, 2}, {2, 3}});
  Policy policy(t);
  Router router(t, policy), plain(t, policy);
  Timing timing = BfsTiming();
  timing.detection = 5 * net::kMicrosecond;
  timing.bfs = BfsMode::kEntry;
  ScenarioContext context(t, timing, router, plain, Fail(t, {{2, 3}}));
  D2rScheme d2r(context);
  const net::Time hop = timing.pass + 100 * net::kMicrosecond;
  EXPECT_EQ(d2r.LearnTime(2, 0), timing.detection);
  EXPECT_EQ(d2r.LearnTime(3, 0), timing.detection);
  EXPECT_EQ(d2r.LearnTime(1, 0), timing.detection + hop);
  EXPECT_EQ(d2r.LearnTime(0, 0), timing.detection + 2 * hop);
  // Switch 2 recomputes its tree over the surviving 0-1-2: it reads every adjacency entry of the
  // nodes it reaches (0: 1 entry, 1: 2, 2: 2) = 5 passes.
  Json totals = d2r.Totals();
  EXPECT_EQ(totals["switches_recomputing"], 4);
  const Json per_switch = d2r.PerSwitch();
  ASSERT_EQ(per_switch.size(), 4u);
  EXPECT_EQ(per_switch[2]["switch"], "N2");
  EXPECT_EQ(per_switch[2]["bfs_passes"], 5);
  EXPECT_DOUBLE_EQ(per_switch[2]["compute_us"].get<double>(), 5.0);
  // During the computation a packet for 3 is held at 2; afterwards it has no route.
  net::Time change;
  Decision held = d2r.Decide(2, {3, 0, 0, INT32_MAX}, timing.detection, &change);
  EXPECT_EQ(held.kind, Decision::kHold);
  EXPECT_EQ(held.until, timing.detection + 5 * timing.pass);
  Decision after = d2r.Decide(2, {3, 0, 0, INT32_MAX}, held.until, &change);
  EXPECT_EQ(after.kind, Decision::kDrop);
  // A packet for 1 at 2 is never held: its route does not use the failed link.
  EXPECT_EQ(d2r.Decide(2, {1, 0, 0, INT32_MAX}, timing.detection, &change).kind,
            Decision::kForward);
}

TEST(Schemes, LevelBfsChargesOnePassPerLevelAndSerialisesReplicas) {
  // Line 0-1-2-3, 2-3 fails. Switch 2's level-parallel BFS over the surviving 0-1-2: level 0
  // expands 2 (2 entries: 1, and 3 behind the dead link), level 1 expands 1 (2 entries), level 2
  // expands 0 (1 entry): 3 passes, 5 replicas, 3 x pass + (1 + 1 + 0) x replica gap.
  Topology t = MakeGraph(4, {{0, 1}, {1, 2}, {2, 3}});
  Policy policy(t);
  Router router(t, policy), plain(t, policy);
  Timing timing = BfsTiming();
  timing.bfs = BfsMode::kLevel;
  timing.replica_gap = 10 * net::kNanosecond;
  ScenarioContext context(t, timing, router, plain, Fail(t, {{2, 3}}));
  D2rScheme d2r(context);
  const Json per_switch = d2r.PerSwitch();
  ASSERT_EQ(per_switch.size(), 4u);
  EXPECT_EQ(per_switch[2]["switch"], "N2");
  EXPECT_EQ(per_switch[2]["bfs_passes"], 3);
  EXPECT_EQ(per_switch[2]["recirculations"], 5);
  const net::Time compute = 3 * timing.pass + 2 * timing.replica_gap;
  EXPECT_DOUBLE_EQ(per_switch[2]["compute_us"].get<double>(), net::ToMicroseconds(compute));
  // A packet for 3 at 2 is held until the BFS ends (3 is never found), then has no route.
  net::Time change;
  Decision held = d2r.Decide(2, {3, 0, 0, INT32_MAX}, 0, &change);
  EXPECT_EQ(held.kind, Decision::kHold);
  EXPECT_EQ(held.until, compute);
  // Ring 0-1-2-3-4-0, 0-1 fails: 0's BFS discovers 1 in level 2 (0 -> 4 -> 3 -> 2 -> 1 is
  // 4 hops: discovered while expanding level 3), the packet is released the moment its
  // replica writes the entry.
  Topology ring = MakeGraph(5, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}});
  Policy ring_policy(ring);
  Router ring_router(ring, ring_policy), ring_plain(ring, ring_policy);
  ScenarioContext ring_context(ring, timing, ring_router, ring_plain, Fail(ring, {{0, 1}}));
  D2rScheme ring_d2r(ring_context);
  // Levels from 0: {0}: 2 entries (1 dead, 4); {4}: 2 (3, 0); {3}: 2 (2, 4); {2}: 2 (1 found at
  // rank 1, 3); {1}: 2.
  Decision ring_held = ring_d2r.Decide(0, {1, 0, 0, INT32_MAX}, 0, &change);
  EXPECT_EQ(ring_held.kind, Decision::kHold);
  EXPECT_EQ(ring_held.until, 3 * (timing.pass + timing.replica_gap) + timing.pass);
  Decision released = ring_d2r.Decide(0, {1, 0, 0, INT32_MAX}, ring_held.until, &change);
  EXPECT_EQ(released.kind, Decision::kForward);
  EXPECT_EQ(released.next, 4);
}

TEST(Schemes, AComputingSwitchHoldsPacketsItWouldBounceBack) {
  // 0-1-2-3 and 0-4-5-3 tie; the routing rule takes 0-1-2-3. 1-2 fails: 1 reroutes 3 via 0
  // (1-0-4-5-3). 0 learns of the failure one hop later and computes; its old route to 3 still
  // leaves on the live port to 1, so a packet that 1 sends back to 0 would bounce between them
  // until 0's new tree is ready. 0 holds it instead (ingress port = egress port).
  Topology t = MakeGraph(6, {{0, 1}, {1, 2}, {2, 3}, {0, 4}, {4, 5}, {5, 3}});
  Policy policy(t);
  Router router(t, policy), plain(t, policy);
  Timing timing = BfsTiming();
  timing.hold = HoldRule::kPort;  // the stale rule would hold the packet from 0 too
  ScenarioContext context(t, timing, router, plain, Fail(t, {{1, 2}}));
  D2rScheme d2r(context);
  const net::Time learned = d2r.LearnTime(0, 0);
  EXPECT_EQ(learned, timing.pass + 100 * net::kMicrosecond);
  net::Time change;
  const Packet from_source{3, 0, 0, INT32_MAX}, bounced{3, 0, 2, INT32_MAX, 1, 0};
  // A packet from 0 itself keeps its old route (1 has rerouted; the detour is loop-free).
  EXPECT_EQ(d2r.Decide(0, from_source, learned, &change).next, 1);
  Decision held = d2r.Decide(0, bounced, learned, &change);
  EXPECT_EQ(held.kind, Decision::kHold);
  EXPECT_GT(held.until, learned);
  Decision released = d2r.Decide(0, bounced, held.until, &change);
  EXPECT_EQ(released.kind, Decision::kForward);
  EXPECT_EQ(released.next, 4);
  // Before 0 knows, the bounce is not recognised as stale: the packet goes back to 1.
  EXPECT_EQ(d2r.Decide(0, bounced, learned - 1, &change).next, 1);
  // With waypoint N0, flow 1 -> 3 legitimately goes 1-0-1-2-3: back at 1 in another automaton
  // state. While 0 recomputes its state-1 tree (4-5 fails), that packet is forwarded to 1; one
  // that would re-enter the product node it came from is held.
  Policy via0 = Policy::Parse("waypoint:N0", t, 1);
  Router via0_router(t, via0), via0_plain(t, via0);
  ScenarioContext via0_context(t, timing, via0_router, via0_plain, Fail(t, {{4, 5}}));
  D2rScheme via0_d2r(via0_context);
  const net::Time via0_learned = via0_d2r.LearnTime(0, 0);
  const Packet detour{3, 1, 1, INT32_MAX, 1, 0}, loop{3, 1, 3, INT32_MAX, 1, 1};
  Decision forwarded = via0_d2r.Decide(0, detour, via0_learned, &change);
  EXPECT_EQ(forwarded.kind, Decision::kForward);
  EXPECT_EQ(forwarded.next, 1);
  EXPECT_EQ(via0_d2r.Decide(0, loop, via0_learned, &change).kind, Decision::kHold);
  // End to end, D2R loses nothing and every flow is restored on the new routes.
  Study study(Options("shortest", "1Mpps"), t);
  ScenarioResult result = study.Run(Fail(study.topology(), {{1, 2}}), false);
  EXPECT_EQ(Scheme(result, "d2r").lost, 0);
  EXPECT_EQ(Scheme(result, "d2r").not_restored, 0);
}

TEST(Schemes, RulesAreInstalledOneAfterTheOther) {
  // Ring 0-1-2-3-0: after 0-1 fails, switch 0 changes its routes to 1 (and to 2, tie-broken
  // through 1 before) one entry at a time.
  Topology t = MakeGraph(4, {{0, 1}, {1, 2}, {2, 3}, {3, 0}});
  Policy policy(t);
  Router router(t, policy);
  InstallPlan plan(router);
  const int set = router.Intern({t.FindLink(0, 1)});
  const net::Time start = 7 * net::kMillisecond, per = net::kMillisecond;
  const net::Time end = plan.AddRound({{0, start}}, set, per)[0];
  EXPECT_EQ(plan.entries_written(0), 2);  // destinations 1 and 2 move to neighbour 3
  EXPECT_EQ(end, start + 2 * per);
  net::Time change;
  EXPECT_EQ(plan.SetAt(0, 0, 1, start, &change), 0);
  EXPECT_EQ(change, start + per);
  EXPECT_EQ(plan.SetAt(0, 0, 1, start + per, &change), set);
  EXPECT_EQ(change, net::kNever);
  EXPECT_EQ(plan.SetAt(0, 0, 2, start + per, &change), 0);
  EXPECT_EQ(change, start + 2 * per);
  EXPECT_EQ(plan.SetAt(0, 0, 3, start, &change), 0);  // unchanged entry
  EXPECT_EQ(change, net::kNever);
  // A second round waits for the first.
  EXPECT_EQ(plan.AddRound({{0, start}}, 0, per)[0], start + 4 * per);
}

TEST(Schemes, BufferBoundTurnsHeldPacketsIntoLosses) {
  Topology t = MakeGraph(4, {{0, 1}, {1, 2}, {2, 3}, {3, 0}});
  StudyOptions options = Options("shortest", "1Mpps");
  options.timing.buffer_packets = 2;
  options.timing.pass = 10 * net::kMicrosecond;
  options.timing.backup_trees = 0;  // the BFS itself: no precomputed single-failure trees
  Study study(options, t);
  ScenarioResult result = study.Run(Fail(study.topology(), {{0, 1}}), false);
  const SchemeResult& d2r = Scheme(result, "d2r");
  EXPECT_GT(d2r.peak_held, 2);
  // Both ends of the failed link hold packets; each overflows its own buffer.
  EXPECT_GE(d2r.buffer_overflow, d2r.peak_held - 2);
  EXPECT_EQ(d2r.lost, d2r.buffer_overflow);
}

TEST(Schemes, DetectionDelayLossesAreUnavoidableAndEqual) {
  Topology t = MakeGraph(4, {{0, 1}, {1, 2}, {2, 3}, {3, 0}});
  StudyOptions options = Options("shortest");
  options.timing.detection = net::kMillisecond;
  Study study(options, t);
  ScenarioResult result = study.Run(Fail(study.topology(), {{0, 1}}), false);
  const int64_t unavoidable = result.schemes[0].lost_unavoidable;
  EXPECT_GT(unavoidable, 0);
  for (const SchemeResult& r : result.schemes) {
    EXPECT_EQ(r.lost_unavoidable, unavoidable) << r.scheme;
    EXPECT_GE(r.recovery, net::kMillisecond) << r.scheme;
  }
  EXPECT_EQ(Scheme(result, "d2r").lost, 0);
}

TEST(Schemes, StretchBoundDropsRatherThanViolates) {
  // Ring of 6: after 0-1 fails, 0 -> 1 takes 5 hops; with stretch 2 (budget 2) no compliant
  // path remains from 0, and packets already past the source cannot be saved either.
  Topology t = MakeGraph(6, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}});
  Study study(Options("stretch:3"), t);
  ScenarioResult result = study.Run(Fail(study.topology(), {{0, 1}}), false);
  EXPECT_GT(result.flows_affected, result.flows_recoverable);
  const SchemeResult& d2r = Scheme(result, "d2r");
  EXPECT_EQ(d2r.violating_flows, 0);
  EXPECT_EQ(d2r.lost, d2r.dropped_no_continuation);
}

TEST(Schemes, NewsOfAFailureTravelsNoFasterThanPropagation) {
  // Line 0-1-2-3, 100 us links, 2-3 fails, detection after 5 us: the earliest any scheme can know
  // is detection plus pure propagation from the nearest detector (no processing per hop).
  Topology t = MakeGraph(4, {{0, 1}, {1, 2}, {2, 3}});
  Policy policy(t);
  Router router(t, policy), plain(t, policy);
  Timing timing = BfsTiming();
  timing.detection = 5 * net::kMicrosecond;
  ScenarioContext context(t, timing, router, plain, Fail(t, {{2, 3}}));
  const net::Time link = 100 * net::kMicrosecond;
  EXPECT_EQ(context.news[3], timing.detection);
  EXPECT_EQ(context.news[2], timing.detection);
  EXPECT_EQ(context.news[1], timing.detection + link);
  EXPECT_EQ(context.news[0], timing.detection + 2 * link);
  // D2R's notice pays a pass per hop on top.
  D2rScheme d2r(context);
  EXPECT_EQ(d2r.LearnTime(0, 0), context.news[0] + 2 * timing.pass);
}

TEST(Schemes, NewsOfEachFailureCrossesOnlySurvivingLinks) {
  // Ring 0-1-2-3-4-5-0, 100 us links; 0-1 and 1-2 fail together (1 is cut off). News of 0-1
  // reaches 2 the long way round (0-5-4-3-2), not over the failed 1-2; the in-band notice pays
  // one pipeline traversal per switch on top.
  Topology t = MakeGraph(6, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}});
  Policy policy(t);
  Router router(t, policy), plain(t, policy);
  Timing timing = BfsTiming();
  ScenarioContext context(t, timing, router, plain, Fail(t, {{0, 1}, {1, 2}}));
  const net::Time link = 100 * net::kMicrosecond;
  ASSERT_EQ(context.news_of.size(), 2u);
  EXPECT_EQ(context.news_of[0][1], 0);
  EXPECT_EQ(context.news_of[0][5], link);
  EXPECT_EQ(context.news_of[0][2], 4 * link);
  EXPECT_EQ(context.notice_of[0][2], 4 * link + 4 * timing.switch_latency);
  EXPECT_EQ(context.news_of[1][0], 4 * link);
  EXPECT_EQ(context.news[2], 0);  // a detector of 1-2
  EXPECT_EQ(context.news[4], 2 * link);
  // D2R's notices take exactly the in-band bound (a pass per switch, equal to the latency).
  D2rScheme d2r(context);
  EXPECT_EQ(d2r.LearnTime(2, 0), context.notice_of[0][2]);
  EXPECT_EQ(d2r.LearnTime(4, 1), context.notice_of[1][4]);
}

// Two failures, 1-3 (A) and 2-3 (B); flow 0 -> 3 (route 0-1-3), a packet every microsecond from
// 0, TTL 4. 0-2 is 1000 us long, every other link 100 us, so news of A reaches 0 at 100 us (from
// 1), news of B at 300 us (3-5-4-0), the in-band notice of B at 303 us. The only way out from 0
// is 0-4-5-3 (3 hops); from 1 or 2 the way back costs 5 hops. In [100, 300 us) switch 0 knows of
// A only, and its shortest path under A (0-2-3) runs into B: it cannot tell this world from one
// without B, so packets sent then are stranded before news (they have no way out). In [300, 303 us)
// 0 could know of B at signal speed but no notice can be there yet: 3 packets lost with a way out,
// all before notice. From 303 us D2R holds and reroutes: no loss.
TEST(Schemes, ASwitchThatCannotKnowOfTheSecondFailureIsNotAWayOut) {
  Topology t = MakeGraph(6, {{0, 1}, {1, 3}, {0, 2}, {2, 3}, {0, 4}, {4, 5}, {5, 3}});
  t.links[t.FindLink(0, 2)].delay = 1000 * net::kMicrosecond;
  Policy policy(t);
  Router router(t, policy), plain(t, policy);
  Timing timing = BfsTiming();
  timing.ttl = 4;
  ASSERT_EQ(timing.hold, HoldRule::kStale);
  ScenarioContext context(t, timing, router, plain, Fail(t, {{1, 3}, {2, 3}}));
  EXPECT_EQ(context.news_of[0][0], 100 * net::kMicrosecond);
  EXPECT_EQ(context.news_of[1][0], 300 * net::kMicrosecond);
  EXPECT_EQ(context.notice_of[1][0], 303 * net::kMicrosecond);
  D2rScheme d2r(context);
  EXPECT_EQ(d2r.LearnTime(0, 1), context.notice_of[1][0]);
  Flow flow;
  flow.src = 0;
  flow.dst = 3;
  flow.path = {0, 1, 3};
  flow.path_time = context.hop_time[t.FindLink(0, 1)] + context.hop_time[t.FindLink(1, 3)];
  flow.plain_hops = 2;
  flow.hop_budget = 4;
  flow.phase = 0;
  TrafficModel traffic{net::kMicrosecond, -flow.path_time - net::kMicrosecond,
                       5 * net::kMillisecond};
  std::vector<HoldRecord> holds;
  const FlowOutcome o = SimulateFlow(flow, d2r, context, traffic, &holds);
  EXPECT_EQ(o.lost_stranded_early, 300);
  EXPECT_EQ(o.scheme_losses() - o.lost_stranded, 3);
  EXPECT_EQ(o.lost_way_out_before_notice, 3);
  EXPECT_TRUE(o.restored);
  EXPECT_EQ(o.final_hops, 3);
  // Those 3 count in recovery, not in bounded recovery; the holds last microseconds.
  EXPECT_GT(o.recovery, 1000 * net::kMicrosecond);
  EXPECT_LT(o.recovery_bounded, 300 * net::kMicrosecond);
}

// Ring of 6 with 100 us links, 2-3 fails, TTL 6, 1 Mpps per flow (a packet every microsecond),
// level BFS without replica gaps (whole microseconds). Only flow 0 -> 3 (0-1-2-3) can run out of
// hops: its way back from 2 (2-1-0-5-4-3) needs 2 + 5 = 7 hops; from 1, 1 + 4 = 5 would do.
// * Packets that reached 2 after the failure but 1 before it had no way out anywhere: stranded.
// * Packets that reached 1 in [0, 100 us), before news of the failure could get there (100 us of
//   propagation), had a way out only there: stranded, counted as "before news" (exactly 100).
// * Packets that reached 1 from 100 us on could have turned: lost by D2R while switch 1 does not
//   know (its notice arrives at 101 us: [100, 101) is one packet) and, under the port hold rule,
//   while its BFS runs (the old route's first hop 1-2 is up, so they go on to 2): one packet per
//   BFS pass. The stale hold rule holds those and sends them the short way round.
StudyOptions StrandedOptions(HoldRule hold) {
  StudyOptions options = Options("shortest", "1Mpps");
  options.timing.ttl = 6;
  options.timing.bfs = BfsMode::kLevel;
  options.timing.replica_gap = 0;
  options.timing.hold = hold;
  options.timing.backup_trees = 0;  // the BFS itself: no precomputed single-failure trees
  return options;
}

int64_t BfsPasses(const SchemeResult& d2r, const std::string& name) {
  for (const Json& entry : d2r.per_switch) {
    if (entry["switch"] == name) return entry["bfs_passes"].get<int64_t>();
  }
  ADD_FAILURE() << "no per-switch entry for " << name;
  return -1;
}

TEST(Schemes, LossesWithoutACompliantWayOutAreStranded) {
  Topology t = MakeGraph(6, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}});
  Study study(StrandedOptions(HoldRule::kPort), t);
  ScenarioResult result = study.Run(Fail(study.topology(), {{2, 3}}), true);
  const SchemeResult& d2r = Scheme(result, "d2r");
  EXPECT_GT(d2r.lost_stranded, d2r.lost_stranded_early);
  EXPECT_EQ(d2r.lost_stranded_early, 100);
  const int64_t passes = BfsPasses(d2r, "N1");
  EXPECT_GT(passes, 0);
  EXPECT_EQ(d2r.lost - d2r.lost_stranded, 1 + passes);
  // The one in [100, 101 us) had its way out only before an in-band notice could be at 1.
  EXPECT_EQ(d2r.lost_way_out_before_notice, 1);
  EXPECT_EQ(d2r.lost, d2r.dropped_no_continuation);
  EXPECT_EQ(d2r.violating_flows, 0);
  for (const SchemeResult& r : result.schemes) {
    EXPECT_LE(r.lost_stranded, r.lost) << r.scheme;
    EXPECT_LE(r.lost_stranded_early, r.lost_stranded) << r.scheme;
  }
  const SchemeResult& controller = Scheme(result, "controller");
  EXPECT_GT(controller.lost, controller.lost_stranded);  // blackholed while it could turn

  // The stale hold rule saves the packets that reach 1 while it computes; the one in the window
  // between news and D2R's notice remains.
  Study stale(StrandedOptions(HoldRule::kStale), t);
  ScenarioResult held = stale.Run(Fail(stale.topology(), {{2, 3}}), false);
  const SchemeResult& stale_d2r = Scheme(held, "d2r");
  EXPECT_EQ(stale_d2r.lost - stale_d2r.lost_stranded, 1);
  EXPECT_EQ(stale_d2r.lost_way_out_before_notice, 1);
  // Bounded recovery leaves that packet out (no in-band scheme could turn it) and the holds (a
  // few microseconds); what is left is the packets on the failed link when it failed.
  EXPECT_LT(stale_d2r.recovery_bounded, stale_d2r.recovery);
  EXPECT_EQ(stale_d2r.lost_stranded, d2r.lost_stranded);
  EXPECT_EQ(stale_d2r.violating_flows, 0);

  // With the default TTL every packet has a way out, and D2R loses none.
  Study roomy(Options("shortest", "1Mpps"), t);
  ScenarioResult fine = roomy.Run(Fail(roomy.topology(), {{2, 3}}), false);
  EXPECT_EQ(Scheme(fine, "d2r").lost, 0);
  for (const SchemeResult& r : fine.schemes) EXPECT_EQ(r.lost_stranded, 0) << r.scheme;
}

TEST(Schemes, StaleHoldRuleHoldsPacketsWhoseOldRouteCrossesAKnownFailure) {
  // Line 0-1-2-3 plus 0-4-5-3; 2-3 fails. Switch 1 learns one hop after 2; its old route to 3
  // leaves on the live port to 2. Under the port rule it forwards; under the stale rule it holds
  // until its BFS finds 3 (then via 0). Its route to 2 is intact and never held.
  Topology t = MakeGraph(6, {{0, 1}, {1, 2}, {2, 3}, {0, 4}, {4, 5}, {5, 3}});
  Policy policy(t);
  Router router(t, policy), plain(t, policy);
  net::Time change;
  for (HoldRule hold : {HoldRule::kPort, HoldRule::kStale}) {
    Timing timing = BfsTiming();
    timing.hold = hold;
    ScenarioContext context(t, timing, router, plain, Fail(t, {{2, 3}}));
    D2rScheme d2r(context);
    const net::Time learned = d2r.LearnTime(1, 0);
    const Packet to3{3, 0, 0, INT32_MAX}, to2{2, 0, 0, INT32_MAX};
    Decision decision = d2r.Decide(1, to3, learned, &change);
    if (hold == HoldRule::kPort) {
      EXPECT_EQ(decision.kind, Decision::kForward);
      EXPECT_EQ(decision.next, 2);
    } else {
      ASSERT_EQ(decision.kind, Decision::kHold);
      EXPECT_GT(decision.until, learned);
      Decision released = d2r.Decide(1, to3, decision.until, &change);
      EXPECT_EQ(released.kind, Decision::kForward);
      EXPECT_EQ(released.next, 0);
    }
    EXPECT_EQ(d2r.Decide(1, to2, learned, &change).next, 2);
    // Before it learns, nothing is held.
    EXPECT_EQ(d2r.Decide(1, to3, learned - 1, &change).next, 2);
  }
}

TEST(Schemes, StaleHoldRuleReadsTheLastLabelledTreeWhileNewLabelsAreSwept) {
  // 0-1-2-3 plus 0-4-5-6-3, 100 us links, passes of 20 us. 1-2 fails one hop from switch 0 (it
  // learns at 120 us), 6-3 three hops away (360 us). Switch 0's first computation (6 levels, done
  // at 240 us) has ended when the second notice arrives, but the labels of its new tree (two
  // sweeps, 2 x 120 us more, ready at 480 us) are not: the hold test reads the failure-free tree's
  // labels. A destination whose route there avoids every known failure keeps that route in every
  // later tree: not held. One whose route there crosses a known failure is held until the second
  // BFS finds it (never: 3 is cut off). That BFS resumes the first tree's at level 3, the first
  // that crossed 6-3: the notice re-issues {6} (one pass) and level 3 ends at 400 us (from
  // scratch: 4 levels, 440 us).
  Topology t = MakeGraph(7, {{0, 1}, {1, 2}, {2, 3}, {0, 4}, {4, 5}, {5, 6}, {6, 3}});
  Policy policy(t);
  Router router(t, policy), plain(t, policy);
  Timing timing = SlowPassTiming();
  timing.hold = HoldRule::kStale;
  ScenarioContext context(t, timing, router, plain, Fail(t, {{1, 2}, {6, 3}}));
  D2rScheme d2r(context);
  const net::Time us = net::kMicrosecond;
  const net::Time first = d2r.LearnTime(0, 0), second = d2r.LearnTime(0, 1);
  EXPECT_EQ(first, 120 * us);
  EXPECT_EQ(second, 360 * us);
  net::Time change;
  const Packet to1{1, 0, 0, INT32_MAX}, to6{6, 0, 0, INT32_MAX}, to3{3, 0, 0, INT32_MAX};
  // During the first computation: 1 is intact, 3 is behind the failure (found in level 3, 200 us).
  EXPECT_EQ(d2r.Decide(0, to1, first, &change).kind, Decision::kForward);
  Decision held = d2r.Decide(0, to3, first, &change);
  ASSERT_EQ(held.kind, Decision::kHold);
  EXPECT_EQ(held.until, 200 * us);
  // During the second: routes to 1 (0-1) and 6 (0-4-5-6) avoid both failures in the failure-free
  // tree: forwarded on them (the labels of the last labelled tree say they are intact).
  EXPECT_EQ(d2r.Decide(0, to1, second, &change).next, 1);
  EXPECT_EQ(d2r.Decide(0, to6, second, &change).next, 4);
  held = d2r.Decide(0, to3, second, &change);
  ASSERT_EQ(held.kind, Decision::kHold);
  EXPECT_EQ(held.until, 400 * us);
  EXPECT_EQ(d2r.Decide(0, to3, held.until, &change).kind, Decision::kDrop);
  // Under the port rule nothing is held whose next hop is up.
  Timing port = timing;
  port.hold = HoldRule::kPort;
  ScenarioContext port_context(t, port, router, plain, Fail(t, {{1, 2}, {6, 3}}));
  D2rScheme port_d2r(port_context);
  EXPECT_EQ(port_d2r.Decide(0, to1, second, &change).kind, Decision::kForward);
}

// Ring 0-1-...-7-0 plus 8 on 2 and 4; passes of 20 us, no replica gap; 0-1 fails (switch 0
// detects it at 0). Switch 0's BFS over the product graph (here the graph) from 0, level by level
// (adjacency in neighbour order): {0} finds 7; {7}: 6; {6}: 5; {5}: 4; {4}: 3 and 8; {3, 8}: 2;
// {2}: 1; {1}: nothing. 8 levels of 20 us; node found in level l at 20 (l + 1) us.
Topology RollbackRing(net::Time delay) {
  return MakeGraph(
      9, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 0}, {4, 8}, {2, 8}}, delay);
}

TEST(Schemes, ASecondFailureTheBfsHasCrossedRollsItBackToThatLevel) {
  // 10 us links: 3-4 fails too; its notice reaches 0 over 4-5-6-7-0 at 4 x (20 + 10) = 120 us.
  // By then the BFS has found 3 across 3-4 (level 4, at 100 us): it rolls back to level 4. The
  // notice re-issues the probe of that level's frontier {4} (one pass), and levels 4.. of the BFS
  // for both failures run from 140 us: {4}: 8 (160 us); {8}: 2 (180 us); {2}: 1 and 3 (200 us);
  // {1, 3}: done at 220 us. A restart would have ended at 120 + 8 x 20 = 280 us. The stopped BFS
  // goes on beside it (levels 6 and 7 at 120 and 140 us): what it found over paths whose filter
  // does not show 3-4 is final.
  Topology t = RollbackRing(10 * net::kMicrosecond);
  Policy policy(t);
  Router router(t, policy), plain(t, policy);
  Timing timing = SlowPassTiming();
  ScenarioContext context(t, timing, router, plain, Fail(t, {{0, 1}, {3, 4}}));
  D2rScheme d2r(context);
  const net::Time us = net::kMicrosecond;
  ASSERT_EQ(d2r.LearnTime(0, 0), 0);
  ASSERT_EQ(d2r.LearnTime(0, 1), 120 * us);
  net::Time change;
  auto to = [](int dst) { return Packet{dst, 0, 0, INT32_MAX}; };
  // Before the notice: 3 is released when the first BFS finds it, on that BFS's route (via 7).
  Decision held = d2r.Decide(0, to(3), 0, &change);
  ASSERT_EQ(held.kind, Decision::kHold);
  EXPECT_EQ(held.until, 100 * us);
  EXPECT_EQ(d2r.Decide(0, to(3), 100 * us, &change).next, 7);
  // A packet for 2 held before the notice waits for the first BFS until the rollback ...
  held = d2r.Decide(0, to(2), 110 * us, &change);
  ASSERT_EQ(held.kind, Decision::kHold);
  EXPECT_EQ(held.until, 120 * us);
  // ... then for the rerun: 2 at 180 us, 3 and 1 at 200 us (the stopped BFS reached them across
  // 3-4).
  const std::pair<int, net::Time> rerun[] = {{2, 180}, {3, 200}, {1, 200}};
  for (auto [dst, until] : rerun) {
    held = d2r.Decide(0, to(dst), 120 * us, &change);
    ASSERT_EQ(held.kind, Decision::kHold) << dst;
    EXPECT_EQ(held.until, until * us) << dst;
  }
  EXPECT_EQ(d2r.Decide(0, to(3), 200 * us, &change).next, 7);  // 0-7-6-5-4-8-2-3
  // 4 was found in level 3, before the crossing: its entry stands, forwarded at once (a restart
  // would have held it until 120 + 80 us).
  EXPECT_EQ(d2r.Decide(0, to(4), 120 * us, &change).next, 7);
  // 8: the stopped BFS found it at 100 us over 0-7-6-5-4-8, which avoids 3-4: forwarded at once
  // (the rerun finds it at 160 us).
  EXPECT_EQ(d2r.Decide(0, to(8), 120 * us, &change).next, 7);
  // Work: levels 0-5 of the first BFS (begun before 120 us; 2+2+2+2+3+4 entries), the re-issued
  // probe, levels 4-7 of the rerun (3+2+3+4 entries), 220 us; beside them levels 6-7 of the first
  // BFS (3+2 entries): 13 passes, 33 recirculations.
  const Json per_switch = d2r.PerSwitch();
  ASSERT_EQ(per_switch[0]["switch"], "N0");
  EXPECT_EQ(per_switch[0]["tree_recomputations"], 2);
  EXPECT_EQ(per_switch[0]["bfs_passes"], 13);
  EXPECT_EQ(per_switch[0]["recirculations"], 33);
  EXPECT_DOUBLE_EQ(per_switch[0]["compute_us"].get<double>(), 220.0);
}

TEST(Schemes, ASecondFailureTheBfsHasNotCrossedYetJoinsIt) {
  // 1 us links: 1-2 fails too; its notice reaches 0 over 2-3-4-5-6-7-0 (or 2-8-4-...) at
  // 6 x 21 = 126 us, before the BFS crosses 1-2 (it would find 1 from 2 at 140 us). The BFS goes on
  // with 1-2 down and is the BFS for both failures: 7 levels, done at 140 us; 1 is never found.
  Topology t = RollbackRing(net::kMicrosecond);
  Policy policy(t);
  Router router(t, policy), plain(t, policy);
  Timing timing = SlowPassTiming();
  ScenarioContext context(t, timing, router, plain, Fail(t, {{0, 1}, {1, 2}}));
  D2rScheme d2r(context);
  const net::Time us = net::kMicrosecond;
  ASSERT_EQ(d2r.LearnTime(0, 1), 126 * us);
  net::Time change;
  Decision held = d2r.Decide(0, {1, 0, 0, INT32_MAX}, 0, &change);
  ASSERT_EQ(held.kind, Decision::kHold);
  EXPECT_EQ(held.until, 140 * us);
  EXPECT_EQ(d2r.Decide(0, {1, 0, 0, INT32_MAX}, held.until, &change).kind, Decision::kDrop);
  held = d2r.Decide(0, {2, 0, 0, INT32_MAX}, 0, &change);
  ASSERT_EQ(held.kind, Decision::kHold);
  EXPECT_EQ(held.until, 120 * us);  // level 5
  const Json per_switch = d2r.PerSwitch();
  ASSERT_EQ(per_switch[0]["switch"], "N0");
  EXPECT_EQ(per_switch[0]["tree_recomputations"], 1);
  EXPECT_EQ(per_switch[0]["bfs_passes"], 7);
  EXPECT_DOUBLE_EQ(per_switch[0]["compute_us"].get<double>(), 140.0);
}

TEST(Schemes, AComputationResumesTheTreeInForceAtTheFirstLevelThatCrossedTheFailure) {
  // 0-1-2-3-4 plus 2-5-6-4, 10 us links, passes of 20 us, no replica gap; 3-4 fails and switch 0
  // learns at 3 x (20 + 10) = 90 us. Its failure-free BFS: {0}: 1; {1}: 2; {2}: 3, 5; {3, 5}: 4
  // (from 3), 6; {4, 6}. 3-4 is first crossed in level 3: the levels before are those of the BFS
  // for 3-4 down, so the new BFS re-issues level 3's frontier {3, 5} (two passes, 90-130 us) and
  // runs levels 3-5 of the BFS for 3-4 down: {3, 5}: 6 (150 us); {6}: 4 (170 us); {4}: done at
  // 190 us. From scratch: 6 levels, 4 found at 190 us, done at 210 us.
  Topology t = MakeGraph(7, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {2, 5}, {5, 6}, {6, 4}},
                         10 * net::kMicrosecond);
  Policy policy(t);
  Router router(t, policy), plain(t, policy);
  Timing timing = SlowPassTiming();
  ScenarioContext context(t, timing, router, plain, Fail(t, {{3, 4}}));
  D2rScheme d2r(context);
  const net::Time us = net::kMicrosecond;
  ASSERT_EQ(d2r.LearnTime(0, 0), 90 * us);
  net::Time change;
  auto to = [](int dst) { return Packet{dst, 0, 0, INT32_MAX}; };
  const Decision held = d2r.Decide(0, to(4), 90 * us, &change);
  ASSERT_EQ(held.kind, Decision::kHold);
  EXPECT_EQ(held.until, 170 * us);
  EXPECT_EQ(d2r.Decide(0, to(4), held.until, &change).next, 1);  // 0-1-2-5-6-4
  // Routes that avoid 3-4 are not held.
  EXPECT_EQ(d2r.Decide(0, to(3), 90 * us, &change).kind, Decision::kForward);
  EXPECT_EQ(d2r.Decide(0, to(6), 90 * us, &change).kind, Decision::kForward);
  // Work: two re-issued probes, then levels 3-5 (4 + 2 + 2 adjacency entries): 5 passes, 10
  // recirculations, 100 us (from scratch: 6 passes, 1+2+3+4+2+2 = 14 recirculations, 120 us).
  const Json per_switch = d2r.PerSwitch();
  ASSERT_EQ(per_switch[0]["switch"], "N0");
  EXPECT_EQ(per_switch[0]["tree_recomputations"], 1);
  EXPECT_EQ(per_switch[0]["bfs_passes"], 5);
  EXPECT_EQ(per_switch[0]["recirculations"], 10);
  EXPECT_DOUBLE_EQ(per_switch[0]["compute_us"].get<double>(), 100.0);
  // Entry mode has no levels to keep: it runs the whole BFS.
  Timing entry = timing;
  entry.bfs = BfsMode::kEntry;
  ScenarioContext entry_context(t, entry, router, plain, Fail(t, {{3, 4}}));
  D2rScheme entry_d2r(entry_context);
  EXPECT_EQ(entry_d2r.PerSwitch()[0]["tree_recomputations"], 1);
  EXPECT_GT(entry_d2r.Decide(0, to(4), 90 * us, &change).until, 170 * us);
}

TEST(Schemes, TwoSwitchHoldsAreShorterWhenEachSwitchResumesItsTree) {
  // A packet held at two switches in a row, one BFS each (the mechanism of the longest holds of
  // the double-failure study, on VtlWavenet2008/2011): line 0-1-2-3-4-5-6 with detours 1-8-2 and
  // 5-7-6, 100 us links, passes of 20 us, no replica gap; 1-2 and 5-6 fail. Switch 1 (an end of
  // 1-2) holds a packet for 6 from 0 until its BFS for 1-2 down finds 6 ({1}: 0, 8; {0, 8}: 2; {2}:
  // 3; {3}: 4; {4}: 5; {5}: 6, 7), at 120 us. Switch 2 (the other end) finished that BFS at 100 us
  // ({2}: 3, 8; {3, 8}: 4, 1; {4, 1}: 5, 0; {5, 0}: 6, 7; {6, 7}) and learns of 5-6 at 3 x 120 =
  // 360 us: a packet for 6 arriving then is held (its route 2-3-4-5-6 crosses 5-6) until the new
  // BFS finds 6. That BFS resumes switch 2's tree at level 3, the first that crossed 5-6: the
  // notice re-issues {5, 0} (two passes), then {5, 0}: 7 (420 us); {7}: 6 (440 us); {6}: done at
  // 460 us. From scratch: 6 found at 460 us, done at 480 us. Switch 1 learns of 5-6 at 600 us (over
  // 2-8-1); its tree for 1-2 down first crossed 5-6 in level 5 (frontier {5}): one re-issued
  // probe, {5}: 7 (640 us), {7}: 6 (660 us; from scratch 740 us).
  Topology t = MakeGraph(
      9, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {1, 8}, {8, 2}, {5, 7}, {7, 6}});
  Policy policy(t);
  Router router(t, policy), plain(t, policy);
  Timing timing = SlowPassTiming();
  ScenarioContext context(t, timing, router, plain, Fail(t, {{1, 2}, {5, 6}}));
  D2rScheme d2r(context);
  const net::Time us = net::kMicrosecond;
  ASSERT_EQ(d2r.LearnTime(1, 0), 0);
  ASSERT_EQ(d2r.LearnTime(2, 0), 0);
  ASSERT_EQ(d2r.LearnTime(2, 1), 360 * us);
  ASSERT_EQ(d2r.LearnTime(1, 1), 600 * us);
  net::Time change;
  const Packet to6{6, 0, 0, INT32_MAX};
  Decision held = d2r.Decide(1, to6, 0, &change);
  ASSERT_EQ(held.kind, Decision::kHold);
  EXPECT_EQ(held.until, 120 * us);
  EXPECT_EQ(d2r.Decide(1, to6, held.until, &change).next, 8);
  held = d2r.Decide(2, to6, 360 * us, &change);
  ASSERT_EQ(held.kind, Decision::kHold);
  EXPECT_EQ(held.until, 440 * us);
  EXPECT_EQ(d2r.Decide(2, to6, held.until, &change).next, 3);  // 2-3-4-5-7-6
  // Routes that avoid 5-6 are not held: 4 (2-3-4) and 7 (2-3-4-5-7, the same in the new tree).
  EXPECT_EQ(d2r.Decide(2, {4, 0, 0, INT32_MAX}, 360 * us, &change).next, 3);
  EXPECT_EQ(d2r.Decide(2, {7, 0, 0, INT32_MAX}, 360 * us, &change).next, 3);
  held = d2r.Decide(1, to6, 600 * us, &change);
  ASSERT_EQ(held.kind, Decision::kHold);
  EXPECT_EQ(held.until, 660 * us);
  // Switch 2: the BFS for 1-2 down (3+4+5+4+4 entries), two re-issued probes, levels 3-5 of the
  // BFS for both down (4+2+2): 10 passes, 30 recirculations, 200 us (from scratch 11, 40, 220).
  const Json per_switch = d2r.PerSwitch();
  bool checked = false;
  for (const Json& entry : per_switch) {
    if (entry["switch"] != "N2") continue;
    checked = true;
    EXPECT_EQ(entry["tree_recomputations"], 2);
    EXPECT_EQ(entry["bfs_passes"], 10);
    EXPECT_EQ(entry["recirculations"], 30);
    EXPECT_DOUBLE_EQ(entry["compute_us"].get<double>(), 200.0);
  }
  EXPECT_TRUE(checked);
}

TEST(Schemes, ASwitchNearTheFailureSwitchesToItsPrecomputedTree) {
  // The graph of the test above (0-1-2-3-4 plus 2-5-6-4; links 0-1, 1-2, 2-3, 3-4, 2-5, 5-6, 6-4
  // are ids 0..6), 10 us links, passes of 20 us, no replica gap; 3-4 fails. Switch 3's nodes
  // within one hop are 3, 2, 4: its candidates, nearer end first then by id, are 2-3, 3-4 (its
  // own), 1-2, 2-5, 6-4, all edges of its failure-free tree ({3}: 2, 4; {2, 4}: 1, 5, 6; {1}: 0).
  // With 16 slots it has all five; with 2, links 2 and 3; with 1, only 2-3.
  Topology t = MakeGraph(7, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {2, 5}, {5, 6}, {6, 4}},
                         10 * net::kMicrosecond);
  EXPECT_EQ(CandidateBackupLinks(t, 3, 1), (std::vector<int>{2, 3, 1, 4, 6}));
  EXPECT_EQ(CandidateBackupLinks(t, 0, 1), (std::vector<int>{0, 1}));
  EXPECT_EQ(CandidateBackupLinks(t, 3, 0), (std::vector<int>{2, 3}));
  Policy policy(t);
  Router router(t, policy), plain(t, policy);
  Timing timing;
  ASSERT_EQ(timing.backup_trees, 16);
  ASSERT_EQ(timing.backup_radius, 1);
  timing.pass = 20 * net::kMicrosecond;
  timing.replica_gap = 0;
  const net::Time us = net::kMicrosecond;
  net::Time change;
  auto to = [](int dst) { return Packet{dst, 0, 0, INT32_MAX}; };
  {
    ScenarioContext context(t, timing, router, plain, Fail(t, {{3, 4}}));
    D2rScheme d2r(context);
    EXPECT_EQ(d2r.BackupLinks(3), (std::vector<int>{1, 2, 3, 4, 6}));
    // Switch 3 learns at 0 and switches trees in the notice pass: a packet for 4 goes 3-2-5-6-4
    // at once, nothing held, no BFS.
    const Decision at3 = d2r.Decide(3, to(4), 0, &change);
    EXPECT_EQ(at3.kind, Decision::kForward);
    EXPECT_EQ(at3.next, 2);
    // Switch 0 (candidates 0-1 and 1-2 only) learns at 90 us and computes as in the test above.
    EXPECT_EQ(d2r.Decide(0, to(4), 90 * us, &change).until, 170 * us);
    const Json per_switch = d2r.PerSwitch();
    for (const Json& entry : per_switch) {
      if (entry["switch"] == "N3" || entry["switch"] == "N4") {
        EXPECT_EQ(entry["backup_tree_switches"], 1) << entry.dump();
        EXPECT_EQ(entry["tree_recomputations"], 0) << entry.dump();
        EXPECT_EQ(entry["bfs_passes"], 0) << entry.dump();
      }
      if (entry["switch"] == "N0") {
        EXPECT_EQ(entry["tree_recomputations"], 1);
      }
    }
  }
  // Two slots: 2-3 and 3-4, still a switch. One slot (2-3 only): switch 3 runs its BFS for 3-4
  // down, which crosses 3-4 in level 0 (nothing to resume): {3}: 2 (0-20 us); {2}: 1, 5 (20-40);
  // {1, 5}: 0, 6 (40-60); {0, 6}: 4 (found at 80 us).
  timing.backup_trees = 2;
  {
    ScenarioContext context(t, timing, router, plain, Fail(t, {{3, 4}}));
    D2rScheme d2r(context);
    EXPECT_EQ(d2r.BackupLinks(3), (std::vector<int>{2, 3}));
    EXPECT_EQ(d2r.Decide(3, to(4), 0, &change).kind, Decision::kForward);
  }
  timing.backup_trees = 1;
  {
    ScenarioContext context(t, timing, router, plain, Fail(t, {{3, 4}}));
    D2rScheme d2r(context);
    EXPECT_EQ(d2r.BackupLinks(3), (std::vector<int>{2}));
    const Decision held = d2r.Decide(3, to(4), 0, &change);
    ASSERT_EQ(held.kind, Decision::kHold);
    EXPECT_EQ(held.until, 80 * us);
  }
  // A second failure is never precomputed: a switch whose tree in force is a precomputed one
  // resumes it like any other (3-4 and 0-1: switch 3 learns of 0-1 later and computes).
  timing.backup_trees = 16;
  {
    ScenarioContext context(t, timing, router, plain, Fail(t, {{3, 4}, {0, 1}}));
    D2rScheme d2r(context);
    int switched = 0, computed = 0;
    for (const Json& entry : d2r.PerSwitch()) {
      if (entry["switch"] == "N3") {
        switched = entry["backup_tree_switches"].get<int>();
        computed = entry["tree_recomputations"].get<int>();
      }
    }
    EXPECT_EQ(switched, 1);
    EXPECT_EQ(computed, 1);
  }
  // Registers: the most candidates of any switch is 6 (switch 2: 0-1, 1-2, 2-3, 3-4, 2-5, 5-6);
  // per slot and product node dist 16 + parent 3 + first hop 8 + queue 2 x 3 + labels 2 x 3 = 39
  // bits, 7 product nodes: 6 x 7 x 39 = 1,638 bits; with 2 slots 546; with none 0.
  timing.backup_trees = 16;
  EXPECT_EQ(D2rRegisters(t, 1, timing).backup_trees, 6);
  EXPECT_EQ(D2rRegisters(t, 1, timing).backup_bits, 1638);
  timing.backup_trees = 2;
  EXPECT_EQ(D2rRegisters(t, 1, timing).backup_bits, 546);
  timing.backup_trees = 0;
  EXPECT_EQ(D2rRegisters(t, 1, timing).backup_bits, 0);
}

TEST(Schemes, AHeldPacketWithAWaypointAheadLeavesWhenTheBfsReachesTheWaypoint) {
  // 0-1-2-3-4 plus a detour 0-5-6-2, waypoint 2, 10 us links, passes of 20 us, no replica gap,
  // no precomputed trees; 1-2 fails and switch 0 learns at 20 + 10 = 30 us. Its failure-free tree
  // for state 0 crosses 1-2 in level 1 ((2,1) from (1,0)); re-issuing that level's two probes
  // (40 us) is not sooner than level 0 (20 us), so the BFS restarts at 30 us: {(0,0)}: (1,0),
  // (5,0) (30-50 us); {(1,0), (5,0)}: (6,0) (50-70); {(6,0)}: (2,1) (found at 90); {(2,1)}: (3,1),
  // (6,1) (110); {(3,1), (6,1)}: (4,1), (5,1) (130); {(4,1), (5,1)}: (0,1) (150); {(0,1)}: (1,1)
  // (170). Every destination's tree path runs through (2,1): a packet in state 0 for 4, 3 or 1
  // leaves at 90 us via 5 (without the rule: at 130, 110 and 170 us).
  Topology t = MakeGraph(7, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 5}, {5, 6}, {6, 2}},
                         10 * net::kMicrosecond);
  Policy policy = Policy::Parse("waypoint:N2", t, 1);
  Router router(t, policy), plain(t, Policy(t));
  Timing timing = SlowPassTiming();
  ASSERT_TRUE(timing.early_waypoint_release);
  const net::Time us = net::kMicrosecond;
  net::Time change;
  auto to = [](int dst) { return Packet{dst, 0, 0, INT32_MAX}; };
  const std::pair<int, net::Time> cases[] = {{4, 130 * us}, {3, 110 * us}, {1, 170 * us}};
  {
    ScenarioContext context(t, timing, router, plain, Fail(t, {{1, 2}}));
    D2rScheme d2r(context);
    ASSERT_EQ(d2r.LearnTime(0, 0), 30 * us);
    for (const auto& [dst, late] : cases) {
      SCOPED_TRACE(dst);
      const Decision held = d2r.Decide(0, to(dst), 30 * us, &change);
      ASSERT_EQ(held.kind, Decision::kHold);
      EXPECT_EQ(held.until, 90 * us);
      const Decision released = d2r.Decide(0, to(dst), held.until, &change);
      EXPECT_EQ(released.kind, Decision::kForward);
      EXPECT_EQ(released.next, 5);
    }
    // A packet past its waypoint (state 1) waits for its own destination: (4,1) in the tree
    // rooted at (0,1) of the BFS for 1-2 down ({(0,1)}: (1,1), (5,1); {(5,1)}: (6,1); {(6,1)}:
    // (2,1); {(2,1)}: (3,1), found at 110; {(3,1)}: (4,1), found at 130 us).
    const Decision after = d2r.Decide(0, Packet{4, 1, 0, INT32_MAX}, 30 * us, &change);
    ASSERT_EQ(after.kind, Decision::kHold);
    EXPECT_EQ(after.until, 130 * us);
  }
  timing.early_waypoint_release = false;
  {
    ScenarioContext context(t, timing, router, plain, Fail(t, {{1, 2}}));
    D2rScheme d2r(context);
    for (const auto& [dst, late] : cases) {
      SCOPED_TRACE(dst);
      EXPECT_EQ(d2r.Decide(0, to(dst), 30 * us, &change).until, late);
    }
  }
}

TEST(Schemes, InBandControlGoesRoundTheFailure) {
  // Ring 0-1-2-3-0 (100 us links, 1 us switch latency): the controller sits at 0. After 0-1
  // fails, its rules reach 1 the long way round in band (3 hops), in one hop out of band.
  Topology t = MakeGraph(4, {{0, 1}, {1, 2}, {2, 3}, {3, 0}});
  Policy policy(t);
  Router router(t, policy), plain(t, policy);
  const net::Time hop = net::kMicrosecond + 100 * net::kMicrosecond;
  for (bool in_band : {true, false}) {
    Timing timing = BfsTiming();
    timing.in_band_control = in_band;
    const ControlPlacement placement = PlaceControllers(t, timing);
    ASSERT_EQ(placement.controller[0], 0);
    ScenarioContext context(t, timing, router, plain, Fail(t, {{0, 1}}));
    ControllerScheme controller(context, placement);
    double latency_1 = -2;
    for (const Json& entry : controller.PerSwitch()) {
      if (entry["switch"] == "N1") latency_1 = entry["control_latency_us"].get<double>();
    }
    EXPECT_DOUBLE_EQ(latency_1, net::ToMicroseconds((in_band ? 3 : 1) * hop)) << in_band;
  }
}

TEST(Schemes, RunsAreDeterministic) {
  Rng rng(5);
  Topology t = RandomGraph(9, 0.3, &rng);
  Study a(Options("waypoint:random"), t), b(Options("waypoint:random"), t);
  Scenario scenario;
  scenario.name = "x";
  scenario.links = {0, 3};
  ScenarioResult ra = a.Run(scenario, true), rb = b.Run(scenario, true);
  ASSERT_EQ(ra.schemes.size(), rb.schemes.size());
  for (size_t s = 0; s < ra.schemes.size(); ++s) {
    EXPECT_EQ(SchemeJson(ra.schemes[s], Timing()).dump(),
              SchemeJson(rb.schemes[s], Timing()).dump());
  }
}

}  // namespace
}  // namespace jigsaw::d2r
