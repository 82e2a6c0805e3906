// Simulator: round-based, trace-driven simulation of a GPU cluster, homogeneous or with several
// worker types (SimConfig::cluster).
//
// The round mechanism follows Gavel as extended by Shockwave, so results are comparable with
// their published simulations:
//  * Jobs are gang-scheduled: a job runs a whole round on all scale_factor GPUs or not at all.
//  * A policy computes time fractions x_j (Policy::Allocate) when jobs arrive or finish (at most
//    once per `min_reallocation_interval_s`, as Gavel), or every round if the policy asks.
//  * Each round, jobs are ranked by priority = x_j / (share of time received since the last
//    reallocation), then by deficit, then by x_j, and placed greedily while GPUs remain; jobs a
//    policy gave no allocation yet wait for the next reallocation.
//  * A scheduled job runs min(floor(throughput * round_s), remaining) iterations; a round ends
//    when its last job does, so idle time is skipped and a lone short job ends the round early.
//  * A job that did not run in the previous round pays `preemption_overhead_s` of its round.
//  * Dynamic adaptation (accordion / GNS) changes a job's batch size at round boundaries,
//    rescaling its iterations so its epoch count is preserved, and its throughput.
//  * A job that has run longer than deadline_factor x its trace duration is ended (Shockwave).
//  * Heterogeneous clusters follow Gavel: a policy's allocation is a job x worker-type matrix X;
//    time received, deficits and priorities X[j][k] / share are kept per type, and each round
//    the types are walked in order (fastest first for heterogeneity-aware policies, a seeded
//    shuffle otherwise), each placing its jobs by priority on that type; a gang never spans
//    types and a job runs on one type per round.
// Progress = throughput x time; the same inputs and seed always give the same outputs.
#ifndef JIGSAW_CLUSTER_SIMULATOR_H_
#define JIGSAW_CLUSTER_SIMULATOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/cluster_spec.h"
#include "cluster/policy.h"
#include "model/job_spec.h"
#include "model/throughput_table.h"

namespace jigsaw {

// How T_excl, a job's run time alone (behind rho and the deadline), is computed for typed jobs
// with a dataset model (docs/simulator.md):
//  * kExact: the job's own iterations: whole epochs of its profiled batch-size schedule at
//    ceil(dataset / batch) iterations each, and the last epoch only as far as the job's
//    iterations reach into it; each epoch at the throughput of its batch size;
//  * kReferenceEpochs: Shockwave's definition, every epoch in full at dataset / batch
//    iterations (a job of a tenth of an epoch counts as a whole epoch), for fidelity runs.
enum class IsolatedTime { kExact, kReferenceEpochs };

struct SimConfig {
  int gpus = 32;
  double round_s = 120;
  std::string worker_type = "v100";
  double preemption_overhead_s = 20;
  double deadline_factor = 1.5;  // 0 disables
  double min_reallocation_interval_s = 1000;
  IsolatedTime isolated_time = IsolatedTime::kExact;
  // Steady-state measurement window (Gavel): the jobs with ids in [window_begin, window_end) of a
  // continuous arrival stream; -1: no window. The window's interval runs from the arrival of job
  // window_begin to the arrival of job window_end (the last arrival if window_end is the number
  // of jobs); goodput and utilisation are integrated over that interval. With a window the run
  // stops as soon as every job in it has finished (later jobs only keep the load up).
  int window_begin = -1;
  int window_end = -1;
  bool progress = false;  // progress lines on stderr
  // Heterogeneous cluster (--cluster-spec; docs/heterogeneous.md); empty: `gpus` GPUs of
  // `worker_type`. When given, `gpus` becomes its total and `worker_type` stays the reference
  // type: throughputs, T_excl, rho and the deadline are counted at its speed, and a job on type k
  // runs at T_k / T_reference of it (progress in reference iterations is the same thing as
  // iterations). Type-less jobs run equally fast on every type. `seed` orders the types for
  // heterogeneity-agnostic policies each round.
  ClusterSpec cluster;
  uint64_t seed = 0;
  // Tests only: every round recomputes every job's priority and heaps all of them (the plain
  // form of the round mechanism that the incremental selection must reproduce exactly).
  bool reference_pick = false;
};

struct JobRecord {
  int id = 0;
  std::string job_type;  // or "untyped"
  int scale_factor = 1;
  std::string mode;
  double arrival_s = 0;
  double start_s = -1;  // first round it ran
  double finish_s = -1;
  double jct_s = 0;
  double isolated_s = 0;  // T_excl: run time alone on its GPUs, with its batch-size schedule
  double rho = 0;         // finish-time fairness, Shockwave's static-contention definition
  double gpu_s = 0;       // GPU-seconds received
  int rounds_run = 0;
  int final_batch_size = 0;
  bool hit_deadline = false;
};

struct RoundRecord {
  int index = 0;
  double start_s = 0;
  double end_s = 0;
  int active_jobs = 0;
  int gpus_used = 0;
  std::vector<int> scheduled;  // job ids, in placement order
  std::vector<int> colocated;  // the subset running as guests on another job's GPUs
};

// What the SPB plans of a planner that reports them (Policy::ReportsSpb) did over the run, and
// inside the measurement window (docs/jigsaw.md, "Metrics"): job-rounds per plan (adaptive
// rounds include the warm-up; `adaptive_frozen` those in a frozen phase), GPU-seconds freed (for
// every job-round, its GPUs x run time x (1 - the busiest GPU's compute share of its plan)) and
// GPU-seconds of guests running in freed capacity (on a staircase's idle workers or a frozen
// phase's freed share).
struct SpbTotals {
  long long job_rounds_full = 0, job_rounds_staircase = 0, job_rounds_adaptive = 0;
  long long job_rounds_adaptive_frozen = 0;
  double gpu_s_freed = 0, guest_gpu_s_in_freed = 0;
  double window_gpu_s_freed = 0, window_guest_gpu_s_in_freed = 0;
};

struct SimResult {
  std::string policy;
  int gpus = 0;
  double round_s = 0;
  std::vector<JobRecord> jobs;  // by id
  std::vector<RoundRecord> rounds;
  double makespan_s = 0;
  double busy_gpu_s = 0;  // sum over rounds of GPU-seconds held by running jobs
  // Normalised goodput integrated over time: for every round a job ran, the GPU-seconds its
  // iterations would take alone, at full backprop, on its gang (steps / isolated throughput x
  // GPUs). Restart overheads, waiting and slow-downs do not count.
  double useful_gpu_s = 0;
  int reallocations = 0;
  double wall_s = 0;
  int jobs_finished = 0;  // fewer than jobs.size() only when a window ended the run early
  // The measurement window, when one was given (SimConfig): its interval and the normalised
  // goodput (as useful_gpu_s) and GPU-seconds held (as busy_gpu_s) inside it.
  bool has_window = false;
  int window_begin = 0, window_end = 0;
  double window_start_s = 0, window_end_s = 0;
  double window_useful_gpu_s = 0, window_busy_gpu_s = 0;
  bool has_spb = false;  // the policy reports SPB plans
  SpbTotals spb;
  // Heterogeneous clusters only: GPU-seconds held per SimConfig::cluster entry.
  std::vector<double> busy_gpu_s_by_type;
};

class Simulator {
 public:
  // `table` may be null only when every job is type-less. Throws InputError (naming the job's
  // trace line) when a typed job's (job type, scale factor) has no throughput.
  Simulator(const Trace& trace, const ThroughputTable* table, Policy* policy, SimConfig config);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  SimResult Run();

 private:
  struct Impl;
  Impl* impl_;
};

// Isolated run time of a job (T_excl in Shockwave's rho): for typed jobs with a dataset model,
// the sum over its epochs of the epoch's iterations / throughput at that epoch's batch size
// under its adaptation mode, as `model` says; the trace's step count divided by throughput for
// jobs without a dataset model; the work itself for type-less jobs. O(batch-size changes).
double IsolatedRunTime(const JobSpec& job, const ThroughputTable* table,
                       const std::string& worker_type, IsolatedTime model = IsolatedTime::kExact);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_SIMULATOR_H_
