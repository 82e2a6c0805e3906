// The policy classes shared by the simulator and the platform: SGS queue order (least slack,
// EDF, FIFO), online estimates, proactive sandbox allocation on a scripted arrival pattern, the
// load balancer's scale-out and hysteretic scale-in, workers' LRU eviction, and faas-load's
// arrival schedule (Poisson and bursty).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "faas/admission.h"
#include "faas/estimator.h"
#include "faas/load_balancer.h"
#include "faas/load_client.h"
#include "faas/openwhisk_balancer.h"
#include "faas/proactive.h"
#include "faas/ready_queue.h"
#include "faas/worker.h"
#include "faas/workload.h"

namespace jigsaw::faas {
namespace {

constexpr Time kMs = net::kMillisecond;

ReadyTask Task(uint32_t request, Time deadline, Time remaining, Time queued) {
  ReadyTask t;
  t.request = request;
  t.deadline = deadline;
  t.remaining_critical_path = remaining;
  t.queued = queued;
  return t;
}

std::vector<uint32_t> Drain(ReadyQueue* queue) {
  std::vector<uint32_t> order;
  while (!queue->empty()) order.push_back(queue->Pop().request);
  return order;
}

// Request 0: deadline 100 ms, 10 ms of work left (slack 90 at t=0); request 1: deadline 120 ms,
// 80 ms left (slack 40); request 2: deadline 150 ms, 5 ms left (slack 145); request 3 ties with 1.
std::vector<ReadyTask> Tasks() {
  return {Task(0, 100 * kMs, 10 * kMs, 0), Task(1, 120 * kMs, 80 * kMs, 1 * kMs),
          Task(2, 150 * kMs, 5 * kMs, 2 * kMs), Task(3, 110 * kMs, 70 * kMs, 3 * kMs)};
}

TEST(ReadyQueue, LeastSlackFirstUsesRemainingCriticalPath) {
  ReadyQueue queue(QueuePolicy::kLeastSlack);
  for (const ReadyTask& t : Tasks()) queue.Push(t);
  EXPECT_EQ(Slack(queue.Top(), 0), 40 * kMs);
  EXPECT_EQ(Slack(queue.Top(), 30 * kMs), 10 * kMs);
  // 1 and 3 have equal slack (40 ms): the first queued goes first.
  EXPECT_EQ(Drain(&queue), (std::vector<uint32_t>{1, 3, 0, 2}));
}

TEST(ReadyQueue, EarliestDeadlineIgnoresRemainingWork) {
  ReadyQueue queue(QueuePolicy::kEarliestDeadline);
  for (const ReadyTask& t : Tasks()) queue.Push(t);
  EXPECT_EQ(Drain(&queue), (std::vector<uint32_t>{0, 3, 1, 2}));
}

TEST(ReadyQueue, FifoIsArrivalOrder) {
  ReadyQueue queue(QueuePolicy::kFifo);
  std::vector<ReadyTask> tasks = Tasks();
  for (auto it = tasks.rbegin(); it != tasks.rend(); ++it) {
    it->queued = 100 * kMs - it->queued;  // pushed in reverse, queued times still increasing
    queue.Push(*it);
  }
  EXPECT_EQ(Drain(&queue), (std::vector<uint32_t>{3, 2, 1, 0}));
}

// Overload control: at t = 45 ms request 1 (slack 40 at t=0) and 3 are hopeless; they go behind
// the feasible ones, in arrival order.
TEST(ReadyQueue, LateTasksGoBehindFeasibleOnes) {
  ReadyQueue queue(QueuePolicy::kLeastSlack);
  for (const ReadyTask& t : Tasks()) queue.Push(t);
  queue.DemoteLate(45 * kMs);
  EXPECT_EQ(queue.size(), 4u);
  EXPECT_EQ(Drain(&queue), (std::vector<uint32_t>{0, 2, 1, 3}));
  ReadyQueue edf(QueuePolicy::kEarliestDeadline);
  for (const ReadyTask& t : Tasks()) edf.Push(t);
  edf.DemoteLate(105 * kMs);  // deadlines 100 (request 0) passed
  EXPECT_EQ(Drain(&edf), (std::vector<uint32_t>{3, 1, 2, 0}));
  ReadyQueue fifo(QueuePolicy::kFifo);
  for (const ReadyTask& t : Tasks()) fifo.Push(t);
  fifo.DemoteLate(1000 * kMs);  // FIFO has no notion of late
  EXPECT_EQ(Drain(&fifo), (std::vector<uint32_t>{0, 1, 2, 3}));
}

// The work queued ahead of a key (what the simulator's hopeless-at-arrival admission divides by
// the SGS's cores): ordered tasks with a key up to it, demoted ones never.
TEST(ReadyQueue, WorkAheadSumsTheOrderedTasksUpToAKey) {
  ReadyQueue queue(QueuePolicy::kLeastSlack);
  const std::vector<Time> duration_of = {10 * kMs, 20 * kMs, 30 * kMs, 40 * kMs};
  for (ReadyTask t : Tasks()) {
    t.function = t.request;
    queue.Push(t);
  }
  EXPECT_EQ(queue.KeyOf(Tasks()[0]), 90 * kMs);  // deadline - remaining critical path
  EXPECT_EQ(queue.WorkAhead(39 * kMs, duration_of), 0);
  EXPECT_EQ(queue.WorkAhead(40 * kMs, duration_of), 60 * kMs);  // requests 1 and 3 (ties)
  EXPECT_EQ(queue.WorkAhead(90 * kMs, duration_of), 70 * kMs);
  EXPECT_EQ(queue.WorkAhead(net::kMaxTime, duration_of), 100 * kMs);
  queue.DemoteLate(45 * kMs);  // requests 1 and 3 are late: behind everything, not ahead
  EXPECT_EQ(queue.WorkAhead(net::kMaxTime, duration_of), 40 * kMs);
  ReadyQueue edf(QueuePolicy::kEarliestDeadline), fifo(QueuePolicy::kFifo);
  EXPECT_EQ(edf.KeyOf(Tasks()[1]), 120 * kMs);
  EXPECT_EQ(fifo.KeyOf(Tasks()[1]), 1 * kMs);
}

TEST(ReadyQueue, RequestSlackKeepsStartedRequestsAheadOfLaterOnes) {
  // One DAG a -> b -> c (10 + 10 + 60 ms, critical path 80 ms, deadline 200 ms after arrival).
  // Request 0 arrived at 0 and is at c (remaining 60 ms); request 1 arrived at 15 ms and is at a
  // (remaining 80 ms). Per-function slack puts request 1's a first (200 + 15 - 80 = 135 <
  // 200 - 60 = 140); request-level slack keeps the started request 0 first (120 < 135).
  ReadyTask started, fresh;
  started.request = 0;
  started.deadline = 200 * kMs;
  started.remaining_critical_path = 60 * kMs;
  started.request_critical_path = 80 * kMs;
  fresh.request = 1;
  fresh.deadline = 215 * kMs;
  fresh.remaining_critical_path = 80 * kMs;
  fresh.request_critical_path = 80 * kMs;
  ReadyQueue lsf(QueuePolicy::kLeastSlack), rlsf(QueuePolicy::kRequestSlack);
  for (ReadyQueue* q : {&lsf, &rlsf}) {
    q->Push(started);
    q->Push(fresh);
  }
  EXPECT_EQ(Drain(&lsf), (std::vector<uint32_t>{1, 0}));
  EXPECT_EQ(Drain(&rlsf), (std::vector<uint32_t>{0, 1}));
  // Demotion still uses each task's own slack: at 141 ms request 0's c (slack -1 ms) is
  // hopeless and goes behind a request 2 that arrived at 100 ms (its a: slack 79 ms).
  ReadyTask later = fresh;
  later.request = 2;
  later.deadline = 300 * kMs;
  rlsf.Push(started);
  rlsf.Push(later);
  rlsf.DemoteLate(141 * kMs);
  EXPECT_EQ(Drain(&rlsf), (std::vector<uint32_t>{2, 0}));
}

TEST(ReadyQueue, ParsesPolicyNames) {
  QueuePolicy p;
  EXPECT_TRUE(ParseQueuePolicy("edf", &p));
  EXPECT_EQ(p, QueuePolicy::kEarliestDeadline);
  EXPECT_STREQ(QueuePolicyName(p), "edf");
  EXPECT_TRUE(ParseQueuePolicy("rlsf", &p));
  EXPECT_EQ(p, QueuePolicy::kRequestSlack);
  EXPECT_STREQ(QueuePolicyName(p), "rlsf");
  EXPECT_FALSE(ParseQueuePolicy("sjf", &p));
}

Catalog OneFunction(Time duration, uint64_t memory) {
  Catalog c;
  Function f;
  f.name = "f";
  f.duration = duration;
  f.memory = memory;
  c.functions.push_back(f);
  Dag d;
  d.name = "d";
  d.deadline = 10 * duration;
  d.nodes = {0};
  d.successors = {{}};
  d.predecessor_count = {0};
  c.dags.push_back(d);
  return c;
}

TEST(Estimator, DurationFollowsObservations) {
  const Catalog c = OneFunction(100 * kMs, 1);
  DurationEstimator estimator(c, 0.5);
  EXPECT_EQ(estimator.Estimate(0), 100 * kMs);
  estimator.Observe(0, 20 * kMs);
  EXPECT_EQ(estimator.Estimate(0), 60 * kMs);
  for (int i = 0; i < 30; ++i) estimator.Observe(0, 20 * kMs);
  EXPECT_NEAR(static_cast<double>(estimator.Estimate(0)), 20.0 * kMs, 0.01 * kMs);
}

TEST(Estimator, RateAndPeakPerWindow) {
  RateEstimator rates(2, 100 * kMs, 0.5);
  rates.Count(0, 10);  // 100/s in this window
  rates.CloseWindow();
  EXPECT_DOUBLE_EQ(rates.RatePerSecond(0), 50);
  EXPECT_DOUBLE_EQ(rates.PeakPerSecond(0), 100);
  EXPECT_DOUBLE_EQ(rates.RatePerSecond(1), 0);
  rates.CloseWindow();
  EXPECT_DOUBLE_EQ(rates.RatePerSecond(0), 25);
  EXPECT_DOUBLE_EQ(rates.PeakPerSecond(0), 90);
}

TEST(Proactive, TargetIsLittlesLawWithSquareRootHeadroom) {
  ProactiveAllocator allocator(ProactiveOptions{2.0, 600 * net::kSecond});
  // 100 req/s x 40 ms = 4 busy sandboxes; + 2 sqrt(4) = 8.
  EXPECT_EQ(allocator.Target(100, 40 * kMs, true), 8);
  EXPECT_EQ(allocator.Target(0, 40 * kMs, true), 1);   // kept warm while recently used
  EXPECT_EQ(allocator.Target(0, 40 * kMs, false), 0);  // idle past the keep window
  EXPECT_EQ(allocator.Target(1, 10 * kMs, false), 1);  // 0.01 + 0.2 -> 1
}

// A scripted arrival pattern: quiet, a burst, quiet again. The pool's sandbox count follows the
// demand estimate up (proactively, before the burst's requests would cold-start) and the idle
// extras go once the function's window expires.
TEST(Proactive, FollowsAScriptedArrivalPattern) {
  const Catalog c = OneFunction(50 * kMs, 100);
  std::vector<uint64_t> memory = {100};
  std::vector<Worker> workers;
  for (int i = 0; i < 2; ++i) workers.emplace_back(8, 100 * 20, &memory);  // 20 sandboxes each
  std::vector<Worker*> pool = {&workers[0], &workers[1]};
  ProactiveAllocator allocator(ProactiveOptions{2.0, 600 * net::kSecond});
  RateEstimator rates(1, 100 * kMs, 0.5);
  const std::vector<unsigned> per_window = {1, 1, 1, 40, 40, 40, 40, 1, 1, 1};
  std::vector<int> targets, counts;
  for (unsigned arrivals : per_window) {
    rates.Count(0, arrivals);
    rates.CloseWindow();
    std::vector<int> target = {allocator.Target(rates.RatePerSecond(0), 50 * kMs, true)};
    const ProactiveAllocator::PlanResult plan = allocator.Plan(pool, {0}, target);
    for (const auto& created : plan.created) pool[created.worker]->WarmingDone(0, 0);
    targets.push_back(target[0]);
    counts.push_back(workers[0].sandboxes(0) + workers[1].sandboxes(0));
  }
  // 10/s steady: a = 0.25..0.5 -> 2 sandboxes; in the burst (400/s) the EWMA climbs to ~380/s:
  // a = 19 -> 19 + 2 sqrt(19) = 28.
  EXPECT_EQ(targets[0], 2);
  EXPECT_GT(targets[3], targets[2]);
  EXPECT_GE(targets[6], 25);
  EXPECT_EQ(counts[6], targets[6]);
  // Balanced over the two workers by free memory.
  EXPECT_LE(std::abs(workers[0].sandboxes(0) - workers[1].sandboxes(0)), 1);
  // After the burst the target falls, but sandboxes are not destroyed while the function is used.
  EXPECT_LT(targets[9], targets[6]);
  EXPECT_EQ(counts[9], counts[6]);
  // Once the function is idle past its window, its idle sandboxes are evicted.
  const ProactiveAllocator::PlanResult plan = allocator.Plan(pool, {0}, std::vector<int>{0});
  EXPECT_EQ(plan.evicted, static_cast<uint64_t>(counts[9]));
  EXPECT_EQ(workers[0].sandboxes(0) + workers[1].sandboxes(0), 0);
}

// Under memory pressure the allocator evicts surplus sandboxes of another function (least recently
// used first), never the ones a function needs.
TEST(Proactive, EvictsOnlySurplusUnderMemoryPressure) {
  std::vector<uint64_t> memory = {100, 100, 100};
  Worker worker(4, 500, &memory);  // room for 5 sandboxes
  std::vector<Worker*> pool = {&worker};
  ProactiveAllocator allocator(ProactiveOptions{});
  // Function 1 holds 3 idle (needs 1), function 2 holds 2 idle (needs 2).
  for (int i = 0; i < 3; ++i) {
    worker.CreateWarming(1);
    worker.WarmingDone(1, 10 * kMs);
  }
  for (int i = 0; i < 2; ++i) {
    worker.CreateWarming(2);
    worker.WarmingDone(2, 5 * kMs);
  }
  const ProactiveAllocator::PlanResult plan =
      allocator.Plan(pool, {0, 1, 2}, std::vector<int>{3, 1, 2});
  EXPECT_EQ(plan.created.size(), 2u);  // only function 1's two surplus sandboxes could go
  EXPECT_EQ(plan.evicted, 2u);
  EXPECT_EQ(worker.sandboxes(0), 2);
  EXPECT_EQ(worker.sandboxes(1), 1);
  EXPECT_EQ(worker.sandboxes(2), 2);
}

TEST(Worker, MakeRoomEvictsLeastRecentlyUsedIdle) {
  std::vector<uint64_t> memory = {100, 100, 200};
  Worker worker(2, 300, &memory);
  worker.CreateWarming(0);
  worker.WarmingDone(0, 2 * kMs);
  worker.CreateWarming(1);
  worker.WarmingDone(1, 1 * kMs);  // older
  worker.CreateBusy(0);            // 300 used, one busy
  uint64_t evicted = 0;
  EXPECT_TRUE(worker.MakeRoom(
      2, [](FunctionId) { return true; }, &evicted));
  // 200 needed, 0 free, idle 0 (t=2) and 1 (t=1) reclaimable: both go, LRU first.
  EXPECT_EQ(evicted, 2u);
  EXPECT_EQ(worker.free_memory(), 200u);
  EXPECT_EQ(worker.busy(0), 1);
  worker.CreateBusy(2);
  EXPECT_FALSE(worker.MakeRoom(
      1, [](FunctionId) { return true; }, &evicted));  // all busy
  EXPECT_EQ(evicted, 2u);
  worker.Release(2, 5 * kMs);
  EXPECT_EQ(worker.ExpireIdle(6 * kMs), 1u);
  EXPECT_EQ(worker.idle(2), 0);
}

TEST(LoadBalancer, ScalesOutTheHeaviestDagAndInWithHysteresis) {
  LoadBalancerOptions options;
  options.calm_epochs = 3;
  LoadBalancer lb(/*dags=*/3, /*sgs=*/3, options);
  const std::vector<char> usable(3, 1);
  EXPECT_EQ(lb.SgsOf(0), (std::vector<uint32_t>{0}));
  EXPECT_EQ(lb.SgsOf(1), (std::vector<uint32_t>{1}));
  // DAG d starts on SGS d. SGS 0 is overloaded and DAG 0 has the largest demand there.
  std::vector<double> demand(9, 0);
  demand[0 * 3 + 0] = 50;  // DAG 0 on SGS 0
  demand[1 * 3 + 1] = 5;
  std::vector<double> load = {1.5, 0.6, 0.1};
  lb.EndEpoch(load, demand, usable);
  EXPECT_EQ(lb.SgsOf(0), (std::vector<uint32_t>{0, 2}));  // the least loaded SGS joins
  EXPECT_EQ(lb.scale_outs(), 1u);
  // Routing prefers the less loaded of the DAG's SGSs.
  EXPECT_EQ(lb.Route(0, {0.9, 0.1, 0.3}, usable), 2u);
  EXPECT_EQ(lb.Route(0, {0.2, 0.1, 0.3}, usable), 0u);
  EXPECT_EQ(lb.Route(0, {0.2, 0.1, 0.3}, {1, 1, 0}), 0u);
  EXPECT_EQ(lb.Route(0, {0.2, 0.1, 0.3}, {0, 1, 0}), 1u);  // neither usable: any usable
  // Past capacity everywhere in its set: the request spills to a clearly less loaded SGS, but not
  // to one that is itself past the scale-out threshold.
  EXPECT_EQ(lb.Route(0, {1.2, 0.1, 1.1}, usable), 1u);
  EXPECT_EQ(lb.Route(0, {1.2, 0.7, 1.1}, usable), 2u);
  EXPECT_EQ(lb.Route(1, {0.2, 1.5, 0.7}, usable), 0u);
  // Calm epochs: no scale-in before calm_epochs consecutive ones.
  const std::vector<double> calm = {0.1, 0.1, 0.1};
  const std::vector<double> none(9, 0);
  lb.EndEpoch(calm, none, usable);
  lb.EndEpoch(calm, none, usable);
  EXPECT_EQ(lb.SgsOf(0).size(), 2u);
  lb.EndEpoch({0.5, 0.5, 0.5}, none, usable);  // between the thresholds: the count restarts
  lb.EndEpoch(calm, none, usable);
  lb.EndEpoch(calm, none, usable);
  EXPECT_EQ(lb.SgsOf(0).size(), 2u);
  lb.EndEpoch(calm, none, usable);
  EXPECT_EQ(lb.SgsOf(0), (std::vector<uint32_t>{0}));
  EXPECT_EQ(lb.scale_ins(), 1u);
  EXPECT_EQ(lb.max_sgs_per_dag(), 2u);
}

// An SGS past capacity (tasks queue) takes every SGS with idle cores it needs at once, even ones
// above the scale-out threshold: here an excess of 2.5 SGSs of work and spare fractions of 0.95,
// 0.7 and 0.35 (sum 2.0) take all three; SGS 4 has no idle core and is left out.
TEST(LoadBalancer, PastCapacityScalesOutToEnoughSgsWithIdleCoresAtOnce) {
  LoadBalancer lb(/*dags=*/5, /*sgs=*/5, LoadBalancerOptions{});
  std::vector<double> demand(25, 0);
  demand[0 * 5 + 0] = 90;  // DAG 0 on SGS 0
  demand[1 * 5 + 0] = 10;  // a lighter DAG there too
  const std::vector<char> usable(5, 1);
  lb.EndEpoch({3.5, 0.3, 0.65, 0.05, 1.2}, demand, usable);
  EXPECT_EQ(lb.SgsOf(0), (std::vector<uint32_t>{0, 3, 1, 2}));  // least loaded first
  EXPECT_EQ(lb.SgsOf(1), (std::vector<uint32_t>{1}));
  EXPECT_EQ(lb.scale_outs(), 3u);
  EXPECT_EQ(lb.max_sgs_per_dag(), 4u);
  // A small excess is covered by the least loaded SGS alone.
  LoadBalancer small(2, 3, LoadBalancerOptions{});
  std::vector<double> demand2(6, 0);
  demand2[0 * 3 + 0] = 50;
  small.EndEpoch({1.3, 0.75, 0.62}, demand2, {1, 1, 1});
  EXPECT_EQ(small.SgsOf(0), (std::vector<uint32_t>{0, 2}));
  // Hot but not past capacity: only an SGS under the scale-out threshold may join.
  LoadBalancer hot(2, 3, LoadBalancerOptions{});
  hot.EndEpoch({0.9, 0.75, 0.62}, demand2, {1, 1, 1});
  EXPECT_EQ(hot.SgsOf(0), (std::vector<uint32_t>{0}));
  hot.EndEpoch({0.9, 0.75, 0.5}, demand2, {1, 1, 1});
  EXPECT_EQ(hot.SgsOf(0), (std::vector<uint32_t>{0, 2}));
}

// Admission control: no overload admits everything; past capacity the largest requests go first,
// the last DAG cut only as far as needed; equal work per request: the lower index first.
TEST(Admission, RefusesTheLargestRequestsFirstAndOnlyAsFarAsNeeded) {
  const std::vector<double> rate = {10, 100, 1000};
  const std::vector<double> work = {1.0, 0.1, 0.001};  // offered 10 + 10 + 1 = 21 cores
  EXPECT_EQ(AdmissionFractions(rate, work, 25), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(AdmissionFractions(rate, work, 21), (std::vector<double>{1, 1, 1}));
  // 6 cores too many: 60 % of DAG 0's requests are refused.
  const std::vector<double> cut = AdmissionFractions(rate, work, 15);
  EXPECT_NEAR(cut[0], 0.4, 1e-12);
  EXPECT_EQ(cut[1], 1.0);
  EXPECT_EQ(cut[2], 1.0);
  // 13 too many: all of DAG 0 (10) and 30 % of DAG 1.
  const std::vector<double> deep = AdmissionFractions(rate, work, 8);
  EXPECT_EQ(deep[0], 0.0);
  EXPECT_NEAR(deep[1], 0.7, 1e-12);
  EXPECT_EQ(deep[2], 1.0);
  // The target leaves headroom below the capacity once overloaded: 21 -> 0.5 x 20 = 10.
  const std::vector<double> headroom = AdmissionFractions(rate, work, 20, 0.5);
  EXPECT_EQ(headroom[0], 0.0);
  EXPECT_NEAR(headroom[1], 0.9, 1e-12);
  EXPECT_EQ(headroom[2], 1.0);
  EXPECT_EQ(AdmissionFractions(rate, work, 30, 0.5), (std::vector<double>{1, 1, 1}));
  // Ties in work per request: the lower index is cut first.
  const std::vector<double> tie = AdmissionFractions({10, 10}, {1.0, 1.0}, 15);
  EXPECT_NEAR(tie[0], 0.5, 1e-12);
  EXPECT_EQ(tie[1], 1.0);
}

TEST(LoadBalancer, NoScaleOutWhenEverySgsIsHot) {
  LoadBalancer lb(2, 2, LoadBalancerOptions{});
  std::vector<double> demand = {10, 0, 0, 10};
  lb.EndEpoch({0.95, 0.9}, demand, {1, 1});
  EXPECT_EQ(lb.SgsOf(0).size(), 1u);
  EXPECT_EQ(lb.scale_outs(), 0u);
}

// Pool memory: pools of 2000 bytes; DAG 0 has 2 functions (400 bytes, one sandbox each), DAG 1
// 3 (600), DAG 2 one of 700. A scripted scenario with the exact decisions.
TEST(LoadBalancer, ScaleOutCountsPoolMemoryAndMemoryPressureScalesIn) {
  PoolMemory memory;
  memory.pool_bytes = {2000, 2000, 2000};
  memory.dag_sandbox_bytes = {400, 600, 700};
  memory.dag_functions = {2, 3, 1};
  memory.epoch_s = 1;
  LoadBalancer lb(/*dags=*/3, /*sgs=*/3, LoadBalancerOptions{});
  LoadBalancer unaware(3, 3, LoadBalancerOptions{});
  lb.SetPoolMemory(memory);
  // One sandbox per function plus one per busy core (rounded up), at the DAG's mean size.
  EXPECT_EQ(lb.Footprint(0, 0), 400u);
  EXPECT_EQ(lb.Footprint(0, 2.0), 800u);
  EXPECT_EQ(lb.Footprint(0, 2.5), 1000u);
  EXPECT_EQ(lb.Footprint(2, 0.5), 1400u);
  EXPECT_EQ(unaware.Footprint(0, 5), 0u);
  const std::vector<char> usable(3, 1);
  // SGS 0 is past capacity with DAG 0 (3 cores). SGS 2 is the least loaded but holds DAG 2's
  // 1400 bytes (0.5 cores): DAG 0 at 1.5 cores per SGS (800 bytes) does not fit there; SGS 1
  // holds DAG 1's 800 + 800 = 1600: it fits, and joins. Without pool memory SGS 2 would have.
  std::vector<double> demand(9, 0);
  demand[0 * 3 + 0] = 3;
  demand[1 * 3 + 1] = 0.5;
  demand[2 * 3 + 2] = 0.5;
  const std::vector<double> hot = {1.5, 0.2, 0.1};
  lb.EndEpoch(hot, demand, usable);
  unaware.EndEpoch(hot, demand, usable);
  EXPECT_EQ(lb.SgsOf(0), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(unaware.SgsOf(0), (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(lb.memory_refusals(), 1u);
  EXPECT_EQ(lb.scale_outs(), 1u);
  // DAG 1 now keeps 4 cores busy on SGS 1 (1400 bytes) beside DAG 0's 1.5 (800): 2200 > 2000.
  // At loads between the thresholds (no load-based scale-in), the DAG with the least demand
  // there that has another SGS leaves it: DAG 0 (DAG 1 has no other SGS).
  std::vector<double> pressed(9, 0);
  pressed[0 * 3 + 0] = 1.5;
  pressed[0 * 3 + 1] = 1.5;
  pressed[1 * 3 + 1] = 4;
  lb.EndEpoch({0.5, 0.5, 0.5}, pressed, usable);
  EXPECT_EQ(lb.SgsOf(0), (std::vector<uint32_t>{0}));
  EXPECT_EQ(lb.SgsOf(1), (std::vector<uint32_t>{1}));
  EXPECT_EQ(lb.memory_scale_ins(), 1u);
  EXPECT_EQ(lb.scale_ins(), 1u);
  // Hot again: SGS 1 is barred for DAG 0 for calm_epochs (5) epochs and SGS 2 does not fit, so
  // DAG 0 stays alone through epochs 3-6 and SGS 1 takes it back in epoch 7.
  for (int epoch = 3; epoch <= 6; ++epoch) {
    lb.EndEpoch(hot, demand, usable);
    EXPECT_EQ(lb.SgsOf(0), (std::vector<uint32_t>{0})) << "epoch " << epoch;
  }
  lb.EndEpoch(hot, demand, usable);
  EXPECT_EQ(lb.SgsOf(0), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(lb.scale_outs(), 2u);
  EXPECT_EQ(lb.memory_refusals(), 6u);  // SGS 2 passed over in epochs 1 and 3-7
  // Sizes that do not match the DAG and SGS counts are refused.
  PoolMemory wrong = memory;
  wrong.pool_bytes.pop_back();
  EXPECT_THROW(lb.SetPoolMemory(wrong), std::invalid_argument);
}

// ShardingContainerPoolBalancer's placement, with exact decisions. 5 invokers: the steps are the
// pairwise coprime numbers up to 5 that are coprime with 5: {1, 2, 3}. Action 1 hashes to
// 2654435761: home 1, step {1, 2, 3}[2654435761 % 3 = 1] = 2, so it tries 1, 3, 0, 2, 4.
TEST(OpenWhiskBalancer, HomesEachActionAndSpillsWhenTheHomesMemorySlotsAreFull) {
  OpenWhiskBalancer ow(std::vector<uint64_t>(5, 1000), /*seed=*/7);
  EXPECT_EQ(ow.Home(0), 0u);
  EXPECT_EQ(ow.Step(0), 1u);
  EXPECT_EQ(ow.Home(1), 1u);
  EXPECT_EQ(ow.Step(1), 2u);
  EXPECT_EQ(ow.Home(2), 2u);
  EXPECT_EQ(ow.Step(2), 3u);
  std::vector<char> usable(5, 1);
  // Memory slots, not cores: the home takes activations while its memory holds them.
  EXPECT_EQ(ow.Acquire(1, 400, usable), 1);
  EXPECT_EQ(ow.Acquire(1, 400, usable), 1);
  EXPECT_EQ(ow.used(1), 800u);
  EXPECT_EQ(ow.spilled(), 0u);
  // 200 bytes left at home: the next along the step (3) takes it.
  EXPECT_EQ(ow.Acquire(1, 400, usable), 3);
  EXPECT_EQ(ow.spilled(), 1u);
  // An unusable invoker is skipped: 1 is full, 3 unusable, then 0.
  usable[3] = 0;
  EXPECT_EQ(ow.Acquire(1, 400, usable), 0);
  // A release frees the home's slots again.
  ow.Release(1, 400);
  EXPECT_EQ(ow.used(1), 400u);
  EXPECT_EQ(ow.Acquire(1, 400, usable), 1);
  EXPECT_EQ(ow.spilled(), 2u);
  // Every usable invoker full: a random usable one is forced past its memory. With seed 7 the
  // first splitmix64 draw is 1 mod 4: the second of the usable {0, 1, 2, 4}, invoker 1.
  EXPECT_EQ(ow.Acquire(2, 1000, usable), 2);  // fills invoker 2 (home of action 2)
  EXPECT_EQ(ow.Acquire(0, 1000, usable), 4);  // action 0: 0 (600 free), 1, 2 full, 3 off, 4
  EXPECT_EQ(ow.Acquire(0, 600, usable), 0);   // fills invoker 0
  EXPECT_EQ(ow.Acquire(1, 300, usable), 1);
  EXPECT_EQ(ow.forced(), 1u);
  EXPECT_EQ(ow.used(1), 1100u);
  // The invoker is gone: what it held is cleared; with none usable there is no invoker.
  ow.Clear(1);
  EXPECT_EQ(ow.used(1), 0u);
  EXPECT_EQ(ow.Acquire(1, 1, std::vector<char>(5, 0)), -1);
  // 4 invokers: steps {1, 3}; action 1 (hash odd): home 1, step 3.
  OpenWhiskBalancer four(std::vector<uint64_t>(4, 10), 1);
  EXPECT_EQ(four.Home(1), 1u);
  EXPECT_EQ(four.Step(1), 3u);
  EXPECT_THROW(OpenWhiskBalancer(std::vector<uint64_t>{}, 1), std::invalid_argument);
}

TEST(Workload, GeneratedDagsAreValidAndScaledToTheLoad) {
  WorkloadOptions options;
  options.dags = 200;
  options.load = 0.5;
  options.cores = 400;
  const Catalog c = GenerateWorkload(options);
  ASSERT_EQ(c.dags.size(), 200u);
  double offered = 0;
  size_t single = 0;
  for (const Dag& d : c.dags) {
    offered += d.rate_per_s * ExpectedWork(c, d);
    single += d.nodes.size() == 1;
    EXPECT_GT(d.deadline, 0);
    for (uint32_t node = 0; node < d.nodes.size(); ++node) {
      for (uint32_t next : d.successors[node]) EXPECT_GT(next, node);  // topological
    }
  }
  EXPECT_NEAR(offered, 0.5 * 400, 1e-6);
  // 54% single-function applications, within sampling noise of 200 draws.
  EXPECT_GT(single, 80u);
  EXPECT_LT(single, 135u);
  // Same seed, same workload.
  const Catalog again = GenerateWorkload(options);
  EXPECT_EQ(again.functions.size(), c.functions.size());
  EXPECT_DOUBLE_EQ(again.dags[17].rate_per_s, c.dags[17].rate_per_s);
}

// The short duration model changes only the function durations (log-uniform in 10-100 ms): the
// same DAG shapes, setups and memory come from the same draws.
TEST(Workload, ShortDurationModelKeepsEverythingButTheDurations) {
  WorkloadOptions options;
  options.dags = 200;
  const Catalog azure = GenerateWorkload(options);
  options.duration_model = DurationModel::kShort;
  const Catalog short_model = GenerateWorkload(options);
  ASSERT_EQ(short_model.functions.size(), azure.functions.size());
  ASSERT_EQ(short_model.dags.size(), azure.dags.size());
  int below_30ms = 0, differ = 0;
  for (size_t f = 0; f < azure.functions.size(); ++f) {
    const Function& a = azure.functions[f];
    const Function& s = short_model.functions[f];
    EXPECT_EQ(s.setup, a.setup);
    EXPECT_EQ(s.memory, a.memory);
    EXPECT_EQ(s.dag, a.dag);
    EXPECT_GE(s.duration, 10 * net::kMillisecond);
    EXPECT_LE(s.duration, 100 * net::kMillisecond);
    below_30ms += s.duration < 30 * net::kMillisecond;  // log-uniform: about half below 31.6 ms
    differ += s.duration != a.duration;
    // The order of durations is kept: the same draw, a monotone map.
    if (f > 0) {
      EXPECT_EQ(s.duration < short_model.functions[f - 1].duration,
                a.duration < azure.functions[f - 1].duration)
          << f;
    }
  }
  for (size_t d = 0; d < azure.dags.size(); ++d) {
    EXPECT_EQ(short_model.dags[d].nodes, azure.dags[d].nodes);
    EXPECT_EQ(short_model.dags[d].successors, azure.dags[d].successors);
  }
  EXPECT_GT(differ, 0);
  EXPECT_GT(below_30ms, static_cast<int>(azure.functions.size() * 4 / 10));
  EXPECT_LT(below_30ms, static_cast<int>(azure.functions.size() * 6 / 10));
  DurationModel model;
  EXPECT_TRUE(ParseDurationModel("short", &model));
  EXPECT_EQ(model, DurationModel::kShort);
  EXPECT_FALSE(ParseDurationModel("long", &model));
}

}  // namespace
}  // namespace jigsaw::faas

namespace jigsaw::faas {
namespace {

Catalog ThreeDags() {
  Catalog catalog;
  const double weights[] = {6, 3, 1};
  for (int i = 0; i < 3; ++i) {
    Dag d;
    d.name = "d" + std::to_string(i);
    d.rate_per_s = weights[i];
    catalog.dags.push_back(d);
  }
  return catalog;
}

// Counts per `period` of the schedule: var / mean (1 for Poisson).
double DispersionIndex(const std::vector<ScheduledArrival>& schedule, Time period) {
  std::vector<double> counts(static_cast<size_t>(schedule.back().at / period), 0);
  for (const ScheduledArrival& a : schedule) {
    const size_t k = static_cast<size_t>(a.at / period);
    if (k < counts.size()) ++counts[k];
  }
  double mean = 0, var = 0;
  for (double c : counts) mean += c;
  mean /= counts.size();
  for (double c : counts) var += (c - mean) * (c - mean);
  var /= counts.size();
  return var / mean;
}

TEST(LoadSchedule, PoissonByDefaultAndBurstyWithTheSimulatorsArrivalProcess) {
  const Catalog catalog = ThreeDags();
  LoadOptions options;
  options.rate_per_s = 100;
  options.requests = 20000;
  options.seed = 5;
  // Default: the Poisson stream of one generator, exponential gaps then a weighted DAG draw.
  const std::vector<ScheduledArrival> poisson = ScheduleArrivals(catalog, options);
  ASSERT_EQ(poisson.size(), 20000u);
  Rng rng(5);
  double at_s = 0;
  for (size_t i = 0; i < 50; ++i) {
    at_s += rng.Exponential(1.0 / 100);
    const DagId dag = static_cast<DagId>(rng.WeightedIndex({6, 3, 1}));
    EXPECT_EQ(poisson[i].at, static_cast<Time>(at_s * net::kSecond));
    EXPECT_EQ(poisson[i].dag, dag);
  }
  // Bursty: each DAG's arrivals are exactly faas-sim's ArrivalProcess at its share of the rate
  // (60, 30, 10 /s), merged in time order; the same seed gives the same schedule.
  options.burst_sigma = 1.0;
  options.burst_period = net::kSecond;
  const std::vector<ScheduledArrival> bursty = ScheduleArrivals(catalog, options);
  ASSERT_EQ(bursty.size(), 20000u);
  Catalog shares = catalog;
  shares.dags[0].rate_per_s = 60;
  shares.dags[1].rate_per_s = 30;
  shares.dags[2].rate_per_s = 10;
  ArrivalProcess reference(shares, 5, net::kSecond, 1.0);
  std::vector<Time> last(3, 0);
  for (size_t i = 0; i < bursty.size(); ++i) {
    if (i > 0) {
      EXPECT_LE(bursty[i - 1].at, bursty[i].at);
    }
    const DagId d = bursty[i].dag;
    last[d] = reference.Next(d, last[d]);
    ASSERT_EQ(bursty[i].at, last[d]) << "arrival " << i;
  }
  const std::vector<ScheduledArrival> again = ScheduleArrivals(catalog, options);
  EXPECT_EQ(again.back().at, bursty.back().at);
  // The mean rate stays near 100/s (the factors have mean 1), and the counts per burst period
  // are overdispersed, unlike Poisson's (index about 1). Deterministic for these seeds.
  const double span_s = static_cast<double>(bursty.back().at) / net::kSecond;
  EXPECT_NEAR(20000 / span_s, 100, 25);
  EXPECT_LT(DispersionIndex(poisson, net::kSecond), 2);
  EXPECT_GT(DispersionIndex(bursty, net::kSecond), 10);
}

}  // namespace
}  // namespace jigsaw::faas
