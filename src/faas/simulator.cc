#include "faas/simulator.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include "core/error.h"
#include "faas/sim_engine.h"

namespace jigsaw::faas {

Sim::Sim(const Catalog& catalog, const SimOptions& options)
    : catalog_(catalog),
      options_(options),
      rng_(options.seed * 0x2545F4914F6CDD1DULL + 7),
      durations_(catalog),
      arrivals_(catalog, options.seed, options.burst_period, options.burst_sigma),
      metrics_(catalog.dags.size(), options.burst_period) {
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
  switch (options.platform) {
    case Platform::kArchipelago:
      InitArchipelago(worker_count);
      break;
    case Platform::kOpenWhisk:
      InitOpenWhisk(worker_count);
      break;
    case Platform::kSparrow:
      reservations_.resize(worker_count);
      break;
  }
}

void Sim::InitArchipelago(uint32_t worker_count) {
  const uint32_t dags = static_cast<uint32_t>(catalog_.dags.size());
  const size_t functions = catalog_.functions.size();
  sgs_count_ = (worker_count + options_.workers_per_sgs - 1) / options_.workers_per_sgs;
  for (uint32_t s = 0; s < sgs_count_; ++s) sgs_queues_.emplace_back(options_.queue_policy);
  sgs_busy_.assign(sgs_count_, 0);
  lb_ = std::make_unique<LoadBalancer>(dags, sgs_count_, options_.lb_options);
  PoolMemory memory;
  for (uint32_t s = 0; s < sgs_count_; ++s) {
    uint64_t bytes = 0;
    for (uint32_t w = PoolBegin(s); w < PoolEnd(s); ++w) bytes += workers_[w].memory();
    memory.pool_bytes.push_back(bytes);
  }
  for (const Dag& dag : catalog_.dags) {
    uint64_t bytes = 0;
    for (FunctionId f : dag.nodes) bytes += catalog_.functions[f].memory;
    memory.dag_sandbox_bytes.push_back(bytes);
    memory.dag_functions.push_back(static_cast<uint32_t>(dag.nodes.size()));
  }
  memory.epoch_s = static_cast<double>(options_.tick * options_.ticks_per_epoch) /
                   static_cast<double>(net::kSecond);
  lb_->SetPoolMemory(std::move(memory));
  sgs_dag_rate_ =
      std::make_unique<RateEstimator>(static_cast<size_t>(sgs_count_) * dags, options_.tick);
  sgs_dag_last_seen_.assign(static_cast<size_t>(sgs_count_) * dags, -1);
  epoch_demand_.assign(static_cast<size_t>(sgs_count_) * dags, 0);
  epoch_load_sum_.assign(sgs_count_, 0);
  allocator_ = std::make_unique<ProactiveAllocator>(options_.proactive_options);
  sgs_target_.assign(sgs_count_, std::vector<int>(functions, 0));
  parked_.resize(static_cast<size_t>(sgs_count_) * functions);
  parked_functions_.resize(sgs_count_);
  parked_count_.assign(sgs_count_, 0);
  if (options_.admission_control) {
    dag_rate_ = std::make_unique<RateEstimator>(dags, options_.tick);
    dag_work_s_.assign(dags, 0);
    admit_fraction_.assign(dags, 1.0);
    admit_credit_.assign(dags, 1.0);
  }
}

void Sim::InitOpenWhisk(uint32_t worker_count) {
  for (uint32_t w = 0; w < worker_count; ++w) invoker_queues_.emplace_back(QueuePolicy::kFifo);
  invokers_ = std::make_unique<OpenWhiskBalancer>(
      std::vector<uint64_t>(worker_count, options_.invoker_memory > 0 ? options_.invoker_memory
                                                                      : options_.worker_memory),
      options_.seed);
  invoker_usable_.assign(worker_count, 1);
  if (!StemCells()) return;
  // A worker must still hold its stem cells and the largest sandbox besides.
  const uint64_t largest = function_memory_.empty() ? 0
                                                    : *std::max_element(function_memory_.begin(),
                                                                        function_memory_.end());
  const uint64_t room = options_.worker_memory - largest;
  if (options_.ow_stem_cell_memory == 0 ||
      options_.ow_stem_cell_memory > room / options_.ow_stem_cells) {
    throw UsageError(
        "faas-sim: the stem cells and the largest sandbox need more memory than a worker has");
  }
  const uint64_t bytes = options_.ow_stem_cell_memory * options_.ow_stem_cells;
  // The invoker started them before the first request.
  for (Worker& w : workers_) w.Reserve(bytes);
  stem_ready_.assign(worker_count, options_.ow_stem_cells);
  stem_starting_.assign(worker_count, 0);
}

void Sim::Dispatch(const net::Event& e) {
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
}

SimResult Sim::Run() {
  const auto wall_start = std::chrono::steady_clock::now();
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
    ++metrics_.result().events;
    Dispatch(e);
    if (generated_ >= options_.requests && outstanding_ == 0) break;
  }
  FinishRun();
  SimResult& result = metrics_.result();
  result.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

void Sim::FinishRun() {
  SimResult& result = metrics_.result();
  result.platform = PlatformName(options_.platform);
  result.policy = options_.platform == Platform::kArchipelago
                      ? std::string(QueuePolicyName(options_.queue_policy)) +
                            (options_.proactive ? "" : "-noproactive") +
                            (options_.demote_late ? "" : "-nodemote") +
                            (options_.admission_control ? "-ac" : "") +
                            (options_.hopeless_admission ? "-ha" : "")
                      : "fifo";
  result.lost = result.requests - result.completed - result.failed;
  metrics_.Finish(requests_);
  if (lb_) {
    result.scale_outs = lb_->scale_outs();
    result.scale_ins = lb_->scale_ins();
    result.max_sgs_per_dag = lb_->max_sgs_per_dag();
  }
  result.simulated_s = static_cast<double>(now_) / net::kSecond;
}

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
