#include "faas/ready_queue.h"

#include <algorithm>
#include <array>

namespace jigsaw::faas {

namespace {

constexpr std::array<EnumName<QueuePolicy>, 4> kQueuePolicies{{
    {QueuePolicy::kLeastSlack, "lsf"},
    {QueuePolicy::kEarliestDeadline, "edf"},
    {QueuePolicy::kFifo, "fifo"},
    {QueuePolicy::kRequestSlack, "rlsf"},
}};

}  // namespace

EnumTable<QueuePolicy> QueuePolicies() { return kQueuePolicies; }

bool ParseQueuePolicy(const std::string& text, QueuePolicy* policy) {
  return ParseEnum(QueuePolicies(), text, policy);
}

const char* QueuePolicyName(QueuePolicy policy) { return EnumNameOf(QueuePolicies(), policy); }

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
