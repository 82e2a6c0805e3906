#include "net/event_queue.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "core/error.h"
#include "net/units.h"

namespace jigsaw::net {
namespace {

// Drives the calendar queue and a plain heap on the full (time, sequence) key with the same
// operations and requires every pop, top and size to agree.
class QueueAgainstHeap {
 public:
  void Push(Time time, uint8_t type, uint32_t a, uint32_t b) {
    queue_.Push(time, type, a, b);
    heap_.Push(Event{time, (sequence_++ << 8) | type, a, b});
  }
  // Returns the popped event's time.
  Time Pop() {
    EXPECT_FALSE(queue_.empty());
    const Event& top = queue_.top();
    const Event expected = heap_.Pop();
    EXPECT_EQ(top.time, expected.time);
    EXPECT_EQ(top.order, expected.order);
    const Event got = queue_.Pop();
    EXPECT_EQ(got.time, expected.time);
    EXPECT_EQ(got.order, expected.order);
    EXPECT_EQ(got.type(), expected.type());
    EXPECT_EQ(got.a, expected.a);
    EXPECT_EQ(got.b, expected.b);
    EXPECT_EQ(queue_.size(), heap_.size());
    ++pops_;
    return got.time;
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  uint64_t pops() const { return pops_; }

 private:
  EventQueue queue_;
  EventHeap heap_;
  uint64_t sequence_ = 0;
  uint64_t pops_ = 0;
};

// A delay drawn from the shapes the simulators produce: ties at the same picosecond, the current
// bucket, packet serialization and propagation (ring), the ring's edge, and far timers.
Time RandomDelay(std::mt19937_64& rng) {
  const uint64_t bucket = 1024;  // ps; the edge cases below hold for any power of two near it
  switch (rng() % 8) {
    case 0:
      return 0;
    case 1:
      return static_cast<Time>(rng() % bucket);
    case 2:
      return static_cast<Time>(rng() % 120'000);  // one 1500 B packet at 100 Gbps
    case 3:
      return static_cast<Time>(1'000'000 + rng() % 200'000);
    case 4:
      return static_cast<Time>(4096 * bucket - 3 * bucket + rng() % (6 * bucket));
    case 5:
      return static_cast<Time>(rng() % 20'000'000);
    case 6:
      return static_cast<Time>(rng() % 1'000'000'000'000);  // up to 1 s
    default:
      return static_cast<Time>((rng() % 4) * 120'000);  // exact ties between ports
  }
}

TEST(NetEventQueue, RandomizedInterleavingMatchesHeapOrder) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    QueueAgainstHeap q;
    Time now = 0;
    // Phases that fill, hold steady and drain, like a run's start, middle and end.
    for (int phase = 0; phase < 6; ++phase) {
      const uint64_t push_percent = phase % 3 == 0 ? 80 : (phase % 3 == 1 ? 50 : 20);
      for (int step = 0; step < 20'000; ++step) {
        if (q.empty() || rng() % 100 < push_percent) {
          q.Push(now + RandomDelay(rng), static_cast<uint8_t>(rng() % 12),
                 static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng()));
        } else {
          now = q.Pop();
        }
      }
    }
    while (!q.empty()) now = q.Pop();
    EXPECT_GT(q.pops(), 50'000u) << "seed " << seed;
  }
}

TEST(NetEventQueue, PushesBeforeTheFirstPopInAnyOrder) {
  // Setup schedules flow starts and timers at arbitrary times, later ones first.
  std::mt19937_64 rng(7);
  QueueAgainstHeap q;
  for (int i = 0; i < 5000; ++i) {
    q.Push(static_cast<Time>(rng() % 50'000'000), 1, static_cast<uint32_t>(i), 0);
  }
  q.Push(0, 2, 0, 0);
  q.Push(kMaxTime, 3, 0, 0);
  Time now = 0;
  for (int i = 0; i < 2000; ++i) now = q.Pop();
  // Earlier than the current bucket (allowed: the queue does not know the clock).
  q.Push(now > 5000 ? now - 5000 : 0, 4, 1, 1);
  q.Push(now, 4, 2, 2);
  while (!q.empty()) {
    const Time t = q.Pop();
    EXPECT_GE(t, 0);
  }
  EXPECT_EQ(q.pops(), 5004u);
}

TEST(NetEventQueue, RefillsAfterRunningEmpty) {
  QueueAgainstHeap q;
  // Far apart (seconds, like the FaaS and D2R simulators), then near again, then a tie storm.
  for (int round = 0; round < 50; ++round) {
    const Time base = static_cast<Time>(round) * 3'000'000'000'000;
    q.Push(base + 5, 1, 0, 0);
    q.Push(base + 5, 2, 0, 0);
    q.Push(base, 3, 0, 0);
    q.Push(base + 5'000'000, 4, 0, 0);
    while (!q.empty()) q.Pop();
  }
  for (int i = 0; i < 3000; ++i)
    q.Push(42, static_cast<uint8_t>(i % 7), static_cast<uint32_t>(i), 0);
  while (q.size() > 1000) q.Pop();
  for (int i = 0; i < 3000; ++i) q.Push(42 + i % 3, 9, static_cast<uint32_t>(i), 1);
  while (!q.empty()) q.Pop();
  EXPECT_EQ(q.pops(), 200u + 6000u);
}

TEST(NetEventQueue, RejectsTimesPastTheHorizon) {
  EventQueue queue;
  EXPECT_THROW(queue.Push(kMaxTime + 1, 0, 0, 0), UsageError);
  EXPECT_THROW(queue.Push(-1, 0, 0, 0), UsageError);
  EXPECT_TRUE(queue.empty());
  queue.Push(kMaxTime, 5, 1, 2);
  EXPECT_EQ(queue.top().time, kMaxTime);
  EXPECT_EQ(queue.Pop().type(), 5);
  EXPECT_TRUE(queue.empty());
}

}  // namespace
}  // namespace jigsaw::net
