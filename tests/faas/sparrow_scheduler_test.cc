// The Sparrow-like baseline's placement on scripted sequences (faas/sparrow_scheduler.h): late
// binding launches a task on whichever of its probed SGSs frees a slot first, no task is launched
// twice, an unusable SGS's reservations are re-placed (or fail with none usable), and a full
// queue refuses.
#include "faas/sparrow_scheduler.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <vector>

namespace jigsaw::faas {
namespace {

using Launches = std::vector<SparrowScheduler::Launch>;

// Reserves one task; expects it to be launched at once and returns the SGS.
int ReserveAndLaunch(SparrowScheduler* scheduler) {
  Launches launches;
  const uint64_t task = scheduler->Reserve(&launches);
  EXPECT_NE(task, 0u);
  EXPECT_EQ(launches.size(), 1u);
  if (launches.size() != 1) return -1;
  EXPECT_EQ(launches[0].task, task);
  return launches[0].sgs;
}

TEST(SparrowScheduler, LateBindingLaunchesOnTheProbedSgsThatFreesFirst) {
  for (uint32_t first_free : {0u, 1u}) {
    SparrowScheduler scheduler({1, 1}, /*probes=*/2, /*max_queue=*/8, /*seed=*/7);
    const int a = ReserveAndLaunch(&scheduler);
    const int b = ReserveAndLaunch(&scheduler);
    ASSERT_NE(a, b);  // the second task's free probe takes it
    Launches launches;
    const uint64_t waiting = scheduler.Reserve(&launches);
    EXPECT_TRUE(launches.empty());
    // One reservation at each SGS (a busy SGS also keeps the stale reservation of the task that
    // the other SGS took: dropped only when it reaches the head, as in Sparrow).
    EXPECT_GE(scheduler.queued(0), 1u);
    EXPECT_GE(scheduler.queued(1), 1u);
    launches = scheduler.Finish(first_free);
    ASSERT_EQ(launches.size(), 1u);
    EXPECT_EQ(launches[0].task, waiting);
    EXPECT_EQ(launches[0].sgs, static_cast<int>(first_free));
    // The other SGS frees later: its reservations of launched tasks are dropped, nothing runs;
    // each of the three tasks had one reservation too many.
    EXPECT_TRUE(scheduler.Finish(1 - first_free).empty());
    EXPECT_EQ(scheduler.late_binding_drops(), 3u);
    EXPECT_EQ(scheduler.queued(0), 0u);
    EXPECT_EQ(scheduler.queued(1), 0u);
    EXPECT_EQ(scheduler.running(first_free), 1u);
    EXPECT_EQ(scheduler.running(1 - first_free), 0u);
    EXPECT_EQ(scheduler.launched(), 3u);
    EXPECT_EQ(scheduler.pending(), 0u);
  }
}

TEST(SparrowScheduler, EveryTaskLaunchesExactlyOnceWithinItsSgsSlots) {
  SparrowScheduler scheduler({2, 1, 1, 3}, /*probes=*/2, /*max_queue=*/1000, /*seed=*/3);
  std::set<uint64_t> reserved, launched;
  std::vector<uint32_t> running_on;  // one entry per running task
  auto apply = [&](const Launches& launches) {
    for (const auto& launch : launches) {
      ASSERT_GE(launch.sgs, 0);
      EXPECT_TRUE(launched.insert(launch.task).second) << "task " << launch.task << " twice";
      running_on.push_back(static_cast<uint32_t>(launch.sgs));
    }
  };
  // A scripted mix: three reservations, then one finish (the oldest running task), 200 times.
  for (int step = 0; step < 200; ++step) {
    for (int i = 0; i < 3; ++i) {
      Launches launches;
      const uint64_t task = scheduler.Reserve(&launches);
      ASSERT_NE(task, 0u);
      reserved.insert(task);
      apply(launches);
    }
    if (!running_on.empty()) {
      const uint32_t sgs = running_on.front();
      running_on.erase(running_on.begin());
      apply(scheduler.Finish(sgs));
    }
    const uint32_t slots[] = {2, 1, 1, 3};
    for (uint32_t s = 0; s < 4; ++s) EXPECT_LE(scheduler.running(s), slots[s]);
  }
  while (!running_on.empty()) {
    const uint32_t sgs = running_on.front();
    running_on.erase(running_on.begin());
    apply(scheduler.Finish(sgs));
  }
  EXPECT_EQ(launched, reserved);  // every task launched, exactly once
  EXPECT_EQ(scheduler.launched(), 600u);
  EXPECT_EQ(scheduler.pending(), 0u);
  for (uint32_t s = 0; s < 4; ++s) EXPECT_EQ(scheduler.queued(s), 0u);
  // Each task left two reservations; one launched it, the other was dropped.
  EXPECT_EQ(scheduler.late_binding_drops(), 600u);
}

TEST(SparrowScheduler, UnusableSgsReservationsAreReplacedOrFailWhenNoneIsLeft) {
  SparrowScheduler scheduler({1, 1, 1}, /*probes=*/3, /*max_queue=*/8, /*seed=*/11);
  std::set<int> busy;
  for (int i = 0; i < 3; ++i) busy.insert(ReserveAndLaunch(&scheduler));
  EXPECT_EQ(busy.size(), 3u);  // each task went to a free SGS
  // A task with one reservation per SGS: losing SGS 0 leaves it two, nothing is re-placed.
  Launches launches;
  const uint64_t wide = scheduler.Reserve(&launches);
  EXPECT_TRUE(launches.empty());
  EXPECT_TRUE(scheduler.SetUsable(0, false).empty());
  EXPECT_EQ(scheduler.replaced(), 0u);
  EXPECT_EQ(scheduler.queued(0), 0u);
  // Losing SGS 1 too leaves it one, on SGS 2.
  EXPECT_TRUE(scheduler.SetUsable(1, false).empty());
  EXPECT_EQ(scheduler.replaced(), 0u);
  EXPECT_EQ(scheduler.pending(), 1u);
  // SGS 1 comes back; then SGS 2 goes: the task's last reservation moves to SGS 1, where it runs
  // once SGS 1's slot is free.
  EXPECT_TRUE(scheduler.SetUsable(1, true).empty());
  EXPECT_TRUE(scheduler.SetUsable(2, false).empty());
  EXPECT_EQ(scheduler.replaced(), 1u);
  EXPECT_EQ(scheduler.queued(1), 1u);
  launches = scheduler.Finish(1);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].task, wide);
  EXPECT_EQ(launches[0].sgs, 1);
  // A task waiting on SGS 1 alone fails when SGS 1 goes with no usable SGS left.
  launches.clear();
  const uint64_t last = scheduler.Reserve(&launches);
  EXPECT_TRUE(launches.empty());
  EXPECT_EQ(scheduler.queued(1), 1u);
  launches = scheduler.SetUsable(1, false);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].task, last);
  EXPECT_EQ(launches[0].sgs, -1);
  EXPECT_EQ(scheduler.failed(), 1u);
  EXPECT_EQ(scheduler.pending(), 0u);
  // Nothing usable: refused.
  launches.clear();
  EXPECT_EQ(scheduler.Reserve(&launches), 0u);
  EXPECT_TRUE(launches.empty());
  EXPECT_EQ(scheduler.refused(), 1u);
}

TEST(SparrowScheduler, FullQueuesRefuseAndCancelledTasksNeverLaunch) {
  SparrowScheduler scheduler({1}, /*probes=*/2, /*max_queue=*/2, /*seed=*/1);
  EXPECT_EQ(ReserveAndLaunch(&scheduler), 0);
  Launches launches;
  const uint64_t second = scheduler.Reserve(&launches);
  const uint64_t third = scheduler.Reserve(&launches);
  EXPECT_TRUE(launches.empty());
  EXPECT_EQ(scheduler.queued(0), 2u);  // probes capped at the one SGS
  EXPECT_EQ(scheduler.Reserve(&launches), 0u);
  EXPECT_EQ(scheduler.refused(), 1u);
  scheduler.Cancel(second);
  launches = scheduler.Finish(0);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].task, third);
  EXPECT_EQ(scheduler.late_binding_drops(), 1u);
}

TEST(SparrowScheduler, RejectsBadConfigurations) {
  EXPECT_THROW(SparrowScheduler({}, 2, 8, 1), std::invalid_argument);
  EXPECT_THROW(SparrowScheduler({1, 0}, 2, 8, 1), std::invalid_argument);
  EXPECT_THROW(SparrowScheduler({1}, 0, 8, 1), std::invalid_argument);
  EXPECT_THROW(SparrowScheduler({1}, 2, 0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace jigsaw::faas
