// The simulator's pending events: 24-byte POD records popped in (time, insertion sequence) order.
//
// Two events at the same picosecond run in the order they were scheduled, so a run is fully
// deterministic. An event is a type tag plus two 32-bit operands whose meaning the type defines;
// there is no per-event allocation and no virtual dispatch. Events cannot be cancelled: owners
// carry generation counters and ignore stale ones.
//
// Layout (a two-level calendar queue; the pop order is exactly that of one heap on the full key):
// time is cut into buckets of 2^kBucketShift ps. Events of the current bucket (and any pushed
// earlier than its end) are the "current" set: a run sorted descending, consumed from its back,
// plus a small heap for events pushed into the current bucket after it was sorted. Events of the
// next kRingBuckets - 1 buckets wait unsorted in a ring of per-bucket vectors (a bitmap finds the
// next non-empty one), and events further out in a heap. When the current set runs dry, the next
// non-empty bucket (from the ring, or the far heap's earliest, whichever is first) is sorted and
// becomes current. A packet event lands a few hundred buckets ahead, so a push is one append and
// a pop reads a small sorted run instead of walking a heap of tens of thousands of events.
#ifndef JIGSAW_NET_EVENT_QUEUE_H_
#define JIGSAW_NET_EVENT_QUEUE_H_

#include <cstdint>
#include <vector>

#include "net/units.h"

namespace jigsaw::net {

struct Event {
  Time time;
  uint64_t order;  // (sequence << 8) | type
  uint32_t a;
  uint32_t b;

  uint8_t type() const { return static_cast<uint8_t>(order & 0xff); }
};

// Earlier time first, then earlier sequence. Keys are unique (sequences are).
inline bool EventBefore(const Event& x, const Event& y) {
  return x.time < y.time || (x.time == y.time && x.order < y.order);
}

// A 4-ary min-heap of events by EventBefore.
class EventHeap {
 public:
  void Push(const Event& event) {
    heap_.push_back(event);
    SiftUp(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  // Removes and returns the earliest event.
  Event Pop();

 private:
  void SiftUp(size_t index);

  std::vector<Event> heap_;
};

class EventQueue {
 public:
  // Throws UsageError if `time` lies past kMaxTime (or is negative).
  void Push(Time time, uint8_t type, uint32_t a, uint32_t b) {
    if (time > kMaxTime || time < 0) [[unlikely]] {
      PastHorizon(time);
    }
    const Event event{time, (next_sequence_++ << 8) | type, a, b};
    const uint64_t bucket = static_cast<uint64_t>(time) >> kBucketShift;
    if (bucket - current_bucket_ - 1 < kRingBuckets - 1 && size_ != 0) {
      PushRing(bucket, event);
    } else {
      PushOther(bucket, event);
    }
    ++size_;
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // The earliest event; the queue must not be empty.
  const Event& top() const {
    if (late_.empty() || (!run_.empty() && EventBefore(run_.back(), late_.top()))) {
      return run_.back();
    }
    return late_.top();
  }
  // Removes and returns the earliest event; the queue must not be empty.
  Event Pop() {
    Event result;
    if (late_.empty() || (!run_.empty() && EventBefore(run_.back(), late_.top()))) {
      result = run_.back();
      run_.pop_back();
    } else {
      result = late_.Pop();
    }
    --size_;
    if (run_.empty() && late_.empty() && size_ != 0) NextBucket();
    return result;
  }

 private:
  static constexpr int kBucketShift = 10;  // 1.024 ns
  static constexpr uint64_t kRingBuckets = 4096;
  static constexpr uint64_t kRingMask = kRingBuckets - 1;

  void PushRing(uint64_t bucket, const Event& event) {
    const uint64_t slot = bucket & kRingMask;
    if (ring_.empty()) [[unlikely]] {
      ring_.resize(kRingBuckets);
    }
    ring_[slot].push_back(event);
    occupied_[slot >> 6] |= uint64_t{1} << (slot & 63);
    ++ring_size_;
  }
  // Into the current set, the far heap, or (queue empty) a new current bucket.
  void PushOther(uint64_t bucket, const Event& event);
  // Makes the next non-empty bucket current; the current set is empty and the queue is not.
  void NextBucket();
  [[noreturn]] static void PastHorizon(Time time);

  // Current bucket: all events earlier than its end are in run_ (sorted descending) or late_.
  uint64_t current_bucket_ = 0;
  std::vector<Event> run_;
  EventHeap late_;
  // Buckets current_bucket_ + 1 .. current_bucket_ + kRingBuckets - 1, by bucket & kRingMask.
  std::vector<std::vector<Event>> ring_;
  uint64_t occupied_[kRingBuckets / 64] = {};
  size_t ring_size_ = 0;
  EventHeap far_;  // later buckets (and ring buckets reached since they were pushed)
  size_t size_ = 0;
  uint64_t next_sequence_ = 0;
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_EVENT_QUEUE_H_
