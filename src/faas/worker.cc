#include "faas/worker.h"

#include <algorithm>

namespace jigsaw::faas {

Worker::Worker(int cores, uint64_t memory, const std::vector<uint64_t>* function_memory)
    : cores_(cores),
      free_cores_(cores),
      memory_(memory),
      function_memory_(function_memory),
      idle_(function_memory->size(), 0),
      busy_(function_memory->size(), 0),
      warming_(function_memory->size(), 0),
      last_used_(function_memory->size(), 0) {}

void Worker::AddIdle(FunctionId f, Time now) {
  if (idle_[f] > 0) idle_order_.erase({last_used_[f], f});
  ++idle_[f];
  last_used_[f] = now;
  idle_order_.insert({now, f});
}

void Worker::RemoveIdle(FunctionId f) {
  if (--idle_[f] == 0) idle_order_.erase({last_used_[f], f});
}

void Worker::TakeIdle(FunctionId f) {
  RemoveIdle(f);
  ++busy_[f];
}

void Worker::Release(FunctionId f, Time now) {
  --busy_[f];
  AddIdle(f, now);
}

void Worker::CreateBusy(FunctionId f) {
  ++busy_[f];
  used_memory_ += (*function_memory_)[f];
}

void Worker::CreateWarming(FunctionId f) {
  ++warming_[f];
  used_memory_ += (*function_memory_)[f];
}

void Worker::WarmingDone(FunctionId f, Time now) {
  --warming_[f];
  AddIdle(f, now);
}

bool Worker::EvictIdle(FunctionId f) {
  if (idle_[f] == 0) return false;
  RemoveIdle(f);
  used_memory_ -= (*function_memory_)[f];
  return true;
}

uint64_t Worker::ExpireIdle(Time cutoff) {
  uint64_t expired = 0;
  while (!idle_order_.empty() && idle_order_.begin()->first < cutoff) {
    const FunctionId f = idle_order_.begin()->second;
    expired += idle_[f];
    used_memory_ -= static_cast<uint64_t>(idle_[f]) * (*function_memory_)[f];
    idle_[f] = 0;
    idle_order_.erase(idle_order_.begin());
  }
  return expired;
}

bool Worker::OldestIdle(std::pair<Time, FunctionId>* oldest) const {
  if (idle_order_.empty()) return false;
  *oldest = *idle_order_.begin();
  return true;
}

void Worker::Kill() {
  alive_ = false;
  ++generation_;
  free_cores_ = 0;
  used_memory_ = 0;
  std::fill(idle_.begin(), idle_.end(), 0);
  std::fill(busy_.begin(), busy_.end(), 0);
  std::fill(warming_.begin(), warming_.end(), 0);
  idle_order_.clear();
}

}  // namespace jigsaw::faas
