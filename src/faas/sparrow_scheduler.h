// The Sparrow-like baseline's placement of tasks on the real platform's SGSs (`jigsaw faas
// --platform sparrow`), as Sparrow's batch sampling with late binding places tasks on workers.
//
// Each SGS has `slots` cores and a FIFO of reservations. Reserve(task) leaves one reservation of
// the task at each of `probes` distinct SGSs drawn at random (a deterministic generator seeded at
// construction) among the usable ones whose queue has room (`max_queue` reservations); with none,
// the task is refused. An SGS with a free slot takes the reservation at its queue's head: the
// first probed SGS to do so launches the task there (late binding), and the task's other
// reservations are dropped when they reach their heads. Finish(sgs) frees a slot. An SGS marked
// unusable drops its reservations; a task left with none is re-placed on another usable SGS with
// room, or fails when there is none. Every call returns the decisions it made, in order: each task
// is launched at most once, and a task that fails is never launched.
//
// The load balancer keeps the reservations on the SGSs' behalf (it is the only dispatcher and
// knows each SGS's running tasks), so Sparrow's getTask round trip from worker to scheduler is
// not paid. Not thread-safe: the caller serialises calls.
#ifndef JIGSAW_FAAS_SPARROW_SCHEDULER_H_
#define JIGSAW_FAAS_SPARROW_SCHEDULER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

namespace jigsaw::faas {

class SparrowScheduler {
 public:
  // A decision about a task: launch it on `sgs`, or (sgs -1) fail it, no usable SGS being left.
  struct Launch {
    uint64_t task;
    int sgs;
  };

  // slots[i]: SGS i's cores. Throws std::invalid_argument when empty, when a count is 0, when
  // probes is 0 or max_queue is 0.
  SparrowScheduler(std::vector<uint32_t> slots, uint32_t probes, size_t max_queue, uint64_t seed);

  // Reserves a new task (ids count from 1); returns its id, or 0 when refused. Launches go to
  // *launches (appended).
  uint64_t Reserve(std::vector<Launch>* launches);
  // A task launched on `sgs` ended (answered or not): its slot is free.
  std::vector<Launch> Finish(uint32_t sgs);
  // A pending task is given up (its reservations become stale); no-op once launched.
  void Cancel(uint64_t task) { pending_.erase(task); }
  // Marks an SGS usable or not (an unusable SGS's reservations move; see above). Its running
  // tasks still end with Finish.
  std::vector<Launch> SetUsable(uint32_t sgs, bool usable);

  bool usable(uint32_t sgs) const { return usable_[sgs] != 0; }
  uint32_t running(uint32_t sgs) const { return running_[sgs]; }
  // Reservations queued at the SGS, stale ones (of tasks launched elsewhere) included.
  size_t queued(uint32_t sgs) const { return queues_[sgs].size(); }
  size_t pending() const { return pending_.size(); }

  uint64_t launched() const { return launched_; }
  uint64_t late_binding_drops() const { return late_binding_drops_; }  // stale reservations
  uint64_t replaced() const { return replaced_; }  // re-placed after their SGS became unusable
  uint64_t refused() const { return refused_; }
  uint64_t failed() const { return failed_; }

 private:
  uint32_t Draw(uint32_t n);                     // uniform in [0, n)
  std::vector<uint32_t> UsableWithRoom() const;  // SGSs a reservation may go to, in index order
  // Puts one reservation of `task` on a random usable SGS with room; returns the SGS, or -1.
  int PlaceOne(uint64_t task);
  void Dispatch(uint32_t sgs, std::vector<Launch>* launches);

  std::vector<uint32_t> slots_;
  uint32_t probes_;
  size_t max_queue_;
  std::vector<char> usable_;
  std::vector<uint32_t> running_;
  std::vector<std::deque<uint64_t>> queues_;
  std::unordered_map<uint64_t, uint32_t> pending_;  // task -> its live reservations
  uint64_t next_task_ = 1;
  uint64_t rng_state_;
  uint64_t launched_ = 0;
  uint64_t late_binding_drops_ = 0;
  uint64_t replaced_ = 0;
  uint64_t refused_ = 0;
  uint64_t failed_ = 0;
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_SPARROW_SCHEDULER_H_
