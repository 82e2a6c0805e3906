// The simulator's pending events: a 4-ary min-heap of 24-byte POD records.
//
// Events are ordered by (time, insertion sequence), so two events at the same picosecond run in the
// order they were scheduled and a run is fully deterministic. An event is a type tag plus two
// 32-bit operands whose meaning the type defines; there is no per-event allocation and no virtual
// dispatch. Events cannot be cancelled: owners carry generation counters and ignore stale ones.
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

class EventQueue {
 public:
  // Throws UsageError if `time` lies past kMaxTime (or is negative).
  void Push(Time time, uint8_t type, uint32_t a, uint32_t b) {
    if (time > kMaxTime || time < 0) [[unlikely]] {
      PastHorizon(time);
    }
    heap_.push_back(Event{time, (next_sequence_++ << 8) | type, a, b});
    SiftUp(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  // Removes and returns the earliest event.
  Event Pop();

 private:
  static bool Before(const Event& x, const Event& y) {
    return x.time < y.time || (x.time == y.time && x.order < y.order);
  }
  void SiftUp(size_t index);
  [[noreturn]] static void PastHorizon(Time time);

  std::vector<Event> heap_;
  uint64_t next_sequence_ = 0;
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_EVENT_QUEUE_H_
