#include "faas/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <memory>

#include "core/error.h"
#include "core/rng.h"
#include "core/stats.h"
#include "faas/admission.h"
#include "faas/estimator.h"
#include "faas/openwhisk_balancer.h"
#include "faas/worker.h"
#include "faas/workload.h"
#include "net/event_queue.h"

namespace jigsaw::faas {

namespace {

enum EventType : uint8_t { kArrival = 1, kFinish, kWarmDone, kTick, kKill, kStemCellReady };

enum class RequestState : uint8_t { kRunning, kCompleted, kFailed };

struct Request {
  Time arrival;
  Time deadline;  // absolute
  Time finished;  // when completed
  Time waited;    // summed over its functions: ready until started
  Time cold;      // summed cold-start setup of its functions
  Time unpaused;  // summed resume time of paused sandboxes (openwhisk)
  Time floor;     // its execution floor so far: the longest path of its finished runs' durations
  uint32_t cold_starts;
  uint32_t dag;
  uint32_t pending_offset;  // into Sim::pending_
  uint32_t remaining;       // nodes not yet done
  uint32_t sgs;
  uint16_t retries;
  RequestState state;
  bool measured;
};

struct Execution {
  uint32_t request;
  uint32_t node;
  FunctionId function;
  uint32_t worker;
  uint32_t token;  // bumped when the slot is freed; a finish event for an older token is stale
  Time duration;   // execution, without setup
  bool active;
};

struct Warming {
  uint32_t worker;
  FunctionId function;
  uint64_t generation;
};

// Sparrow: a ready function waiting for the first of its reserved workers.
struct Pending {
  ReadyTask task;
  uint32_t reservations;
  bool taken;
};

class Sim {
 public:
  Sim(const Catalog& catalog, const SimOptions& options);
  SimResult Run();

 private:
  // Events.
  void OnArrival(DagId dag);
  void OnFinish(uint32_t slot, uint32_t token);
  void OnWarmDone(uint32_t index);
  void OnTick();
  void OnKill(uint32_t worker);
  void OnStemCellReady(uint32_t worker, uint32_t generation);

  // Work.
  void MakeReady(uint32_t request, uint32_t node);
  void Enqueue(const ReadyTask& task);
  bool Start(const ReadyTask& task, uint32_t worker);
  void CompleteNode(uint32_t request, uint32_t node, Time duration);
  void DispatchSgs(uint32_t sgs);
  void DispatchInvoker(uint32_t invoker);
  void DispatchSparrowWorker(uint32_t worker);
  void DispatchAfterChange(uint32_t worker);
  void FailRequest(uint32_t request);
  void CountOutcome(const Request& r, bool met);
  void StartWarming(uint32_t worker, FunctionId f);

  // OpenWhisk stem cells.
  bool StemCells() const {
    return options_.platform == Platform::kOpenWhisk && options_.ow_stem_cells > 0;
  }
  bool TakeStemCell(uint32_t worker, FunctionId f);
  void RefillStemCells(uint32_t worker);

  // Archipelago helpers.
  uint32_t SgsOfWorker(uint32_t worker) const { return worker / options_.workers_per_sgs; }
  uint32_t PoolBegin(uint32_t sgs) const { return sgs * options_.workers_per_sgs; }
  uint32_t PoolEnd(uint32_t sgs) const {
    return std::min<uint32_t>(PoolBegin(sgs) + options_.workers_per_sgs, workers_.size());
  }
  int LiveCores(uint32_t sgs) const;
  double SgsLoad(uint32_t sgs) const;
  std::vector<double> SgsLoads() const;
  std::vector<char> UsableSgs() const;
  int PoolSandboxes(uint32_t sgs, FunctionId f) const;
  void PlanProactive();
  bool HopelessAtArrival(const Request& r) const;
  void PrewarmDag(uint32_t request);

  bool Measured(uint32_t request) const { return requests_[request].measured; }
  DagPeriodOutcome& DagPeriod(uint32_t dag, Time at);
  void FinishDagPeriods();
  void FinishTail();
  uint32_t RandomLiveWorker();

  const Catalog& catalog_;
  SimOptions options_;
  net::EventQueue events_;
  Rng rng_;
  Time now_ = 0;
  std::vector<uint64_t> function_memory_;
  std::vector<Worker> workers_;
  DurationEstimator durations_;
  std::vector<std::vector<Time>> critical_path_;  // per DAG per node, refreshed every tick
  ArrivalProcess arrivals_;

  std::vector<Request> requests_;
  std::vector<uint16_t> pending_;  // per request node: predecessors not yet done
  std::vector<Time> node_floor_;   // per request node: latest execution floor of its predecessors
  std::vector<Execution> runs_;
  std::vector<uint32_t> free_runs_;
  std::vector<Warming> warmings_;
  std::vector<uint32_t> free_warmings_;
  uint64_t outstanding_ = 0;

  // Archipelago.
  uint32_t sgs_count_ = 0;
  std::vector<ReadyQueue> sgs_queues_;
  std::vector<int> sgs_busy_;
  std::unique_ptr<LoadBalancer> lb_;
  std::unique_ptr<RateEstimator> sgs_dag_rate_;  // key sgs * dags + dag
  std::vector<Time> sgs_dag_last_seen_;
  std::vector<double> epoch_demand_;  // dag * sgs_count + sgs, core-seconds
  std::vector<double> epoch_load_sum_;
  int epoch_ticks_ = 0;
  std::unique_ptr<ProactiveAllocator> allocator_;
  std::vector<std::vector<int>> sgs_target_;
  // Ready functions waiting for a busy or warming sandbox of their function in their pool (cheaper
  // than a cold start); key sgs * functions + function. parked_functions_: per SGS, the keys in
  // use.
  std::vector<std::deque<ReadyTask>> parked_;
  std::vector<std::vector<FunctionId>> parked_functions_;
  std::vector<uint64_t> parked_count_;

  // OpenWhisk.
  std::vector<ReadyQueue> invoker_queues_;
  std::unique_ptr<OpenWhiskBalancer> invokers_;  // memory slots, home and step per function
  std::vector<char> invoker_usable_;
  std::vector<int> stem_ready_, stem_starting_;  // per invoker
  // Sparrow.
  std::vector<std::deque<uint32_t>> reservations_;
  std::vector<Pending> pendings_;
  std::vector<uint32_t> free_pendings_;

  std::vector<uint32_t> live_workers_;
  std::vector<double> latencies_ms_;
  std::vector<DagPeriodOutcome> dag_period_;  // period * dags + dag
  // Admission control: per-DAG arrival rates, estimated work per request, the admitted fraction
  // and a credit per DAG (a request is admitted when the credit reaches 1: deterministic).
  std::unique_ptr<RateEstimator> dag_rate_;
  std::vector<double> dag_work_s_, admit_fraction_, admit_credit_;
  SimResult result_;
  double memory_sum_gb_ = 0;
  uint64_t memory_samples_ = 0;
  uint64_t generated_ = 0;
};

Sim::Sim(const Catalog& catalog, const SimOptions& options)
    : catalog_(catalog),
      options_(options),
      rng_(options.seed * 0x2545F4914F6CDD1DULL + 7),
      durations_(catalog),
      arrivals_(catalog, options.seed, options.burst_period, options.burst_sigma) {
  if (options.cores < 1 || options.cores_per_worker < 1 || options.workers_per_sgs < 1) {
    throw UsageError("faas-sim: cores, cores per worker and workers per SGS must be positive");
  }
  if (options.measured_durations &&
      options.measured_durations->size() != catalog.functions.size()) {
    throw UsageError("faas-sim: the measured durations do not match the catalog's functions");
  }
  const int worker_count =
      (options.cores + options.cores_per_worker - 1) / options.cores_per_worker;
  for (const Function& f : catalog.functions) {
    if (f.memory > options.worker_memory) {
      throw UsageError("faas-sim: function '" + catalog.dags[f.dag].name + "/" + f.name +
                       "' needs more sandbox memory than a worker has (--worker-memory)");
    }
    function_memory_.push_back(f.memory);
  }
  for (int w = 0; w < worker_count; ++w) {
    const int cores =
        std::min(options.cores_per_worker, options.cores - w * options.cores_per_worker);
    workers_.emplace_back(cores, options.worker_memory, &function_memory_);
    live_workers_.push_back(static_cast<uint32_t>(w));
  }
  for (const Dag& dag : catalog.dags)
    critical_path_.push_back(CriticalPathFrom(dag, durations_.estimates()));
  const uint32_t dags = static_cast<uint32_t>(catalog.dags.size());
  switch (options.platform) {
    case Platform::kArchipelago:
      sgs_count_ = (worker_count + options.workers_per_sgs - 1) / options.workers_per_sgs;
      for (uint32_t s = 0; s < sgs_count_; ++s) sgs_queues_.emplace_back(options.queue_policy);
      sgs_busy_.assign(sgs_count_, 0);
      lb_ = std::make_unique<LoadBalancer>(dags, sgs_count_, options.lb_options);
      {
        PoolMemory memory;
        for (uint32_t s = 0; s < sgs_count_; ++s) {
          uint64_t bytes = 0;
          for (uint32_t w = PoolBegin(s); w < PoolEnd(s); ++w) bytes += workers_[w].memory();
          memory.pool_bytes.push_back(bytes);
        }
        for (const Dag& dag : catalog.dags) {
          uint64_t bytes = 0;
          for (FunctionId f : dag.nodes) bytes += catalog.functions[f].memory;
          memory.dag_sandbox_bytes.push_back(bytes);
          memory.dag_functions.push_back(static_cast<uint32_t>(dag.nodes.size()));
        }
        memory.epoch_s = static_cast<double>(options.tick * options.ticks_per_epoch) /
                         static_cast<double>(net::kSecond);
        lb_->SetPoolMemory(std::move(memory));
      }
      sgs_dag_rate_ =
          std::make_unique<RateEstimator>(static_cast<size_t>(sgs_count_) * dags, options.tick);
      sgs_dag_last_seen_.assign(static_cast<size_t>(sgs_count_) * dags, -1);
      epoch_demand_.assign(static_cast<size_t>(sgs_count_) * dags, 0);
      epoch_load_sum_.assign(sgs_count_, 0);
      allocator_ = std::make_unique<ProactiveAllocator>(options.proactive_options);
      sgs_target_.assign(sgs_count_, std::vector<int>(catalog.functions.size(), 0));
      parked_.resize(static_cast<size_t>(sgs_count_) * catalog.functions.size());
      parked_functions_.resize(sgs_count_);
      parked_count_.assign(sgs_count_, 0);
      if (options.admission_control) {
        dag_rate_ = std::make_unique<RateEstimator>(dags, options.tick);
        dag_work_s_.assign(dags, 0);
        admit_fraction_.assign(dags, 1.0);
        admit_credit_.assign(dags, 1.0);
      }
      break;
    case Platform::kOpenWhisk:
      for (int w = 0; w < worker_count; ++w) invoker_queues_.emplace_back(QueuePolicy::kFifo);
      invokers_ = std::make_unique<OpenWhiskBalancer>(
          std::vector<uint64_t>(worker_count, options.invoker_memory > 0 ? options.invoker_memory
                                                                         : options.worker_memory),
          options.seed);
      invoker_usable_.assign(worker_count, 1);
      if (StemCells()) {
        // A worker must still hold its stem cells and the largest sandbox besides.
        const uint64_t largest =
            function_memory_.empty()
                ? 0
                : *std::max_element(function_memory_.begin(), function_memory_.end());
        const uint64_t room = options.worker_memory - largest;
        if (options.ow_stem_cell_memory == 0 ||
            options.ow_stem_cell_memory > room / options.ow_stem_cells) {
          throw UsageError(
              "faas-sim: the stem cells and the largest sandbox need more memory than a worker "
              "has");
        }
        const uint64_t bytes = options.ow_stem_cell_memory * options.ow_stem_cells;
        // The invoker started them before the first request.
        for (Worker& w : workers_) w.Reserve(bytes);
        stem_ready_.assign(worker_count, options.ow_stem_cells);
        stem_starting_.assign(worker_count, 0);
      }
      break;
    case Platform::kSparrow:
      reservations_.resize(worker_count);
      break;
  }
}

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

uint32_t Sim::RandomLiveWorker() { return live_workers_[rng_.UniformInt(live_workers_.size())]; }

DagPeriodOutcome& Sim::DagPeriod(uint32_t dag, Time at) {
  const size_t dags = catalog_.dags.size();
  const size_t index = static_cast<size_t>(at / options_.burst_period) * dags + dag;
  if (index >= dag_period_.size()) dag_period_.resize((index / dags + 1) * dags);
  return dag_period_[index];
}

// Which requests make the tail: the completed measured ones slower than the p99, per DAG and
// period; then only the entries that saw arrivals are kept, and the per-period totals (up to the
// last period with a measured request) are summed over the DAGs.
void Sim::FinishDagPeriods() {
  for (const Request& r : requests_) {
    if (!r.measured || r.state != RequestState::kCompleted) continue;
    if (static_cast<double>(r.finished - r.arrival) / net::kMillisecond > result_.p99_ms) {
      ++DagPeriod(r.dag, r.arrival).above_p99;
    }
  }
  const size_t dags = catalog_.dags.size();
  size_t periods = 0;
  for (size_t i = 0; i < dag_period_.size(); ++i) {
    if (dag_period_[i].measured > 0) periods = i / dags + 1;
  }
  result_.measured_by_period.assign(periods, 0);
  result_.missed_by_period.assign(periods, 0);
  for (size_t i = 0; i < dag_period_.size(); ++i) {
    DagPeriodOutcome e = dag_period_[i];
    if (e.arrived == 0) continue;
    e.dag = static_cast<uint32_t>(i % dags);
    e.period = static_cast<uint32_t>(i / dags);
    result_.per_dag_period.push_back(e);
    if (e.period < periods) {
      result_.measured_by_period[e.period] += e.measured;
      result_.missed_by_period[e.period] += e.missed;
    }
  }
}

void Sim::FinishTail() {
  std::vector<double> floors_ms;
  std::vector<uint64_t> per_dag(catalog_.dags.size(), 0);
  TailBreakdown& t = result_.tail;
  const double ms = static_cast<double>(net::kMillisecond);
  for (const Request& r : requests_) {
    if (!r.measured || r.state != RequestState::kCompleted) continue;
    floors_ms.push_back(static_cast<double>(r.floor) / ms);
    const double latency_ms = static_cast<double>(r.finished - r.arrival) / ms;
    if (latency_ms <= result_.p99_ms) continue;
    ++t.requests;
    t.latency_ms += latency_ms;
    t.wait_ms += static_cast<double>(r.waited) / ms;
    t.setup_ms += static_cast<double>(r.cold) / ms;
    t.unpause_ms += static_cast<double>(r.unpaused) / ms;
    t.floor_ms += static_cast<double>(r.floor) / ms;
    t.cold_starts += r.cold_starts;
    if (per_dag[r.dag]++ == 0) ++t.dags;
  }
  if (!floors_ms.empty()) {
    std::sort(floors_ms.begin(), floors_ms.end());
    result_.p99_floor_ms = SampleQuantile(floors_ms, 0.99);
  }
  if (t.requests == 0) return;
  const double n = static_cast<double>(t.requests);
  t.latency_ms /= n;
  t.wait_ms /= n;
  t.setup_ms /= n;
  t.unpause_ms /= n;
  t.floor_ms /= n;
  t.top_dag =
      static_cast<uint32_t>(std::max_element(per_dag.begin(), per_dag.end()) - per_dag.begin());
  t.top_dag_share = static_cast<double>(per_dag[t.top_dag]) / n;
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
  ++DagPeriod(dag_id, now_).arrived;
  for (uint32_t count : dag.predecessor_count) pending_.push_back(static_cast<uint16_t>(count));
  node_floor_.resize(pending_.size(), 0);
  bool refused = false;
  if (dag_rate_) {
    dag_rate_->Count(dag_id);
    admit_credit_[dag_id] = std::min(1.0, admit_credit_[dag_id] + admit_fraction_[dag_id]);
    refused = admit_credit_[dag_id] < 1.0 - 1e-9;
    if (!refused) admit_credit_[dag_id] -= 1.0;
  }
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
  ++result_.requests;
  if (refused) {
    ++result_.refused;
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
  ++result_.sandboxes_created;
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

void Sim::MakeReady(uint32_t request, uint32_t node) {
  const Request& r = requests_[request];
  const Dag& dag = catalog_.dags[r.dag];
  ReadyTask task;
  task.request = request;
  task.node = node;
  task.function = dag.nodes[node];
  task.deadline = r.deadline;
  task.remaining_critical_path = critical_path_[r.dag][node];
  task.request_critical_path =
      *std::max_element(critical_path_[r.dag].begin(), critical_path_[r.dag].end());
  task.queued = now_;
  Enqueue(task);
}

void Sim::Enqueue(const ReadyTask& task) {
  if (live_workers_.empty()) {
    FailRequest(task.request);
    return;
  }
  switch (options_.platform) {
    case Platform::kArchipelago: {
      Request& r = requests_[task.request];
      if (LiveCores(r.sgs) == 0) r.sgs = lb_->Route(r.dag, SgsLoads(), UsableSgs());
      sgs_queues_[r.sgs].Push(task);
      DispatchSgs(r.sgs);
      break;
    }
    case Platform::kOpenWhisk: {
      // ShardingContainerPoolBalancer: the function's home invoker, or the next along its step
      // whose memory slots hold the activation; none: a random one (faas/openwhisk_balancer.h).
      const int invoker =
          invokers_->Acquire(task.function, function_memory_[task.function], invoker_usable_);
      if (invoker < 0) {
        FailRequest(task.request);
        break;
      }
      const uint32_t chosen = static_cast<uint32_t>(invoker);
      invoker_queues_[chosen].Push(task);
      DispatchInvoker(chosen);
      break;
    }
    case Platform::kSparrow: {
      uint32_t index;
      if (!free_pendings_.empty()) {
        index = free_pendings_.back();
        free_pendings_.pop_back();
      } else {
        index = static_cast<uint32_t>(pendings_.size());
        pendings_.emplace_back();
      }
      const int probes =
          std::min<int>(options_.sparrow_probes, static_cast<int>(live_workers_.size()));
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
      break;
    }
  }
}

bool Sim::Start(const ReadyTask& task, uint32_t worker_index) {
  Worker& worker = workers_[worker_index];
  const FunctionId f = task.function;
  const Function& function = catalog_.functions[f];
  bool cold = false, prewarm = false;
  Time unpause = 0;
  if (worker.idle(f) > 0) {
    if (options_.platform == Platform::kOpenWhisk && options_.ow_unpause_cost > 0 &&
        now_ - worker.last_used(f) > options_.ow_pause_grace) {
      unpause = options_.ow_unpause_cost;
    }
    worker.TakeIdle(f);
  } else {
    // A matching stem cell's memory becomes the sandbox's, so MakeRoom evicts nothing then.
    prewarm = TakeStemCell(worker_index, f);
    uint64_t evicted = 0;
    if (!worker.MakeRoom(
            f, [](FunctionId) { return true; }, &evicted))
      return false;
    result_.sandboxes_evicted += evicted;
    worker.CreateBusy(f);
    ++result_.sandboxes_created;
    cold = true;
    if (prewarm) RefillStemCells(worker_index);
  }
  worker.TakeCore();
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
  Time setup = cold ? function.setup : 0;
  if (prewarm) {
    setup = static_cast<Time>(
        std::llround(options_.ow_stem_cell_init_share * static_cast<double>(function.setup)));
  }
  events_.Push(now_ + setup + unpause + options_.dispatch_overhead + run.duration, kFinish, slot,
               run.token);
  Request& owner = requests_[task.request];
  owner.waited += now_ - task.queued;
  owner.unpaused += unpause;
  if (unpause > 0 && Measured(task.request)) ++result_.unpauses;
  if (cold) {
    owner.cold += setup;
    ++owner.cold_starts;
  }
  if (Measured(task.request)) {
    ++result_.invocations;
    if (cold) ++result_.cold_starts;
    if (prewarm) ++result_.prewarm_starts;
  }
  if (options_.platform == Platform::kArchipelago) {
    const uint32_t sgs = SgsOfWorker(worker_index);
    ++sgs_busy_[sgs];
    epoch_demand_[static_cast<size_t>(requests_[task.request].dag) * sgs_count_ + sgs] +=
        static_cast<double>(durations_.Estimate(f)) / net::kSecond;
  }
  return true;
}

void Sim::DispatchSgs(uint32_t sgs) {
  const size_t functions = catalog_.functions.size();
  // Parked functions first, on a free core next to an idle sandbox of theirs.
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
    if (warm == UINT32_MAX && coming > 0) {
      // Waiting for one of the `coming` sandboxes (each frees within about one execution) beats a
      // cold start when an execution is shorter than the setup; at most one waiter per sandbox,
      // beyond that a cold start adds the capacity the demand needs.
      std::deque<ReadyTask>& parked = parked_[sgs * functions + f];
      if (parked.size() < static_cast<size_t>(coming) &&
          durations_.Estimate(f) < catalog_.functions[f].setup) {
        if (parked.empty()) parked_functions.push_back(f);
        parked.push_back(queue.Pop());
        ++parked_count_[sgs];
        continue;
      }
    }
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
  ++result_.completed;
  if (r.measured) {
    ++result_.measured;
    const Time latency = now_ - r.arrival;
    if (now_ <= r.deadline) ++result_.measured_met;
    latencies_ms_.push_back(static_cast<double>(latency) / net::kMillisecond);
    CountOutcome(r, now_ <= r.deadline);
  }
}

void Sim::CountOutcome(const Request& r, bool met) {
  DagOutcome& o = result_.per_dag[r.dag];
  ++o.measured;
  DagPeriodOutcome& at = DagPeriod(r.dag, r.arrival);
  ++at.measured;
  if (met) return;
  ++at.missed;
  at.missed_wait_s += static_cast<double>(r.waited) / net::kSecond;
  ++o.missed;
  o.missed_latency_s += static_cast<double>(now_ - r.arrival) / net::kSecond;
  o.missed_wait_s += static_cast<double>(r.waited) / net::kSecond;
  o.missed_cold_s += static_cast<double>(r.cold) / net::kSecond;
  o.missed_cold_starts += r.cold_starts;
}

void Sim::FailRequest(uint32_t request) {
  Request& r = requests_[request];
  if (r.state != RequestState::kRunning) return;
  r.state = RequestState::kFailed;
  --outstanding_;
  ++result_.failed;
  if (r.measured) {
    ++result_.measured;  // counted as a missed deadline
    CountOutcome(r, false);
  }
}

void Sim::OnKill(uint32_t worker_index) {
  Worker& worker = workers_[worker_index];
  if (!worker.alive()) return;
  worker.Kill();
  live_workers_.erase(std::find(live_workers_.begin(), live_workers_.end(), worker_index));
  std::vector<ReadyTask> retry;
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
    ++result_.retries;
    ReadyTask task;
    task.request = run.request;
    task.node = run.node;
    task.function = run.function;
    task.deadline = r.deadline;
    task.remaining_critical_path = critical_path_[r.dag][run.node];
    task.request_critical_path =
        *std::max_element(critical_path_[r.dag].begin(), critical_path_[r.dag].end());
    task.queued = now_;
    retry.push_back(task);
  }
  // Queued work bound to the dead worker moves to live ones (it never started: no retry counted).
  if (options_.platform == Platform::kOpenWhisk) {
    invoker_usable_[worker_index] = 0;
    if (StemCells()) stem_ready_[worker_index] = stem_starting_[worker_index] = 0;
    invokers_->Clear(worker_index);  // what it held is retried or re-acquired elsewhere
    ReadyQueue& queue = invoker_queues_[worker_index];
    while (!queue.empty()) retry.push_back(queue.Pop());
  } else if (options_.platform == Platform::kSparrow) {
    std::deque<uint32_t>& queue = reservations_[worker_index];
    for (uint32_t index : queue) {
      Pending& p = pendings_[index];
      if (!p.taken) {
        p.taken = true;  // its other reservations become no-ops
        retry.push_back(p.task);
      }
      if (--p.reservations == 0) free_pendings_.push_back(index);
    }
    queue.clear();
  } else {
    // Parked work may have waited for sandboxes that died: it is placed afresh.
    const uint32_t sgs = SgsOfWorker(worker_index);
    const size_t functions = catalog_.functions.size();
    for (FunctionId f : parked_functions_[sgs]) {
      for (const ReadyTask& task : parked_[sgs * functions + f]) retry.push_back(task);
      parked_[sgs * functions + f].clear();
    }
    parked_functions_[sgs].clear();
    parked_count_[sgs] = 0;
    if (LiveCores(sgs) == 0) {
      ReadyQueue& queue = sgs_queues_[sgs];
      while (!queue.empty()) retry.push_back(queue.Pop());
    }
  }
  for (const ReadyTask& task : retry) {
    if (requests_[task.request].state == RequestState::kRunning) Enqueue(task);
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
    result_.sandboxes_evicted += plan.evicted;
    for (const ProactiveAllocator::Creation& c : plan.created) {
      StartWarming(PoolBegin(s) + c.worker, c.function);
    }
  }
}

void Sim::OnTick() {
  for (size_t d = 0; d < catalog_.dags.size(); ++d) {
    critical_path_[d] = CriticalPathFrom(catalog_.dags[d], durations_.estimates());
  }
  double memory = 0;
  for (const Worker& w : workers_) memory += static_cast<double>(w.used_memory());
  memory /= double(1ULL << 30);
  memory_sum_gb_ += memory;
  ++memory_samples_;
  result_.sandbox_memory_peak_gb = std::max(result_.sandbox_memory_peak_gb, memory);

  const Time keep = options_.platform == Platform::kArchipelago
                        ? options_.proactive_options.keep_window
                        : options_.keep_alive;
  for (Worker& w : workers_) result_.sandboxes_evicted += w.ExpireIdle(now_ - keep);
  if (StemCells()) {
    for (uint32_t w = 0; w < workers_.size(); ++w) RefillStemCells(w);
  }

  if (dag_rate_) {
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
  if (options_.platform == Platform::kArchipelago) {
    if (options_.proactive) PlanProactive();
    for (uint32_t s = 0; s < sgs_count_; ++s) epoch_load_sum_[s] += std::min(SgsLoad(s), 1e3);
    if (++epoch_ticks_ >= options_.ticks_per_epoch) {
      std::vector<double> mean(sgs_count_);
      for (uint32_t s = 0; s < sgs_count_; ++s) mean[s] = epoch_load_sum_[s] / epoch_ticks_;
      lb_->EndEpoch(mean, epoch_demand_, UsableSgs());
      for (DagId d = 0; d < catalog_.dags.size(); ++d) {
        DagPeriodOutcome& at = DagPeriod(d, now_ - 1);
        at.max_sgs = std::max<uint32_t>(at.max_sgs, lb_->SgsOf(d).size());
      }
      std::fill(epoch_demand_.begin(), epoch_demand_.end(), 0);
      std::fill(epoch_load_sum_.begin(), epoch_load_sum_.end(), 0);
      epoch_ticks_ = 0;
    }
    // Expiry and eviction above may leave queued work placeable on freed memory.
    for (uint32_t s = 0; s < sgs_count_; ++s) DispatchSgs(s);
  }
  if (options_.on_tick) options_.on_tick(static_cast<double>(now_) / net::kSecond, generated_);
  if (generated_ < options_.requests || outstanding_ > 0) {
    events_.Push(now_ + options_.tick, kTick, 0, 0);
  }
}

SimResult Sim::Run() {
  const auto wall_start = std::chrono::steady_clock::now();
  result_.per_dag.assign(catalog_.dags.size(), DagOutcome{});
  for (DagId d = 0; d < catalog_.dags.size(); ++d) {
    const Time first = arrivals_.Next(d, 0);
    if (first <= net::kMaxTime) events_.Push(first, kArrival, d, 0);
  }
  for (const WorkerKill& kill : options_.kills) {
    if (kill.worker >= workers_.size()) {
      throw UsageError("faas-sim: --kill names worker " + std::to_string(kill.worker) +
                       " but there are " + std::to_string(workers_.size()) + " workers");
    }
    events_.Push(kill.at, kKill, kill.worker, 0);
  }
  events_.Push(0, kTick, 0, 0);
  while (!events_.empty()) {
    const net::Event e = events_.Pop();
    now_ = e.time;
    ++result_.events;
    switch (e.type()) {
      case kArrival:
        OnArrival(e.a);
        break;
      case kFinish:
        OnFinish(e.a, e.b);
        break;
      case kWarmDone:
        OnWarmDone(e.a);
        break;
      case kTick:
        OnTick();
        break;
      case kKill:
        OnKill(e.a);
        break;
      case kStemCellReady:
        OnStemCellReady(e.a, e.b);
        break;
    }
    if (generated_ >= options_.requests && outstanding_ == 0) break;
  }
  result_.platform = PlatformName(options_.platform);
  result_.policy = options_.platform == Platform::kArchipelago
                       ? std::string(QueuePolicyName(options_.queue_policy)) +
                             (options_.proactive ? "" : "-noproactive") +
                             (options_.demote_late ? "" : "-nodemote") +
                             (options_.admission_control ? "-ac" : "") +
                             (options_.hopeless_admission ? "-ha" : "")
                       : "fifo";
  result_.lost = result_.requests - result_.completed - result_.failed;
  if (result_.measured > 0) {
    result_.deadline_met_pct = 100.0 * result_.measured_met / result_.measured;
  }
  if (!latencies_ms_.empty()) {
    std::sort(latencies_ms_.begin(), latencies_ms_.end());
    result_.p50_ms = SampleQuantile(latencies_ms_, 0.50);
    result_.p99_ms = SampleQuantile(latencies_ms_, 0.99);
    result_.p999_ms = SampleQuantile(latencies_ms_, 0.999);
    result_.max_ms = latencies_ms_.back();
    result_.mean_ms = Mean(latencies_ms_);
    // The latency CDF at every percent, then every tenth of a percent above 99 (the tail).
    for (int i = 1; i <= 109; ++i) {
      const double p = i <= 99 ? i / 100.0 : 0.99 + (i - 99) / 1000.0;
      result_.latency_quantiles_ms.push_back({p, SampleQuantile(latencies_ms_, p)});
    }
  }
  FinishDagPeriods();
  FinishTail();
  if (result_.invocations > 0) {
    result_.cold_start_pct = 100.0 * result_.cold_starts / result_.invocations;
  }
  if (memory_samples_ > 0) result_.sandbox_memory_avg_gb = memory_sum_gb_ / memory_samples_;
  if (lb_) {
    result_.scale_outs = lb_->scale_outs();
    result_.scale_ins = lb_->scale_ins();
    result_.max_sgs_per_dag = lb_->max_sgs_per_dag();
  }
  result_.simulated_s = static_cast<double>(now_) / net::kSecond;
  result_.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result_;
}

}  // namespace

Time AutoWarmup(uint64_t requests, double request_rate_per_s) {
  const Time cap = 10 * net::kSecond;
  if (!(request_rate_per_s > 0)) return cap;
  const double span_s = static_cast<double>(requests) / request_rate_per_s;
  return std::min(cap, static_cast<Time>(0.1 * span_s * static_cast<double>(net::kSecond)));
}

SimResult Simulate(const Catalog& catalog, const SimOptions& options) {
  Sim sim(catalog, options);
  return sim.Run();
}

}  // namespace jigsaw::faas
