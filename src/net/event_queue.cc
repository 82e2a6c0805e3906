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

// Bottom-up deletion: the hole left at the root sinks along the smallest children to a leaf
// without comparing against the moving (last) element, which then sifts up from there. The last
// element usually belongs near the bottom, so this needs about half the comparisons of the
// textbook sift-down. Keys are unique, so the order of pops does not depend on the layout.
Event EventQueue::Pop() {
  Event result = heap_.front();
  const size_t size = heap_.size() - 1;
  if (size == 0) {
    heap_.pop_back();
    return result;
  }
  Event* heap = heap_.data();
  size_t index = 0;
  while (true) {
    const size_t first = index * 4 + 1;
    if (first + 4 <= size) {
      size_t best = first;
      if (Before(heap[first + 1], heap[best])) best = first + 1;
      if (Before(heap[first + 2], heap[best])) best = first + 2;
      if (Before(heap[first + 3], heap[best])) best = first + 3;
      heap[index] = heap[best];
      index = best;
      continue;
    }
    if (first < size) {
      size_t best = first;
      for (size_t child = first + 1; child < size; ++child) {
        if (Before(heap[child], heap[best])) best = child;
      }
      heap[index] = heap[best];
      index = best;
    }
    break;
  }
  const Event moving = heap[size];
  while (index > 0) {
    const size_t parent = (index - 1) / 4;
    if (!Before(moving, heap[parent])) break;
    heap[index] = heap[parent];
    index = parent;
  }
  heap[index] = moving;
  heap_.pop_back();
  return result;
}

}  // namespace jigsaw::net
