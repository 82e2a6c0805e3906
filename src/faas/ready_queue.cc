#include "faas/ready_queue.h"

#include <algorithm>

namespace jigsaw::faas {

bool ParseQueuePolicy(const std::string& text, QueuePolicy* policy) {
  if (text == "lsf") {
    *policy = QueuePolicy::kLeastSlack;
  } else if (text == "edf") {
    *policy = QueuePolicy::kEarliestDeadline;
  } else if (text == "fifo") {
    *policy = QueuePolicy::kFifo;
  } else if (text == "rlsf") {
    *policy = QueuePolicy::kRequestSlack;
  } else {
    return false;
  }
  return true;
}

const char* QueuePolicyName(QueuePolicy policy) {
  switch (policy) {
    case QueuePolicy::kLeastSlack:
      return "lsf";
    case QueuePolicy::kEarliestDeadline:
      return "edf";
    case QueuePolicy::kFifo:
      return "fifo";
    case QueuePolicy::kRequestSlack:
      return "rlsf";
  }
  return "?";
}

Time ReadyQueue::KeyOf(const ReadyTask& task) const {
  switch (policy_) {
    case QueuePolicy::kLeastSlack:
      return task.deadline - task.remaining_critical_path;
    case QueuePolicy::kEarliestDeadline:
      return task.deadline;
    case QueuePolicy::kRequestSlack:
      return task.deadline - task.request_critical_path;
    case QueuePolicy::kFifo:
      break;
  }
  return task.queued;
}

Time ReadyQueue::WorkAhead(Time key, const std::vector<Time>& duration_of) const {
  Time work = 0;
  for (const Entry& e : heap_) {
    if (e.key <= key) work += duration_of[e.task.function];
  }
  return work;
}

void ReadyQueue::Push(const ReadyTask& task) {
  const Time key = KeyOf(task);
  // std::push_heap keeps a max-heap; invert the order for the earliest key on top.
  heap_.push_back(Entry{key, next_sequence_++, task});
  std::push_heap(heap_.begin(), heap_.end(),
                 [](const Entry& x, const Entry& y) { return Before(y, x); });
}

void ReadyQueue::DemoteLate(Time now) {
  if (policy_ == QueuePolicy::kFifo) return;
  while (!heap_.empty()) {
    const ReadyTask& top = heap_.front().task;
    const bool late =
        policy_ == QueuePolicy::kEarliestDeadline ? top.deadline < now : Slack(top, now) < 0;
    if (!late) return;
    late_.push_back(top);
    std::pop_heap(heap_.begin(), heap_.end(),
                  [](const Entry& x, const Entry& y) { return Before(y, x); });
    heap_.pop_back();
  }
}

ReadyTask ReadyQueue::Pop() {
  if (heap_.empty()) {
    ReadyTask task = late_.front();
    late_.pop_front();
    return task;
  }
  std::pop_heap(heap_.begin(), heap_.end(),
                [](const Entry& x, const Entry& y) { return Before(y, x); });
  ReadyTask task = heap_.back().task;
  heap_.pop_back();
  return task;
}

}  // namespace jigsaw::faas
