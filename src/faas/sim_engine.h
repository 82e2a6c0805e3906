// faas::Simulate's engine (private to src/faas; the model is described in faas/simulator.h).
//
// Sim runs one platform over one catalog on the shared event core (net::EventQueue): events are
// arrivals, function finishes, sandboxes done warming, ticks, worker kills and OpenWhisk stem
// cells ready. Its definitions are split by concept:
//   simulator.cc        construction per platform, the event loop and the run's summary;
//   sim_requests.cc     a request's life: arrival, ready functions, starting a run on a worker
//                       (warm, cold, resumed or from a stem cell), finishing, failing, worker
//                       kills with retries, sandbox warm-up and the per-tick housekeeping;
//   sim_archipelago.cc  the SGS pools: routing load, parking, dispatch, proactive sandboxes and
//                       prewarming, hopeless-at-arrival admission, the LB epoch;
//   sim_baselines.cc    the OpenWhisk-like invokers (stem cells) and Sparrow's reservations;
//   sim_metrics.{h,cc}  what is measured (SimMetrics).
// Contracts: every generated request ends completed or failed exactly once (SimResult::lost is
// 0); a slot of runs_, warmings_ or pendings_ is reused only after it is freed; the random
// stream is drawn in event order, so equal options give equal results.
#ifndef JIGSAW_FAAS_SIM_ENGINE_H_
#define JIGSAW_FAAS_SIM_ENGINE_H_

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "core/rng.h"
#include "faas/estimator.h"
#include "faas/load_balancer.h"
#include "faas/openwhisk_balancer.h"
#include "faas/proactive.h"
#include "faas/ready_queue.h"
#include "faas/sim_metrics.h"
#include "faas/sim_records.h"
#include "faas/simulator.h"
#include "faas/worker.h"
#include "faas/workload.h"
#include "net/event_queue.h"

namespace jigsaw::faas {

enum SimEvent : uint8_t { kArrival = 1, kFinish, kWarmDone, kTick, kKill, kStemCellReady };

class Sim {
 public:
  // Throws UsageError when the options do not fit the catalog (a function larger than a
  // worker's memory, measured durations of another catalog, stem cells without room).
  Sim(const Catalog& catalog, const SimOptions& options);
  // Runs until every request ended; call once. Throws UsageError for a kill of no worker.
  SimResult Run();

 private:
  // Construction per platform (simulator.cc).
  void InitArchipelago(uint32_t worker_count);
  void InitOpenWhisk(uint32_t worker_count);
  void Dispatch(const net::Event& e);
  void FinishRun();

  // Events (sim_requests.cc; stem cells in sim_baselines.cc).
  void OnArrival(DagId dag);
  void OnFinish(uint32_t slot, uint32_t token);
  void OnWarmDone(uint32_t index);
  void OnTick();
  void OnKill(uint32_t worker);
  void OnStemCellReady(uint32_t worker, uint32_t generation);

  // A request's work (sim_requests.cc).
  bool Admitted(DagId dag);
  ReadyTask TaskOf(uint32_t request, uint32_t node, FunctionId function) const;
  void MakeReady(uint32_t request, uint32_t node);
  void Enqueue(const ReadyTask& task);
  // Starts `task` on `worker` (which has a free core); false when no sandbox fits there.
  bool Start(const ReadyTask& task, uint32_t worker);
  bool TakeSandbox(uint32_t worker, FunctionId f, bool* cold, bool* prewarm, Time* unpause);
  uint32_t NewRun(const ReadyTask& task, uint32_t worker);
  void CountStart(const ReadyTask& task, uint32_t worker, Time setup, Time unpause, bool cold,
                  bool prewarm);
  void CompleteNode(uint32_t request, uint32_t node, Time duration);
  void DispatchAfterChange(uint32_t worker);
  void FailRequest(uint32_t request);
  void StartWarming(uint32_t worker, FunctionId f);
  void KillRuns(uint32_t worker, std::vector<ReadyTask>* retry);
  void UpdateAdmission();
  void SampleMemory();

  // OpenWhisk invokers and stem cells, Sparrow reservations (sim_baselines.cc).
  bool StemCells() const {
    return options_.platform == Platform::kOpenWhisk && options_.ow_stem_cells > 0;
  }
  bool TakeStemCell(uint32_t worker, FunctionId f);
  void RefillStemCells(uint32_t worker);
  void EnqueueOpenWhisk(const ReadyTask& task);
  void EnqueueSparrow(const ReadyTask& task);
  void DispatchInvoker(uint32_t invoker);
  void DispatchSparrowWorker(uint32_t worker);
  void RequeueInvoker(uint32_t worker, std::vector<ReadyTask>* retry);
  void RequeueReservations(uint32_t worker, std::vector<ReadyTask>* retry);
  uint32_t RandomLiveWorker();

  // Archipelago's SGS pools (sim_archipelago.cc).
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
  void EnqueueSgs(const ReadyTask& task);
  void DispatchSgs(uint32_t sgs);
  void DispatchParked(uint32_t sgs);
  // Parks the queue's head when waiting for a busy or warming sandbox beats a cold start.
  bool ParkHead(uint32_t sgs, int coming);
  void PlanProactive();
  void ArchipelagoTick();
  bool HopelessAtArrival(const Request& r) const;
  void PrewarmDag(uint32_t request);
  void RequeueSgs(uint32_t worker, std::vector<ReadyTask>* retry);

  bool Measured(uint32_t request) const { return requests_[request].measured; }

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
  SimMetrics metrics_;

  std::vector<Request> requests_;
  std::vector<uint16_t> pending_;  // per request node: predecessors not yet done
  std::vector<Time> node_floor_;   // per request node: latest execution floor of its predecessors
  std::vector<Execution> runs_;
  std::vector<uint32_t> free_runs_;
  std::vector<Warming> warmings_;
  std::vector<uint32_t> free_warmings_;
  uint64_t outstanding_ = 0;
  uint64_t generated_ = 0;
  std::vector<uint32_t> live_workers_;

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
  // Admission control: per-DAG arrival rates, estimated work per request, the admitted fraction
  // and a credit per DAG (a request is admitted when the credit reaches 1: deterministic).
  std::unique_ptr<RateEstimator> dag_rate_;
  std::vector<double> dag_work_s_, admit_fraction_, admit_credit_;

  // OpenWhisk.
  std::vector<ReadyQueue> invoker_queues_;
  std::unique_ptr<OpenWhiskBalancer> invokers_;  // memory slots, home and step per function
  std::vector<char> invoker_usable_;
  std::vector<int> stem_ready_, stem_starting_;  // per invoker
  // Sparrow.
  std::vector<std::deque<uint32_t>> reservations_;
  std::vector<Pending> pendings_;
  std::vector<uint32_t> free_pendings_;
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_SIM_ENGINE_H_
