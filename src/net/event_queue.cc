#include "net/event_queue.h"

#include <algorithm>
#include <bit>
#include <string>

#include "core/error.h"

namespace jigsaw::net {

void EventHeap::SiftUp(size_t index) {
  Event moving = heap_[index];
  while (index > 0) {
    size_t parent = (index - 1) / 4;
    if (!EventBefore(moving, heap_[parent])) break;
    heap_[index] = heap_[parent];
    index = parent;
  }
  heap_[index] = moving;
}

// Bottom-up deletion: the hole left at the root sinks along the smallest children to a leaf
// without comparing against the moving (last) element, which then sifts up from there. The last
// element usually belongs near the bottom, so this needs about half the comparisons of the
// textbook sift-down. Keys are unique, so the order of pops does not depend on the layout.
Event EventHeap::Pop() {
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
      if (EventBefore(heap[first + 1], heap[best])) best = first + 1;
      if (EventBefore(heap[first + 2], heap[best])) best = first + 2;
      if (EventBefore(heap[first + 3], heap[best])) best = first + 3;
      heap[index] = heap[best];
      index = best;
      continue;
    }
    if (first < size) {
      size_t best = first;
      for (size_t child = first + 1; child < size; ++child) {
        if (EventBefore(heap[child], heap[best])) best = child;
      }
      heap[index] = heap[best];
      index = best;
    }
    break;
  }
  const Event moving = heap[size];
  while (index > 0) {
    const size_t parent = (index - 1) / 4;
    if (!EventBefore(moving, heap[parent])) break;
    heap[index] = heap[parent];
    index = parent;
  }
  heap[index] = moving;
  heap_.pop_back();
  return result;
}

void EventQueue::PastHorizon(Time time) {
  throw UsageError(
      "the simulation would pass its horizon of " + std::to_string(kMaxTime / kSecond) +
      " s of simulated time (docs/limits.md" + (time < 0 ? ", negative time" : "") +
      "): a link too slow for the traffic (see the topology's rates), a compute phase too long "
      "(--cycle-ns x cycles) or a workload that cannot finish; --stop ends a run earlier");
}

void EventQueue::PushOther(uint64_t bucket, const Event& event) {
  if (size_ == 0) {
    current_bucket_ = bucket;
    run_.push_back(event);
  } else if (bucket <= current_bucket_) {
    late_.Push(event);
  } else {
    far_.Push(event);
  }
}

void EventQueue::NextBucket() {
  uint64_t next = UINT64_MAX;
  bool from_ring = false;
  if (ring_size_ != 0) {
    // The first occupied slot after the current one, going round the ring once.
    const uint64_t start = (current_bucket_ + 1) & kRingMask;
    uint64_t word = start >> 6;
    uint64_t bits = occupied_[word] & (~uint64_t{0} << (start & 63));
    while (bits == 0) {
      word = (word + 1) % (kRingBuckets / 64);
      bits = occupied_[word];
    }
    const uint64_t slot = word * 64 + static_cast<uint64_t>(std::countr_zero(bits));
    next = current_bucket_ + 1 + ((slot - start) & kRingMask);
    from_ring = true;
  }
  if (!far_.empty()) {
    const uint64_t far_bucket = static_cast<uint64_t>(far_.top().time) >> kBucketShift;
    if (far_bucket < next) {
      next = far_bucket;
      from_ring = false;
    }
  }
  current_bucket_ = next;
  if (from_ring) {
    const uint64_t slot = next & kRingMask;
    run_.swap(ring_[slot]);
    ring_size_ -= run_.size();
    occupied_[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
  }
  while (!far_.empty() && (static_cast<uint64_t>(far_.top().time) >> kBucketShift) == next) {
    run_.push_back(far_.Pop());
  }
  std::sort(run_.begin(), run_.end(),
            [](const Event& x, const Event& y) { return EventBefore(y, x); });
}

}  // namespace jigsaw::net
