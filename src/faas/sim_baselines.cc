// The baselines in the simulator: OpenWhisk-like invokers (the sharding balancer's placement,
// per-invoker FIFO, stem cells) and Sparrow-like reservations with late binding.
#include <algorithm>
#include <cstdint>

#include "faas/sim_engine.h"

namespace jigsaw::faas {

uint32_t Sim::RandomLiveWorker() { return live_workers_[rng_.UniformInt(live_workers_.size())]; }

// OpenWhisk's ContainerPool.takePrewarmContainer: a stem cell of the action's kind and memory
// (every generated function is of the default kind, so the memory decides).
bool Sim::TakeStemCell(uint32_t worker, FunctionId f) {
  if (!StemCells() || stem_ready_[worker] == 0 ||
      function_memory_[f] != options_.ow_stem_cell_memory) {
    return false;
  }
  --stem_ready_[worker];
  workers_[worker].Unreserve(options_.ow_stem_cell_memory);
  return true;
}

// Starts the invoker's missing stem cells while its free memory holds them (OpenWhisk starts a
// replacement as soon as one is taken; here one without room waits for a later tick).
void Sim::RefillStemCells(uint32_t worker_index) {
  Worker& worker = workers_[worker_index];
  while (worker.alive() &&
         stem_ready_[worker_index] + stem_starting_[worker_index] < options_.ow_stem_cells &&
         worker.free_memory() >= options_.ow_stem_cell_memory) {
    worker.Reserve(options_.ow_stem_cell_memory);
    ++stem_starting_[worker_index];
    events_.Push(now_ + options_.ow_stem_cell_create, kStemCellReady, worker_index,
                 static_cast<uint32_t>(worker.generation()));
  }
}

void Sim::OnStemCellReady(uint32_t worker, uint32_t generation) {
  if (static_cast<uint32_t>(workers_[worker].generation()) != generation) return;
  --stem_starting_[worker];
  ++stem_ready_[worker];
}

void Sim::DispatchInvoker(uint32_t invoker) {
  ReadyQueue& queue = invoker_queues_[invoker];
  while (!queue.empty() && workers_[invoker].free_cores() > 0) {
    if (!Start(queue.Top(), invoker)) return;
    queue.Pop();
  }
}

void Sim::DispatchSparrowWorker(uint32_t worker) {
  std::deque<uint32_t>& queue = reservations_[worker];
  while (!queue.empty() && workers_[worker].free_cores() > 0) {
    const uint32_t index = queue.front();
    Pending& p = pendings_[index];
    if (!p.taken) {
      if (!Start(p.task, worker)) return;
      p.taken = true;
    }
    queue.pop_front();
    if (--p.reservations == 0) free_pendings_.push_back(index);
  }
}

// ShardingContainerPoolBalancer: the function's home invoker, or the next along its step whose
// memory slots hold the activation; none: a random one (faas/openwhisk_balancer.h).
void Sim::EnqueueOpenWhisk(const ReadyTask& task) {
  const int invoker =
      invokers_->Acquire(task.function, function_memory_[task.function], invoker_usable_);
  if (invoker < 0) {
    FailRequest(task.request);
    return;
  }
  const uint32_t chosen = static_cast<uint32_t>(invoker);
  invoker_queues_[chosen].Push(task);
  DispatchInvoker(chosen);
}

// A reservation at each of `sparrow_probes` distinct random live workers.
void Sim::EnqueueSparrow(const ReadyTask& task) {
  uint32_t index;
  if (!free_pendings_.empty()) {
    index = free_pendings_.back();
    free_pendings_.pop_back();
  } else {
    index = static_cast<uint32_t>(pendings_.size());
    pendings_.emplace_back();
  }
  const int probes = std::min<int>(options_.sparrow_probes, static_cast<int>(live_workers_.size()));
  pendings_[index] = Pending{task, static_cast<uint32_t>(probes), false};
  uint32_t probed[8];
  for (int p = 0; p < probes; ++p) {
    uint32_t w;
    bool repeat;
    do {
      w = RandomLiveWorker();
      repeat = false;
      for (int q = 0; q < p; ++q) repeat = repeat || probed[q] == w;
    } while (repeat);
    probed[p] = w;
    reservations_[w].push_back(index);
  }
  for (int p = 0; p < probes; ++p) DispatchSparrowWorker(probed[p]);
}

void Sim::RequeueInvoker(uint32_t worker_index, std::vector<ReadyTask>* retry) {
  invoker_usable_[worker_index] = 0;
  if (StemCells()) stem_ready_[worker_index] = stem_starting_[worker_index] = 0;
  invokers_->Clear(worker_index);  // what it held is retried or re-acquired elsewhere
  ReadyQueue& queue = invoker_queues_[worker_index];
  while (!queue.empty()) retry->push_back(queue.Pop());
}

void Sim::RequeueReservations(uint32_t worker_index, std::vector<ReadyTask>* retry) {
  std::deque<uint32_t>& queue = reservations_[worker_index];
  for (uint32_t index : queue) {
    Pending& p = pendings_[index];
    if (!p.taken) {
      p.taken = true;  // its other reservations become no-ops
      retry->push_back(p.task);
    }
    if (--p.reservations == 0) free_pendings_.push_back(index);
  }
  queue.clear();
}

}  // namespace jigsaw::faas
