#include "net/event_queue.h"

#include <string>

#include "core/error.h"

namespace jigsaw::net {

void EventQueue::PastHorizon(Time time) {
  throw UsageError(
      "the simulation would pass its horizon of " + std::to_string(kMaxTime / kSecond) +
      " s of simulated time (docs/limits.md" + (time < 0 ? ", negative time" : "") +
      "): a link too slow for the traffic (see the topology's rates), a compute phase too long "
      "(--cycle-ns x cycles) or a workload that cannot finish; --stop ends a run earlier");
}

void EventQueue::SiftUp(size_t index) {
  Event moving = heap_[index];
  while (index > 0) {
    size_t parent = (index - 1) / 4;
    if (!Before(moving, heap_[parent])) break;
    heap_[index] = heap_[parent];
    index = parent;
  }
  heap_[index] = moving;
}

Event EventQueue::Pop() {
  Event result = heap_.front();
  Event moving = heap_.back();
  heap_.pop_back();
  const size_t size = heap_.size();
  if (size == 0) return result;
  size_t index = 0;
  while (true) {
    size_t first = index * 4 + 1;
    if (first >= size) break;
    size_t best = first;
    size_t last = first + 4 < size ? first + 4 : size;
    for (size_t child = first + 1; child < last; ++child) {
      if (Before(heap_[child], heap_[best])) best = child;
    }
    if (!Before(heap_[best], moving)) break;
    heap_[index] = heap_[best];
    index = best;
  }
  heap_[index] = moving;
  return result;
}

}  // namespace jigsaw::net
