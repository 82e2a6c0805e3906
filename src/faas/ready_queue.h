// The SGS's queue of ready functions (a DAG node whose predecessors are all done) and its order.
//
// kLeastSlack: least slack first, slack = deadline - now - remaining critical path (the node's own
// estimated duration plus the longest estimated path after it). `now` is common to every queued
// task, so the order is that of (deadline - remaining critical path), fixed when the task is
// queued with the estimates of that moment. kRequestSlack ("rlsf") orders every function of a
// request by the slack of the whole request (deadline - the DAG's critical path), so functions of
// started requests are not overtaken by the first functions of later ones, which per-function
// slack does whenever the later request's extra remaining path outweighs its later arrival.
// kEarliestDeadline orders by the request's deadline (least slack without the remaining work),
// kFifo by arrival at the queue. Ties go to the task queued first, so runs are deterministic.
#ifndef JIGSAW_FAAS_READY_QUEUE_H_
#define JIGSAW_FAAS_READY_QUEUE_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "faas/dag.h"
#include "faas/enum_table.h"

namespace jigsaw::faas {

enum class QueuePolicy { kLeastSlack, kEarliestDeadline, kFifo, kRequestSlack };

// lsf, edf, fifo, rlsf.
EnumTable<QueuePolicy> QueuePolicies();
// Parses a name of QueuePolicies(); false otherwise.
bool ParseQueuePolicy(const std::string& text, QueuePolicy* policy);
const char* QueuePolicyName(QueuePolicy policy);

struct ReadyTask {
  uint32_t request = 0;  // owner's request index
  uint32_t node = 0;     // index into the DAG's nodes
  FunctionId function = 0;
  Time deadline = 0;                 // absolute
  Time remaining_critical_path = 0;  // estimated, this node included
  Time request_critical_path = 0;    // estimated, the whole DAG's (kRequestSlack)
  Time queued = 0;                   // when it became ready
};

inline Time Slack(const ReadyTask& task, Time now) {
  return task.deadline - now - task.remaining_critical_path;
}

class ReadyQueue {
 public:
  explicit ReadyQueue(QueuePolicy policy) : policy_(policy) {}

  void Push(const ReadyTask& task);
  bool empty() const { return heap_.empty() && late_.empty(); }
  size_t size() const { return heap_.size() + late_.size(); }
  // The next task: the ordered ones first, then (FIFO) those demoted as late.
  const ReadyTask& Top() const { return heap_.empty() ? late_.front() : heap_.front().task; }
  ReadyTask Pop();
  // Overload control (lsf and edf only): tasks that can no longer meet their deadline at `now`
  // (lsf, rlsf: negative slack; edf: deadline passed) move behind every other task, so a backlog of
  // hopeless work does not make the still-feasible work late too (the domino effect of EDF under
  // overload). They are still run, in arrival order, when nothing feasible waits.
  void DemoteLate(Time now);
  QueuePolicy policy() const { return policy_; }
  // The order key Push gives `task` (smaller runs first).
  Time KeyOf(const ReadyTask& task) const;
  // The estimated work of the ordered (not demoted) tasks that run before a task with `key`:
  // the sum of duration_of[function] over those with a key <= `key`. A linear scan.
  Time WorkAhead(Time key, const std::vector<Time>& duration_of) const;

 private:
  struct Entry {
    Time key;
    uint64_t sequence;
    ReadyTask task;
  };
  static bool Before(const Entry& x, const Entry& y) {
    return x.key < y.key || (x.key == y.key && x.sequence < y.sequence);
  }

  QueuePolicy policy_;
  uint64_t next_sequence_ = 0;
  std::vector<Entry> heap_;
  std::deque<ReadyTask> late_;
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_READY_QUEUE_H_
