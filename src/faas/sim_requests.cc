// A request's life in the simulator: arrival, ready functions, runs on workers, completion,
// failure, worker kills with retries, sandbox warm-up, and the per-tick housekeeping.
#include <algorithm>
#include <cmath>

#include "faas/admission.h"
#include "faas/sim_engine.h"

namespace jigsaw::faas {

// Admission control's deterministic credit: a request is admitted when its DAG's credit reaches 1.
bool Sim::Admitted(DagId dag_id) {
  if (!dag_rate_) return true;
  dag_rate_->Count(dag_id);
  admit_credit_[dag_id] = std::min(1.0, admit_credit_[dag_id] + admit_fraction_[dag_id]);
  if (admit_credit_[dag_id] < 1.0 - 1e-9) return false;
  admit_credit_[dag_id] -= 1.0;
  return true;
}

void Sim::OnArrival(DagId dag_id) {
  if (generated_ >= options_.requests) return;
  const Dag& dag = catalog_.dags[dag_id];
  const uint32_t id = static_cast<uint32_t>(requests_.size());
  Request r{};
  r.arrival = now_;
  r.deadline = now_ + dag.deadline;
  r.dag = dag_id;
  r.pending_offset = static_cast<uint32_t>(pending_.size());
  r.remaining = static_cast<uint32_t>(dag.nodes.size());
  r.state = RequestState::kRunning;
  r.measured = now_ >= options_.warmup;
  ++metrics_.DagPeriod(dag_id, now_).arrived;
  for (uint32_t count : dag.predecessor_count) pending_.push_back(static_cast<uint16_t>(count));
  node_floor_.resize(pending_.size(), 0);
  bool refused = !Admitted(dag_id);
  if (options_.platform == Platform::kArchipelago && !refused) {
    r.sgs = lb_->Route(dag_id, SgsLoads(), UsableSgs());
    const size_t key = static_cast<size_t>(r.sgs) * catalog_.dags.size() + dag_id;
    sgs_dag_rate_->Count(key);
    sgs_dag_last_seen_[key] = now_;
    if (options_.hopeless_admission) refused = HopelessAtArrival(r);
  }
  requests_.push_back(r);
  ++generated_;
  ++outstanding_;
  ++metrics_.result().requests;
  if (refused) {
    ++metrics_.result().refused;
    FailRequest(id);
  } else {
    if (options_.platform == Platform::kArchipelago && options_.proactive) PrewarmDag(id);
    for (uint32_t node = 0; node < dag.nodes.size(); ++node) {
      if (dag.predecessor_count[node] == 0) MakeReady(id, node);
    }
  }
  if (generated_ < options_.requests) {
    const Time next = arrivals_.Next(dag_id, now_);
    if (next <= net::kMaxTime) events_.Push(next, kArrival, dag_id, 0);
  }
}

ReadyTask Sim::TaskOf(uint32_t request, uint32_t node, FunctionId function) const {
  const Request& r = requests_[request];
  ReadyTask task;
  task.request = request;
  task.node = node;
  task.function = function;
  task.deadline = r.deadline;
  task.remaining_critical_path = critical_path_[r.dag][node];
  task.request_critical_path =
      *std::max_element(critical_path_[r.dag].begin(), critical_path_[r.dag].end());
  task.queued = now_;
  return task;
}

void Sim::MakeReady(uint32_t request, uint32_t node) {
  const Dag& dag = catalog_.dags[requests_[request].dag];
  Enqueue(TaskOf(request, node, dag.nodes[node]));
}

void Sim::Enqueue(const ReadyTask& task) {
  if (live_workers_.empty()) {
    FailRequest(task.request);
    return;
  }
  switch (options_.platform) {
    case Platform::kArchipelago:
      EnqueueSgs(task);
      break;
    case Platform::kOpenWhisk:
      EnqueueOpenWhisk(task);
      break;
    case Platform::kSparrow:
      EnqueueSparrow(task);
      break;
  }
}

// An idle sandbox (resumed first when paused, openwhisk) or a new one (a cold start, from a stem
// cell when one matches); false when the worker cannot make room for one.
bool Sim::TakeSandbox(uint32_t worker_index, FunctionId f, bool* cold, bool* prewarm,
                      Time* unpause) {
  Worker& worker = workers_[worker_index];
  if (worker.idle(f) > 0) {
    if (options_.platform == Platform::kOpenWhisk && options_.ow_unpause_cost > 0 &&
        now_ - worker.last_used(f) > options_.ow_pause_grace) {
      *unpause = options_.ow_unpause_cost;
    }
    worker.TakeIdle(f);
    return true;
  }
  // A matching stem cell's memory becomes the sandbox's, so MakeRoom evicts nothing then.
  *prewarm = TakeStemCell(worker_index, f);
  uint64_t evicted = 0;
  if (!worker.MakeRoom(
          f, [](FunctionId) { return true; }, &evicted))
    return false;
  metrics_.result().sandboxes_evicted += evicted;
  worker.CreateBusy(f);
  ++metrics_.result().sandboxes_created;
  *cold = true;
  if (*prewarm) RefillStemCells(worker_index);
  return true;
}

// A run slot for `task` on `worker` with its drawn duration.
uint32_t Sim::NewRun(const ReadyTask& task, uint32_t worker_index) {
  const FunctionId f = task.function;
  const Function& function = catalog_.functions[f];
  uint32_t slot;
  if (!free_runs_.empty()) {
    slot = free_runs_.back();
    free_runs_.pop_back();
  } else {
    slot = static_cast<uint32_t>(runs_.size());
    runs_.push_back(Execution{});
  }
  Execution& run = runs_[slot];
  run.request = task.request;
  run.node = task.node;
  run.function = f;
  run.worker = worker_index;
  const DurationQuantiles* measured =
      options_.measured_durations && !(*options_.measured_durations)[f].empty()
          ? &(*options_.measured_durations)[f]
          : nullptr;
  run.duration = std::max<Time>(
      1, measured ? measured->Sample(rng_.Uniform())
                  : static_cast<Time>(LogNormalMeanCv(rng_, static_cast<double>(function.duration),
                                                      function.duration_cv)));
  run.active = true;
  return slot;
}

bool Sim::Start(const ReadyTask& task, uint32_t worker_index) {
  const Function& function = catalog_.functions[task.function];
  bool cold = false, prewarm = false;
  Time unpause = 0;
  if (!TakeSandbox(worker_index, task.function, &cold, &prewarm, &unpause)) return false;
  workers_[worker_index].TakeCore();
  const uint32_t slot = NewRun(task, worker_index);
  const Execution& run = runs_[slot];
  Time setup = cold ? function.setup : 0;
  if (prewarm) {
    setup = static_cast<Time>(
        std::llround(options_.ow_stem_cell_init_share * static_cast<double>(function.setup)));
  }
  events_.Push(now_ + setup + unpause + options_.dispatch_overhead + run.duration, kFinish, slot,
               run.token);
  CountStart(task, worker_index, setup, unpause, cold, prewarm);
  return true;
}

void Sim::CountStart(const ReadyTask& task, uint32_t worker_index, Time setup, Time unpause,
                     bool cold, bool prewarm) {
  SimResult& result = metrics_.result();
  Request& owner = requests_[task.request];
  owner.waited += now_ - task.queued;
  owner.unpaused += unpause;
  if (unpause > 0 && Measured(task.request)) ++result.unpauses;
  if (cold) {
    owner.cold += setup;
    ++owner.cold_starts;
  }
  if (Measured(task.request)) {
    ++result.invocations;
    if (cold) ++result.cold_starts;
    if (prewarm) ++result.prewarm_starts;
  }
  if (options_.platform == Platform::kArchipelago) {
    const uint32_t sgs = SgsOfWorker(worker_index);
    ++sgs_busy_[sgs];
    epoch_demand_[static_cast<size_t>(requests_[task.request].dag) * sgs_count_ + sgs] +=
        static_cast<double>(durations_.Estimate(task.function)) / net::kSecond;
  }
}

void Sim::DispatchAfterChange(uint32_t worker) {
  switch (options_.platform) {
    case Platform::kArchipelago:
      DispatchSgs(SgsOfWorker(worker));
      break;
    case Platform::kOpenWhisk:
      DispatchInvoker(worker);
      break;
    case Platform::kSparrow:
      DispatchSparrowWorker(worker);
      break;
  }
}

void Sim::OnFinish(uint32_t slot, uint32_t token) {
  if (!runs_[slot].active || runs_[slot].token != token) return;  // its worker was killed
  runs_[slot].active = false;
  ++runs_[slot].token;
  // A copy: what follows may start new runs, reusing this slot or growing runs_.
  const Execution run = runs_[slot];
  free_runs_.push_back(slot);
  Worker& worker = workers_[run.worker];
  worker.ReleaseCore();
  worker.Release(run.function, now_);
  durations_.Observe(run.function, run.duration);
  if (options_.platform == Platform::kArchipelago) --sgs_busy_[SgsOfWorker(run.worker)];
  if (options_.platform == Platform::kOpenWhisk) {
    invokers_->Release(run.worker, function_memory_[run.function]);
  }
  CompleteNode(run.request, run.node, run.duration);
  DispatchAfterChange(run.worker);
}

void Sim::StartWarming(uint32_t worker, FunctionId f) {
  uint32_t index;
  if (!free_warmings_.empty()) {
    index = free_warmings_.back();
    free_warmings_.pop_back();
  } else {
    index = static_cast<uint32_t>(warmings_.size());
    warmings_.emplace_back();
  }
  warmings_[index] = Warming{worker, f, workers_[worker].generation()};
  ++metrics_.result().sandboxes_created;
  events_.Push(now_ + catalog_.functions[f].setup, kWarmDone, index, 0);
}

void Sim::OnWarmDone(uint32_t index) {
  const Warming w = warmings_[index];
  free_warmings_.push_back(index);
  Worker& worker = workers_[w.worker];
  if (worker.generation() != w.generation) return;
  worker.WarmingDone(w.function, now_);
  DispatchAfterChange(w.worker);
}

void Sim::CompleteNode(uint32_t request, uint32_t node, Time duration) {
  Request& r = requests_[request];
  if (r.state != RequestState::kRunning) return;
  const Dag& dag = catalog_.dags[r.dag];
  const Time floor = node_floor_[r.pending_offset + node] + duration;
  r.floor = std::max(r.floor, floor);
  for (uint32_t next : dag.successors[node]) {
    Time& next_floor = node_floor_[r.pending_offset + next];
    next_floor = std::max(next_floor, floor);
    if (--pending_[r.pending_offset + next] == 0) MakeReady(request, next);
  }
  if (--r.remaining > 0) return;
  r.state = RequestState::kCompleted;
  r.finished = now_;
  --outstanding_;
  metrics_.Completed(r, now_);
}

void Sim::FailRequest(uint32_t request) {
  Request& r = requests_[request];
  if (r.state != RequestState::kRunning) return;
  r.state = RequestState::kFailed;
  --outstanding_;
  metrics_.Failed(r, now_);
}

// The killed worker's running functions: retried (a new ready task) up to max_retries per
// request, else their request fails.
void Sim::KillRuns(uint32_t worker_index, std::vector<ReadyTask>* retry) {
  for (uint32_t slot = 0; slot < runs_.size(); ++slot) {
    Execution& run = runs_[slot];
    if (!run.active || run.worker != worker_index) continue;
    run.active = false;
    ++run.token;
    free_runs_.push_back(slot);
    if (options_.platform == Platform::kArchipelago) --sgs_busy_[SgsOfWorker(worker_index)];
    Request& r = requests_[run.request];
    if (r.state != RequestState::kRunning) continue;
    if (r.retries >= options_.max_retries) {
      FailRequest(run.request);
      continue;
    }
    ++r.retries;
    ++metrics_.result().retries;
    retry->push_back(TaskOf(run.request, run.node, run.function));
  }
}

void Sim::OnKill(uint32_t worker_index) {
  Worker& worker = workers_[worker_index];
  if (!worker.alive()) return;
  worker.Kill();
  live_workers_.erase(std::find(live_workers_.begin(), live_workers_.end(), worker_index));
  std::vector<ReadyTask> retry;
  KillRuns(worker_index, &retry);
  // Queued work bound to the dead worker moves to live ones (it never started: no retry counted).
  switch (options_.platform) {
    case Platform::kOpenWhisk:
      RequeueInvoker(worker_index, &retry);
      break;
    case Platform::kSparrow:
      RequeueReservations(worker_index, &retry);
      break;
    case Platform::kArchipelago:
      RequeueSgs(worker_index, &retry);
      break;
  }
  for (const ReadyTask& task : retry) {
    if (requests_[task.request].state == RequestState::kRunning) Enqueue(task);
  }
}

void Sim::SampleMemory() {
  double memory = 0;
  for (const Worker& w : workers_) memory += static_cast<double>(w.used_memory());
  memory /= double(1ULL << 30);
  metrics_.SampleMemory(memory);
}

// Admission control: each DAG's admitted fraction from its arrival rate and estimated work.
void Sim::UpdateAdmission() {
  dag_rate_->CloseWindow();
  std::vector<double> rates(catalog_.dags.size());
  for (DagId d = 0; d < catalog_.dags.size(); ++d) {
    rates[d] = dag_rate_->RatePerSecond(d);
    double work = 0;
    for (FunctionId f : catalog_.dags[d].nodes) work += durations_.Estimate(f);
    dag_work_s_[d] = work / net::kSecond;
  }
  double cores = 0;
  for (const Worker& w : workers_) cores += w.cores();
  admit_fraction_ = AdmissionFractions(rates, dag_work_s_, cores);
}

void Sim::OnTick() {
  for (size_t d = 0; d < catalog_.dags.size(); ++d) {
    critical_path_[d] = CriticalPathFrom(catalog_.dags[d], durations_.estimates());
  }
  SampleMemory();
  const Time keep = options_.platform == Platform::kArchipelago
                        ? options_.proactive_options.keep_window
                        : options_.keep_alive;
  for (Worker& w : workers_) metrics_.result().sandboxes_evicted += w.ExpireIdle(now_ - keep);
  if (StemCells()) {
    for (uint32_t w = 0; w < workers_.size(); ++w) RefillStemCells(w);
  }
  if (dag_rate_) UpdateAdmission();
  if (options_.platform == Platform::kArchipelago) ArchipelagoTick();
  if (options_.on_tick) options_.on_tick(static_cast<double>(now_) / net::kSecond, generated_);
  if (generated_ < options_.requests || outstanding_ > 0) {
    events_.Push(now_ + options_.tick, kTick, 0, 0);
  }
}

}  // namespace jigsaw::faas
