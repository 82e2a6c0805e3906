// One worker machine: cores, memory, and the sandboxes it holds, per function.
//
// A sandbox runs one invocation at a time and holds its function's memory whether idle, busy or
// warming (being created). Idle sandboxes are kept in least-recently-used order per worker (by
// the time their function last released one here), which is the eviction order under memory
// pressure and for keep-alive expiry. The worker only keeps the books; the platform decides when
// to create, take, release and evict. A killed worker loses every sandbox and core.
#ifndef JIGSAW_FAAS_WORKER_H_
#define JIGSAW_FAAS_WORKER_H_

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "faas/dag.h"

namespace jigsaw::faas {

class Worker {
 public:
  Worker(int cores, uint64_t memory, const std::vector<uint64_t>* function_memory);

  int cores() const { return alive_ ? cores_ : 0; }
  int free_cores() const { return alive_ ? free_cores_ : 0; }
  uint64_t memory() const { return memory_; }
  uint64_t used_memory() const { return used_memory_; }
  uint64_t free_memory() const { return memory_ - used_memory_; }
  bool alive() const { return alive_; }

  int idle(FunctionId f) const { return idle_[f]; }
  int busy(FunctionId f) const { return busy_[f]; }
  int warming(FunctionId f) const { return warming_[f]; }
  int sandboxes(FunctionId f) const { return idle_[f] + busy_[f] + warming_[f]; }
  uint64_t generation() const { return generation_; }
  // When a sandbox of f last became idle here (0 if none ever did).
  Time last_used(FunctionId f) const { return last_used_[f]; }

  // Core bookkeeping for a run (warm or cold).
  void TakeCore() { --free_cores_; }
  void ReleaseCore() { ++free_cores_; }

  // An idle sandbox of f becomes busy.
  void TakeIdle(FunctionId f);
  // A busy sandbox of f becomes idle, last used at `now`.
  void Release(FunctionId f, Time now);
  // Frees memory for one more sandbox of f by evicting idle sandboxes, least recently used first,
  // among functions for which `may_evict(function)` is true (asked again before each eviction).
  // Returns false if it still would not fit: nothing is evicted when the idle sandboxes it may
  // evict could never make room, some may be when the predicate turns false on the way.
  // *evicted counts the evictions.
  template <typename Predicate>
  bool MakeRoom(FunctionId f, Predicate may_evict, uint64_t* evicted);
  // A new sandbox of f, busy at once (a cold start for a waiting invocation) or warming
  // (proactive); the caller made room.
  void CreateBusy(FunctionId f);
  void CreateWarming(FunctionId f);
  // Memory held outside the sandboxes (the OpenWhisk-like baseline's stem cells); the caller
  // checked free_memory(). Kill() drops it with the rest.
  void Reserve(uint64_t bytes) { used_memory_ += bytes; }
  void Unreserve(uint64_t bytes) { used_memory_ -= bytes; }
  // A warming sandbox of f is ready: it becomes idle.
  void WarmingDone(FunctionId f, Time now);
  // Evicts one idle sandbox of f; false if it has none.
  bool EvictIdle(FunctionId f);
  // Evicts every idle sandbox unused since before `cutoff` (keep-alive expiry); returns how many.
  uint64_t ExpireIdle(Time cutoff);
  // Least recently used function with an idle sandbox here: (last use, function); false if none.
  bool OldestIdle(std::pair<Time, FunctionId>* oldest) const;
  void Kill();

 private:
  void AddIdle(FunctionId f, Time now);
  void RemoveIdle(FunctionId f);

  int cores_;
  int free_cores_;
  uint64_t memory_;
  uint64_t used_memory_ = 0;
  bool alive_ = true;
  uint64_t generation_ = 0;
  const std::vector<uint64_t>* function_memory_;
  std::vector<int> idle_, busy_, warming_;
  std::vector<Time> last_used_;
  std::set<std::pair<Time, FunctionId>> idle_order_;  // functions with idle sandboxes, LRU first
};

template <typename Predicate>
bool Worker::MakeRoom(FunctionId f, Predicate may_evict, uint64_t* evicted) {
  const uint64_t need = (*function_memory_)[f];
  if (need <= free_memory()) return true;
  uint64_t reclaimable = 0;
  for (const auto& [last, g] : idle_order_) {
    if (may_evict(g)) reclaimable += static_cast<uint64_t>(idle_[g]) * (*function_memory_)[g];
    if (free_memory() + reclaimable >= need) break;
  }
  if (free_memory() + reclaimable < need) return false;
  // The predicate may change its mind as sandboxes go (a surplus used up): then stop, short.
  while (need > free_memory()) {
    bool found = false;
    for (const auto& entry : idle_order_) {
      if (may_evict(entry.second)) {
        EvictIdle(entry.second);
        ++*evicted;
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_WORKER_H_
