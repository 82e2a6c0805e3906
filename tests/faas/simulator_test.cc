// The simulator end to end on small clusters: every request completes or fails explicitly, a
// killed worker's functions are retried (or their requests fail when retries are exhausted),
// runs are deterministic, and the mechanisms show (proactive sandboxes avoid cold starts, the
// load balancer scales a hot DAG out).
#include "faas/simulator.h"

#include <gtest/gtest.h>

#include <string>

#include "faas/dag_reader.h"
#include "faas/workload.h"

namespace jigsaw::faas {
namespace {

constexpr Time kMs = net::kMillisecond;
constexpr Time kS = net::kSecond;

SimOptions Small(Platform platform) {
  SimOptions o;
  o.platform = platform;
  o.cores = 64;
  o.cores_per_worker = 8;
  o.workers_per_sgs = 2;
  o.worker_memory = 16ULL << 30;
  o.requests = 20'000;
  o.warmup = 2 * kS;
  return o;
}

Catalog SmallWorkload(double load) {
  WorkloadOptions w;
  w.dags = 40;
  w.cores = 64;
  w.load = load;
  w.seed = 3;
  return GenerateWorkload(w);
}

void ExpectAccounted(const SimResult& r, uint64_t requests) {
  EXPECT_EQ(r.requests, requests);
  EXPECT_EQ(r.completed + r.failed, r.requests);
  EXPECT_EQ(r.lost, 0u);
}

TEST(FaasSimulator, EveryPlatformAccountsForEveryRequest) {
  const Catalog c = SmallWorkload(0.5);
  for (Platform p : {Platform::kArchipelago, Platform::kOpenWhisk, Platform::kSparrow}) {
    const SimResult r = Simulate(c, Small(p));
    ExpectAccounted(r, 20'000);
    EXPECT_EQ(r.failed, 0u) << PlatformName(p);
    EXPECT_GT(r.measured, 10'000u);
    EXPECT_GT(r.p50_ms, 0);
    EXPECT_LE(r.p50_ms, r.p99_ms);
    EXPECT_LE(r.p99_ms, r.p999_ms);
    EXPECT_GT(r.invocations, r.measured);  // some DAGs have several functions
    EXPECT_GT(r.sandbox_memory_avg_gb, 0);
  }
}

TEST(FaasSimulator, MissesAreBrokenDownByDagAndByBurstPeriod) {
  const Catalog c = SmallWorkload(0.9);  // loaded enough to miss some deadlines
  for (Platform p : {Platform::kArchipelago, Platform::kOpenWhisk}) {
    const SimResult r = Simulate(c, Small(p));
    ASSERT_EQ(r.per_dag.size(), c.dags.size());
    uint64_t measured = 0, missed = 0, by_period = 0, missed_by_period = 0;
    for (const DagOutcome& o : r.per_dag) {
      measured += o.measured;
      missed += o.missed;
      EXPECT_LE(o.missed, o.measured);
      EXPECT_LE(o.missed_wait_s, o.missed_latency_s * 20);  // summed over at most 20 functions
    }
    for (size_t i = 0; i < r.measured_by_period.size(); ++i) {
      by_period += r.measured_by_period[i];
      missed_by_period += r.missed_by_period[i];
    }
    EXPECT_EQ(measured, r.measured) << PlatformName(p);
    EXPECT_EQ(missed, r.measured - r.measured_met) << PlatformName(p);
    EXPECT_GT(missed, 0u) << PlatformName(p);
    EXPECT_EQ(by_period, r.measured);
    EXPECT_EQ(missed_by_period, missed);
    // Per DAG and period: the sums match the per-DAG and per-period totals, every generated
    // request arrived in some entry, and the requests above the p99 are about 1 % of the measured.
    uint64_t arrived = 0, above_p99 = 0;
    std::vector<uint64_t> dag_measured(c.dags.size(), 0), dag_missed(c.dags.size(), 0);
    std::vector<uint64_t> period_missed(r.missed_by_period.size(), 0);
    for (const DagPeriodOutcome& e : r.per_dag_period) {
      ASSERT_LT(e.dag, c.dags.size());
      EXPECT_GT(e.arrived, 0u);
      EXPECT_LE(e.measured, e.arrived);
      EXPECT_LE(e.missed, e.measured);
      EXPECT_LE(e.above_p99, e.measured);
      arrived += e.arrived;
      above_p99 += e.above_p99;
      dag_measured[e.dag] += e.measured;
      dag_missed[e.dag] += e.missed;
      if (e.period < period_missed.size()) period_missed[e.period] += e.missed;
      if (p == Platform::kArchipelago && e.period > 0) {
        EXPECT_GE(e.max_sgs, 1u);
      } else if (p == Platform::kOpenWhisk) {
        EXPECT_EQ(e.max_sgs, 0u);
      }
    }
    EXPECT_EQ(arrived, r.requests) << PlatformName(p);
    for (DagId d = 0; d < c.dags.size(); ++d) {
      EXPECT_EQ(dag_measured[d], r.per_dag[d].measured) << d;
      EXPECT_EQ(dag_missed[d], r.per_dag[d].missed) << d;
    }
    EXPECT_EQ(period_missed, r.missed_by_period);
    EXPECT_GT(above_p99, 0u);
    EXPECT_LE(above_p99, r.measured / 100 + 1);
  }
}

// An admission rule refuses nothing below the cluster's capacity (the run is the same as without
// it, with the policy name suffixed) and refuses explicitly, as failures, under overload.
void ExpectRefusesOnlyInOverload(const SimOptions& with, const std::string& suffix) {
  const Catalog light = SmallWorkload(0.3);
  const SimResult a = Simulate(light, with);
  const SimResult b = Simulate(light, Small(Platform::kArchipelago));
  ExpectAccounted(a, 20'000);
  EXPECT_EQ(a.refused, 0u);
  EXPECT_EQ(a.measured_met, b.measured_met);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.policy, b.policy + suffix);
  const SimResult over = Simulate(SmallWorkload(1.5), with);
  ExpectAccounted(over, 20'000);
  EXPECT_GT(over.refused, 0u);
  EXPECT_GE(over.failed, over.refused);
  EXPECT_LT(over.refused, over.requests);
}

TEST(FaasSimulator, AdmissionControlRefusesOnlyInOverloadAndExplicitly) {
  SimOptions with = Small(Platform::kArchipelago);
  with.admission_control = true;
  ExpectRefusesOnlyInOverload(with, "-ac");
}

// Hopeless-at-arrival admission: a request is refused when the work queued ahead of it exceeds
// its slack, which short queues never do.
TEST(FaasSimulator, HopelessAdmissionRefusesOnlyWhenTheQueueAheadExceedsTheSlack) {
  SimOptions with = Small(Platform::kArchipelago);
  with.hopeless_admission = true;
  ExpectRefusesOnlyInOverload(with, "-ha");
}

TEST(FaasSimulator, SameSeedSameResult) {
  const Catalog c = SmallWorkload(0.6);
  const SimResult a = Simulate(c, Small(Platform::kArchipelago));
  const SimResult b = Simulate(c, Small(Platform::kArchipelago));
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.measured_met, b.measured_met);
  EXPECT_DOUBLE_EQ(a.p99_ms, b.p99_ms);
  EXPECT_EQ(a.cold_starts, b.cold_starts);
}

// Proactive allocation (plus warming a DAG's later functions on arrival) removes most cold
// starts compared with the same platform without it.
TEST(FaasSimulator, ProactiveSandboxesCutColdStarts) {
  const Catalog c = SmallWorkload(0.5);
  SimOptions with = Small(Platform::kArchipelago);
  SimOptions without = with;
  without.proactive = false;
  const SimResult a = Simulate(c, with);
  const SimResult b = Simulate(c, without);
  EXPECT_LT(a.cold_starts * 2, b.cold_starts);
  EXPECT_GE(a.deadline_met_pct, b.deadline_met_pct);
}

// One DAG carrying more load than one pool: the load balancer must give it more SGSs.
TEST(FaasSimulator, LoadBalancerScalesAHotDagOut) {
  const Catalog c = ParseDagText("hot.json", R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "hot", "deadline": "200ms", "rate": 1200,
     "functions": [{"name": "a", "duration": "10ms"}, {"name": "b", "duration": "10ms",
                    "after": ["a"]}]},
    {"name": "cold", "deadline": "200ms", "rate": 5,
     "functions": [{"name": "c", "duration": "10ms"}]}]})");
  // 1200/s x 20 ms = 24 cores of work; one pool has 16.
  SimOptions o = Small(Platform::kArchipelago);
  o.requests = 30'000;
  const SimResult r = Simulate(c, o);
  ExpectAccounted(r, 30'000);
  EXPECT_GE(r.scale_outs, 1u);
  EXPECT_GE(r.max_sgs_per_dag, 2u);
  EXPECT_GT(r.deadline_met_pct, 90);
}

// One timer-triggered chain a -> b (10 ms each, no variation) arriving every `period`.
Catalog PeriodicChain(const std::string& rate) {
  Catalog c = ParseDagText("chain.json", R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "chain", "deadline": "1s", "rate": )" +
                                             rate + R"(,
     "functions": [{"name": "a", "duration": "10ms"}, {"name": "b", "duration": "10ms",
                    "after": ["a"]}]}]})");
  c.dags[0].periodic = true;
  for (Function& f : c.functions) f.duration_cv = 0;
  return c;
}

// OpenWhisk pauses a warm container idle for longer than the pause grace (50 ms) and resumes it
// before the next activation: every run of a request arriving every 500 ms pays the resume
// (10 + 15 ms per function), a run 10 ms after the last one does not; cost 0 turns it off.
TEST(FaasSimulator, OpenWhiskResumesSandboxesPausedLongerThanThePauseGrace) {
  SimOptions o = Small(Platform::kOpenWhisk);
  o.requests = 100;
  o.warmup = 5 * kS;  // the first requests' cold starts are not measured
  const SimResult paused = Simulate(PeriodicChain("2"), o);
  ExpectAccounted(paused, 100);
  EXPECT_EQ(paused.cold_starts, 0u);
  EXPECT_EQ(paused.unpauses, paused.invocations);
  EXPECT_EQ(paused.invocations, 2 * paused.measured);
  EXPECT_DOUBLE_EQ(paused.p50_ms, 50.0);
  EXPECT_DOUBLE_EQ(paused.max_ms, 50.0);
  EXPECT_DOUBLE_EQ(paused.p99_floor_ms, 20.0);  // the execution alone

  o.ow_unpause_cost = 0;
  const SimResult off = Simulate(PeriodicChain("2"), o);
  EXPECT_EQ(off.unpauses, 0u);
  EXPECT_DOUBLE_EQ(off.max_ms, 20.0);

  // Every 30 ms: a's sandbox was released 20 ms earlier, b's 10 ms earlier: both within 50 ms.
  o.ow_unpause_cost = 15 * kMs;
  o.requests = 1'000;
  const SimResult busy = Simulate(PeriodicChain("33.333333333"), o);
  EXPECT_EQ(busy.unpauses, 0u);
  EXPECT_DOUBLE_EQ(busy.max_ms, 20.0);

  // Archipelago does not pause.
  SimOptions a = Small(Platform::kArchipelago);
  a.requests = 100;
  a.warmup = 5 * kS;
  const SimResult archipelago = Simulate(PeriodicChain("2"), a);
  EXPECT_EQ(archipelago.unpauses, 0u);
  EXPECT_DOUBLE_EQ(archipelago.max_ms, 20.0);
}

// One request per second of a chain of functions with `memory`, setup 100 ms and run 10 ms each;
// the sandboxes outlive their run by at most 100 ms (keep-alive), so every run cold-starts.
Catalog ColdChain(const std::string& memory, int functions) {
  std::string list;
  for (int i = 0; i < functions; ++i) {
    list += std::string(i ? ", " : "") + R"({"name": "f)" + std::to_string(i) +
            R"(", "duration": "10ms", "setup": "100ms", "memory": ")" + memory + '"' +
            (i ? R"(, "after": ["f)" + std::to_string(i - 1) + R"("])" : std::string()) + "}";
  }
  Catalog c = ParseDagText("cold.json", R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "cold", "deadline": "1s", "rate": 1, "functions": [)" +
                                            list + "]}]}");
  c.dags[0].periodic = true;
  for (Function& f : c.functions) f.duration_cv = 0;
  return c;
}

SimOptions ColdOptions(uint64_t requests) {
  SimOptions o = Small(Platform::kOpenWhisk);
  o.requests = requests;
  o.warmup = 0;
  o.keep_alive = 100 * kMs;
  return o;
}

// OpenWhisk's stem cells: a cold start of a function with the stem cells' memory (256 MiB) takes
// one and pays only the init share (0.2 x 100 ms) of its setup: 2 x (20 + 10) ms instead of
// 2 x (100 + 10) ms. Another memory size, or no stem cells, pays the full setup.
TEST(FaasSimulator, OpenWhiskStemCellsCutMatchingColdStartsToTheirInitShare) {
  const SimResult stem = Simulate(ColdChain("256MiB", 2), ColdOptions(5));
  ExpectAccounted(stem, 5);
  EXPECT_EQ(stem.invocations, 10u);
  EXPECT_EQ(stem.cold_starts, 10u);
  EXPECT_EQ(stem.prewarm_starts, 10u);
  EXPECT_DOUBLE_EQ(stem.p50_ms, 60.0);
  EXPECT_DOUBLE_EQ(stem.max_ms, 60.0);
  // 8 invokers x 2 stem cells x 256 MiB are held throughout.
  EXPECT_GE(stem.sandbox_memory_avg_gb, 4.0);

  const SimResult other = Simulate(ColdChain("128MiB", 2), ColdOptions(5));
  EXPECT_EQ(other.cold_starts, 10u);
  EXPECT_EQ(other.prewarm_starts, 0u);
  EXPECT_DOUBLE_EQ(other.p50_ms, 220.0);
  EXPECT_DOUBLE_EQ(other.max_ms, 220.0);

  SimOptions none = ColdOptions(5);
  none.ow_stem_cells = 0;
  const SimResult off = Simulate(ColdChain("256MiB", 2), none);
  EXPECT_EQ(off.cold_starts, 10u);
  EXPECT_EQ(off.prewarm_starts, 0u);
  EXPECT_DOUBLE_EQ(off.max_ms, 220.0);
  EXPECT_LT(off.sandbox_memory_avg_gb, 1.0);

  // Archipelago and Sparrow-like have no stem cells.
  for (Platform p : {Platform::kArchipelago, Platform::kSparrow}) {
    SimOptions o = ColdOptions(5);
    o.platform = p;
    const SimResult r = Simulate(ColdChain("256MiB", 1), o);
    EXPECT_EQ(r.prewarm_starts, 0u) << PlatformName(p);
  }
}

// A taken stem cell is replaced in the background: with one per invoker, ready 400 ms after it
// was taken, every cold start a second later is a stem-cell start too (10 + 20 ms). Ready only
// 1.5 s later, every other one pays the full 100 ms setup: (30 + 110 + 30 + 110) / 4 = 70 ms.
TEST(FaasSimulator, OpenWhiskReplacesATakenStemCell) {
  SimOptions o = ColdOptions(3);
  o.ow_stem_cells = 1;
  const SimResult quick = Simulate(ColdChain("256MiB", 1), o);
  ExpectAccounted(quick, 3);
  EXPECT_EQ(quick.cold_starts, 3u);
  EXPECT_EQ(quick.prewarm_starts, 3u);
  EXPECT_DOUBLE_EQ(quick.max_ms, 30.0);

  o.requests = 4;
  o.ow_stem_cell_create = 1500 * kMs;
  const SimResult slow = Simulate(ColdChain("256MiB", 1), o);
  EXPECT_EQ(slow.cold_starts, 4u);
  EXPECT_EQ(slow.prewarm_starts, 2u);
  EXPECT_DOUBLE_EQ(slow.mean_ms, 70.0);
  EXPECT_DOUBLE_EQ(slow.max_ms, 110.0);
}

// No stem cells reproduce the baseline before they were modelled: a generated workload (30 % of
// its functions have 256 MiB) gives the same result with 0 stem cells as with a memory size no
// function has, and stem cells do change it.
TEST(FaasSimulator, NoStemCellsIsTheOldBaseline) {
  const Catalog c = SmallWorkload(0.5);
  SimOptions o = Small(Platform::kOpenWhisk);
  o.ow_stem_cells = 0;
  const SimResult off = Simulate(c, o);
  o.ow_stem_cells = 2;
  o.ow_stem_cell_memory = 64ULL << 20;  // no generated function has 64 MiB
  const SimResult unmatched = Simulate(c, o);
  EXPECT_EQ(off.prewarm_starts, 0u);
  EXPECT_EQ(unmatched.prewarm_starts, 0u);
  EXPECT_EQ(off.cold_starts, unmatched.cold_starts);
  EXPECT_EQ(off.unpauses, unmatched.unpauses);
  EXPECT_EQ(off.events, unmatched.events);
  EXPECT_EQ(off.sandboxes_evicted, unmatched.sandboxes_evicted);
  EXPECT_DOUBLE_EQ(off.p99_ms, unmatched.p99_ms);
  EXPECT_DOUBLE_EQ(off.mean_ms, unmatched.mean_ms);
  o.ow_stem_cell_memory = 256ULL << 20;
  const SimResult stem = Simulate(c, o);
  EXPECT_GT(stem.prewarm_starts, 0u);
  EXPECT_LE(stem.prewarm_starts, stem.cold_starts);
}

// The tail (requests slower than the p99) broken down: for a chain, a request's latency is exactly
// its waiting + cold-start setup + resumes + execution floor, so the means add up.
TEST(FaasSimulator, TailBreakdownAddsUpForAChain) {
  Catalog c = ParseDagText("hot.json", R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "hot", "deadline": "100ms", "rate": 1500,
     "functions": [{"name": "a", "duration": "10ms"}, {"name": "b", "duration": "10ms",
                    "after": ["a"]}]}]})");
  for (Platform p : {Platform::kOpenWhisk, Platform::kArchipelago}) {
    SimOptions o = Small(p);
    o.requests = 20'000;
    const SimResult r = Simulate(c, o);
    ExpectAccounted(r, 20'000);
    const TailBreakdown& t = r.tail;
    ASSERT_GT(t.requests, 0u) << PlatformName(p);
    EXPECT_LE(t.requests, r.measured / 100 + 1);
    EXPECT_GT(t.latency_ms, r.p99_ms);
    EXPECT_NEAR(t.latency_ms, t.wait_ms + t.setup_ms + t.unpause_ms + t.floor_ms, 1e-6)
        << PlatformName(p);
    EXPECT_EQ(t.dags, 1u);
    EXPECT_EQ(t.top_dag, 0u);
    EXPECT_DOUBLE_EQ(t.top_dag_share, 1.0);
    EXPECT_GT(r.p99_floor_ms, 20.0);  // two 10 ms runs with cv 0.2
    EXPECT_LT(r.p99_floor_ms, r.p99_ms);
  }
}

// Killing a worker mid-run: its running functions are retried elsewhere, nothing is lost.
TEST(FaasSimulator, KilledWorkersFunctionsAreRetried) {
  const Catalog c = SmallWorkload(0.5);
  for (Platform p : {Platform::kArchipelago, Platform::kOpenWhisk, Platform::kSparrow}) {
    SimOptions o = Small(p);
    o.kills = {{0, 5 * kS}, {3, 6 * kS}};
    const SimResult r = Simulate(c, o);
    ExpectAccounted(r, 20'000);
    EXPECT_GT(r.retries, 0u) << PlatformName(p);
    EXPECT_EQ(r.failed, 0u) << PlatformName(p);
  }
}

// With no retries allowed, the killed functions' requests fail explicitly (counted, never lost),
// and a whole SGS pool dying moves its queued work to the survivors.
TEST(FaasSimulator, KilledWithoutRetriesFailExplicitly) {
  const Catalog c = SmallWorkload(0.7);
  for (Platform p : {Platform::kArchipelago, Platform::kOpenWhisk, Platform::kSparrow}) {
    SimOptions o = Small(p);
    o.max_retries = 0;
    o.kills = {{0, 5 * kS}, {1, 5 * kS}};  // SGS 0's whole pool
    const SimResult r = Simulate(c, o);
    ExpectAccounted(r, 20'000);
    EXPECT_GT(r.failed, 0u) << PlatformName(p);
    EXPECT_EQ(r.retries, 0u);
    EXPECT_LT(r.failed, 200u) << PlatformName(p);  // only what was running on the two workers
  }
}

TEST(FaasSimulator, AllWorkersDeadFailsTheRest) {
  const Catalog c = SmallWorkload(0.3);
  SimOptions o = Small(Platform::kOpenWhisk);
  o.requests = 2'000;
  for (uint32_t w = 0; w < 8; ++w) o.kills.push_back({w, 1 * kS});
  const SimResult r = Simulate(c, o);
  ExpectAccounted(r, 2'000);
  EXPECT_GT(r.failed, 0u);
}

}  // namespace
}  // namespace jigsaw::faas
