// Archipelago in the simulator: SGS worker pools with their ready queues, parked functions,
// proactive sandboxes and prewarming, hopeless-at-arrival admission and the load balancer's epoch.
#include <algorithm>
#include <cstdint>

#include "faas/sim_engine.h"

namespace jigsaw::faas {

int Sim::LiveCores(uint32_t sgs) const {
  int cores = 0;
  for (uint32_t w = PoolBegin(sgs); w < PoolEnd(sgs); ++w) cores += workers_[w].cores();
  return cores;
}

double Sim::SgsLoad(uint32_t sgs) const {
  const int cores = LiveCores(sgs);
  if (cores == 0) return 1e9;
  return (sgs_busy_[sgs] + static_cast<double>(sgs_queues_[sgs].size() + parked_count_[sgs])) /
         cores;
}

std::vector<double> Sim::SgsLoads() const {
  std::vector<double> loads(sgs_count_);
  for (uint32_t s = 0; s < sgs_count_; ++s) loads[s] = SgsLoad(s);
  return loads;
}

std::vector<char> Sim::UsableSgs() const {
  std::vector<char> usable(sgs_count_);
  for (uint32_t s = 0; s < sgs_count_; ++s) usable[s] = LiveCores(s) > 0;
  return usable;
}

int Sim::PoolSandboxes(uint32_t sgs, FunctionId f) const {
  int count = 0;
  for (uint32_t w = PoolBegin(sgs); w < PoolEnd(sgs); ++w) count += workers_[w].sandboxes(f);
  return count;
}

bool Sim::HopelessAtArrival(const Request& r) const {
  const ReadyQueue& queue = sgs_queues_[r.sgs];
  if (queue.empty()) return false;
  const int cores = LiveCores(r.sgs);
  if (cores == 0) return false;
  const std::vector<Time>& path = critical_path_[r.dag];
  ReadyTask entry;
  entry.deadline = r.deadline;
  entry.remaining_critical_path = entry.request_critical_path =
      *std::max_element(path.begin(), path.end());
  entry.queued = now_;
  const Time slack = r.deadline - now_ - entry.request_critical_path;
  if (slack < 0) return false;  // tight by design: its own deadline decides, not the queue
  return queue.WorkAhead(queue.KeyOf(entry), durations_.estimates()) / cores > slack;
}

// A request's later functions get one sandbox in its pool now, if there is none, so their setup
// overlaps the earlier functions' execution.
void Sim::PrewarmDag(uint32_t request) {
  const Request& r = requests_[request];
  const Dag& dag = catalog_.dags[r.dag];
  for (uint32_t node = 0; node < dag.nodes.size(); ++node) {
    if (dag.predecessor_count[node] == 0) continue;
    const FunctionId f = dag.nodes[node];
    if (PoolSandboxes(r.sgs, f) > 0) continue;
    uint32_t best = UINT32_MAX;
    for (uint32_t w = PoolBegin(r.sgs); w < PoolEnd(r.sgs); ++w) {
      if (workers_[w].alive() && workers_[w].free_memory() >= function_memory_[f] &&
          (best == UINT32_MAX || workers_[w].free_memory() > workers_[best].free_memory())) {
        best = w;
      }
    }
    if (best == UINT32_MAX) continue;
    workers_[best].CreateWarming(f);
    StartWarming(best, f);
  }
}

void Sim::PlanProactive() {
  sgs_dag_rate_->CloseWindow();
  const size_t dags = catalog_.dags.size();
  std::vector<std::vector<FunctionId>> served(sgs_count_);
  for (DagId d = 0; d < dags; ++d) {
    for (uint32_t s : lb_->SgsOf(d)) {
      const size_t key = static_cast<size_t>(s) * dags + d;
      const bool used = sgs_dag_last_seen_[key] >= 0 &&
                        now_ - sgs_dag_last_seen_[key] < options_.proactive_options.keep_window;
      const double rate =
          std::max(sgs_dag_rate_->RatePerSecond(key), 0.5 * sgs_dag_rate_->PeakPerSecond(key));
      const int cores = LiveCores(s);
      for (FunctionId f : catalog_.dags[d].nodes) {
        // More sandboxes than cores can never run at once.
        sgs_target_[s][f] = std::min(cores, allocator_->Target(rate, durations_.Estimate(f), used));
        served[s].push_back(f);
      }
    }
  }
  for (uint32_t s = 0; s < sgs_count_; ++s) {
    std::vector<Worker*> pool;
    for (uint32_t w = PoolBegin(s); w < PoolEnd(s); ++w) pool.push_back(&workers_[w]);
    const ProactiveAllocator::PlanResult plan = allocator_->Plan(pool, served[s], sgs_target_[s]);
    metrics_.result().sandboxes_evicted += plan.evicted;
    for (const ProactiveAllocator::Creation& c : plan.created) {
      StartWarming(PoolBegin(s) + c.worker, c.function);
    }
  }
}

void Sim::EnqueueSgs(const ReadyTask& task) {
  Request& r = requests_[task.request];
  if (LiveCores(r.sgs) == 0) r.sgs = lb_->Route(r.dag, SgsLoads(), UsableSgs());
  sgs_queues_[r.sgs].Push(task);
  DispatchSgs(r.sgs);
}

// Parked functions first, on a free core next to an idle sandbox of theirs.
void Sim::DispatchParked(uint32_t sgs) {
  const size_t functions = catalog_.functions.size();
  std::vector<FunctionId>& parked_functions = parked_functions_[sgs];
  for (size_t i = 0; i < parked_functions.size();) {
    const FunctionId f = parked_functions[i];
    std::deque<ReadyTask>& parked = parked_[sgs * functions + f];
    for (uint32_t w = PoolBegin(sgs); w < PoolEnd(sgs) && !parked.empty(); ++w) {
      while (!parked.empty() && workers_[w].free_cores() > 0 && workers_[w].idle(f) > 0) {
        Start(parked.front(), w);
        parked.pop_front();
        --parked_count_[sgs];
      }
    }
    if (parked.empty()) {
      parked_functions[i] = parked_functions.back();
      parked_functions.pop_back();
    } else {
      ++i;
    }
  }
}

bool Sim::ParkHead(uint32_t sgs, int coming) {
  // Waiting for one of the `coming` sandboxes (each frees within about one execution) beats a
  // cold start when an execution is shorter than the setup; at most one waiter per sandbox,
  // beyond that a cold start adds the capacity the demand needs.
  ReadyQueue& queue = sgs_queues_[sgs];
  const FunctionId f = queue.Top().function;
  std::deque<ReadyTask>& parked = parked_[sgs * catalog_.functions.size() + f];
  if (parked.size() >= static_cast<size_t>(coming) ||
      durations_.Estimate(f) >= catalog_.functions[f].setup) {
    return false;
  }
  if (parked.empty()) parked_functions_[sgs].push_back(f);
  parked.push_back(queue.Pop());
  ++parked_count_[sgs];
  return true;
}

void Sim::DispatchSgs(uint32_t sgs) {
  DispatchParked(sgs);
  ReadyQueue& queue = sgs_queues_[sgs];
  while (!queue.empty()) {
    if (options_.demote_late) queue.DemoteLate(now_);
    const FunctionId f = queue.Top().function;
    uint32_t warm = UINT32_MAX, roomiest = UINT32_MAX;
    int coming = 0;  // sandboxes of f in the pool that are busy or warming
    for (uint32_t w = PoolBegin(sgs); w < PoolEnd(sgs); ++w) {
      const Worker& worker = workers_[w];
      coming += worker.busy(f) + worker.warming(f);
      if (worker.free_cores() == 0) continue;
      if (worker.idle(f) > 0) {
        warm = w;
        break;
      }
      if (roomiest == UINT32_MAX || worker.free_memory() > workers_[roomiest].free_memory()) {
        roomiest = w;
      }
    }
    if (warm == UINT32_MAX && coming > 0 && ParkHead(sgs, coming)) continue;
    const uint32_t chosen = warm != UINT32_MAX ? warm : roomiest;
    if (chosen == UINT32_MAX) return;  // no free core in the pool
    const ReadyTask task = queue.Top();
    if (!Start(task, chosen)) {
      // The roomiest worker is full of busy sandboxes: try any other worker with a free core.
      bool started = false;
      for (uint32_t w = PoolBegin(sgs); w < PoolEnd(sgs) && !started; ++w) {
        if (w != chosen && workers_[w].free_cores() > 0) started = Start(task, w);
      }
      if (!started) return;
    }
    queue.Pop();
  }
}

void Sim::ArchipelagoTick() {
  if (options_.proactive) PlanProactive();
  for (uint32_t s = 0; s < sgs_count_; ++s) epoch_load_sum_[s] += std::min(SgsLoad(s), 1e3);
  if (++epoch_ticks_ >= options_.ticks_per_epoch) {
    std::vector<double> mean(sgs_count_);
    for (uint32_t s = 0; s < sgs_count_; ++s) mean[s] = epoch_load_sum_[s] / epoch_ticks_;
    lb_->EndEpoch(mean, epoch_demand_, UsableSgs());
    for (DagId d = 0; d < catalog_.dags.size(); ++d) {
      DagPeriodOutcome& at = metrics_.DagPeriod(d, now_ - 1);
      at.max_sgs = std::max<uint32_t>(at.max_sgs, lb_->SgsOf(d).size());
    }
    std::fill(epoch_demand_.begin(), epoch_demand_.end(), 0);
    std::fill(epoch_load_sum_.begin(), epoch_load_sum_.end(), 0);
    epoch_ticks_ = 0;
  }
  // Expiry and eviction above may leave queued work placeable on freed memory.
  for (uint32_t s = 0; s < sgs_count_; ++s) DispatchSgs(s);
}

// Parked work may have waited for sandboxes that died: it is placed afresh; a pool left without
// live cores gives up its queue.
void Sim::RequeueSgs(uint32_t worker_index, std::vector<ReadyTask>* retry) {
  const uint32_t sgs = SgsOfWorker(worker_index);
  const size_t functions = catalog_.functions.size();
  for (FunctionId f : parked_functions_[sgs]) {
    for (const ReadyTask& task : parked_[sgs * functions + f]) retry->push_back(task);
    parked_[sgs * functions + f].clear();
  }
  parked_functions_[sgs].clear();
  parked_count_[sgs] = 0;
  if (LiveCores(sgs) == 0) {
    ReadyQueue& queue = sgs_queues_[sgs];
    while (!queue.empty()) retry->push_back(queue.Pop());
  }
}

}  // namespace jigsaw::faas
