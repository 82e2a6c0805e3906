#include "cluster/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "core/error.h"
#include "core/limits.h"
#include "core/progress.h"
#include "core/repeated_sum.h"
#include "core/rng.h"
#include "model/adaptation.h"

namespace jigsaw {
namespace {

// Throughput of a typed job in iterations/s, or 0 if the table lacks it.
double LookUpThroughput(const ThroughputTable* table, const std::string& worker_type,
                        const std::string& job_type, int scale_factor) {
  if (table == nullptr) return 0;
  return table->Isolated(worker_type, {job_type, scale_factor});
}

}  // namespace

double IsolatedRunTime(const JobSpec& job, const ThroughputTable* table,
                       const std::string& worker_type, IsolatedTime model) {
  if (!job.typed()) return job.total_steps;
  const double base = LookUpThroughput(table, worker_type, job.job_type, job.scale_factor);
  if (base <= 0) return 0;
  if (DatasetSize(job.model) == 0 || job.batch_size == 0) return job.total_steps / base;
  const bool exact = model == IsolatedTime::kExact;
  if (exact && job.mode == AdaptationMode::kStatic) return job.total_steps / base;
  const long long epochs = EpochsSpanned(job.model, job.batch_size, job.total_steps);
  if (epochs <= 0) return 0;
  // Runs of equal batch sizes: one throughput lookup per run, sums as the per-epoch loop's.
  std::vector<std::pair<int, long long>> runs;
  if (job.mode == AdaptationMode::kStatic) {
    runs.push_back({job.batch_size, epochs});
  } else {
    for (int batch :
         BatchSizeSchedule(job.mode, job.model, job.batch_size, job.scale_factor, epochs)) {
      if (!runs.empty() && runs.back().first == batch) {
        ++runs.back().second;
      } else {
        runs.push_back({batch, 1});
      }
    }
  }
  // The last epoch's share of a whole one (the epoch count is that of the initial batch size,
  // which batch-size changes preserve).
  const double last_share =
      job.total_steps / IterationsPerEpoch(job.model, job.batch_size) - (epochs - 1);
  const double dataset = DatasetSize(job.model);
  double total = 0;
  double throughput = base;
  for (size_t r = 0; r < runs.size(); ++r) {
    const int batch = runs[r].first;
    const double at_batch =
        LookUpThroughput(table, worker_type, MakeJobType(job.model, batch), job.scale_factor);
    if (at_batch > 0) throughput = at_batch;
    if (!exact) {
      total = RepeatedSum(total, dataset / batch / throughput, runs[r].second);
      continue;
    }
    const double epoch_s = static_cast<double>(IterationsPerEpoch(job.model, batch)) / throughput;
    const bool last_run = r + 1 == runs.size();
    total = RepeatedSum(total, epoch_s, runs[r].second - (last_run ? 1 : 0));
    if (last_run) total += last_share * epoch_s;
  }
  return total;
}

struct Simulator::Impl {
  struct Job {
    const JobSpec* spec = nullptr;
    int original_batch = 0;
    int batch = 0;
    std::string job_type;
    double total_steps = 0;
    double steps_run = 0;
    double throughput = 0;
    // Gavel round-mechanism state.
    double time_since_reset = 0;  // "job_time_so_far"
    double deficit = 0;
    double allocation = 0;
    bool has_allocation = false;
    double priority = 0;
    // Accounting.
    double run_time = 0;
    double gpu_s = 0;
    int rounds_run = 0;
    int last_round = -1000;  // last round it was scheduled in
    int round_before_last = -1000;
    double start_s = -1;
    bool want_bigger = false;
    bool want_smaller = false;
    size_t order = 0;           // insertion order, the stable tie-breaker
    int picked_in_round = -1;   // the round a planner last placed it in
    unsigned rank_version = 0;  // incremental selection: its current entry in rank_heap
    int id = 0;                 // spec->id, kept here for the selection's passes
    // Heterogeneous clusters, per SimConfig::cluster entry: speed relative to the reference
    // type (0: cannot run there), and the round mechanism's state per type.
    std::vector<double> type_rate, type_time, type_deficit, type_allocation, type_priority;
  };

  struct RunningEntry {
    Job* job;
    double steps;
    double finish_s;
    bool guest;     // shares its host's GPUs: they are counted once, for the host
    double rate;    // fraction of isolated full-backprop speed this round
    int type = -1;  // heterogeneous clusters: the worker type it ran on
    Policy::SpbRound spb = {};
  };

  // A job chosen for the round: on its own gang, or as a guest on another job's GPUs, at `rate`
  // times its isolated throughput.
  struct Pick {
    Job* job;
    double rate = 1.0;
    bool guest = false;
    int type = -1;              // heterogeneous clusters: the worker type it runs on
    Policy::SpbRound spb = {};  // the SPB plan a planner chose (ReportsSpb())
  };

  const Trace& trace;
  const ThroughputTable* table;
  Policy* policy;
  SimConfig config;

  std::vector<std::unique_ptr<Job>> active;
  std::unordered_map<int, Job*> active_by_id;
  // The policy's view of `active`, index for index, kept up to date as jobs arrive, run and
  // leave, so that a round touches only the jobs that changed (plus elapsed_s, a sequential pass).
  std::vector<PolicyJob> view_buffer;
  std::vector<size_t> view_index_by_id;  // trace id -> index in active / view_buffer
  std::vector<char> finished_by_id;      // trace id -> completed (awaiting removal or removed)
  bool trace_has_adaptive = false;       // some job may change its batch size
  std::vector<Job*> pick_heap;
  // Incremental round selection (PickJobs on identical GPUs with fixed throughputs; see
  // PickJobsIncrementally). Jobs with a positive allocation sit in a max-heap by
  // allocation / time_since_reset, which only changes when a job runs (a new entry then replaces
  // the old one) or at a reset; jobs with priority 0 are listed apart.
  struct RankEntry {
    double key;  // allocation / time_since_reset when pushed
    size_t order;
    Job* job;
    int id;  // checked in finished_by_id before `job` is used
    unsigned version;
  };
  struct JobRef {
    Job* job;
    int id;
  };
  bool incremental_pick = false;
  std::vector<RankEntry> rank_heap;
  size_t stale_entries = 0;           // entries in rank_heap replaced by a newer one
  std::vector<RankEntry> rank_taken;  // this round's entries popped from rank_heap
  std::vector<JobRef> zero_priority;  // no allocation yet, or allocation 0
  std::vector<JobRef> picked_last;    // the last round's picks: their keys changed
  size_t rank_reach = 0;              // entries the last round's placement looked at
  bool rank_ties_wide = false;  // until the next reset: the margin takes in too many jobs (e.g.
                                // equal allocations), rank every job instead
  int wide_epochs = 0;          // resets in a row that found the margin too wide
  std::vector<JobRecord> records;
  double worker_time_since_reset = 0;
  double last_reset_s = 0;
  bool need_reallocation = false;
  size_t inserted = 0;
  // Heterogeneous clusters.
  bool hetero = false;
  std::vector<double> worker_type_time;  // per type, Gavel's worker_time_so_far
  std::vector<int> fastest_first;        // type indices, fastest on the trace's jobs first
  Rng type_shuffle{0};

  Impl(const Trace& t, const ThroughputTable* tab, Policy* p, SimConfig c)
      : trace(t), table(tab), policy(p), config(std::move(c)) {
    hetero = !config.cluster.empty();
    if (hetero) {
      config.gpus = TotalGpus(config.cluster);
      worker_type_time.assign(config.cluster.size(), 0.0);
      type_shuffle = Rng(config.seed ^ 0x6865746572ULL);
    }
  }

  double Throughput(const Job& job) const {
    if (!job.spec->typed()) return 1.0;
    return LookUpThroughput(table, config.worker_type, job.job_type, job.spec->scale_factor);
  }

  bool Adaptive(const Job& job) const {
    return job.spec->typed() && job.spec->mode != AdaptationMode::kStatic &&
           DatasetSize(job.spec->model) > 0 && job.original_batch > 0;
  }

  void Validate() const {
    RequireCountInRange("--gpus", config.gpus, 1, kMaxGpus);
    RequireOptionInRange("--round-s", config.round_s, kMinRoundS, kMaxRoundS);
    RequireOptionInRange("--preemption-overhead-s", config.preemption_overhead_s, 0,
                         kMaxSimSeconds);
    RequireOptionInRange("--deadline-factor", config.deadline_factor, 0, kMaxDeadlineFactor);
    RequireOptionInRange("--min-reallocation-interval-s", config.min_reallocation_interval_s, 0,
                         kMaxSimSeconds);
    if (config.window_begin >= 0 || config.window_end >= 0) {
      const int jobs = static_cast<int>(trace.jobs.size());
      if (config.window_begin < 0 || config.window_begin >= config.window_end ||
          config.window_end > jobs) {
        throw UsageError(
            "--measure-window must be BEGIN:END with 0 <= BEGIN < END <= " + std::to_string(jobs) +
            " (the jobs in the trace), got " + std::to_string(config.window_begin) + ":" +
            std::to_string(config.window_end));
      }
    }
    for (const JobSpec& spec : trace.jobs) {
      if (spec.scale_factor > config.gpus) {
        throw InputError(spec.source, 0,
                         "job needs " + std::to_string(spec.scale_factor) +
                             " GPUs but the cluster has " + std::to_string(config.gpus) +
                             " (expected scale_factor <= --gpus)");
      }
      if (!spec.typed()) {
        RequireOneIterationPerRound(spec, 1.0);
        continue;
      }
      if (table == nullptr) {
        throw InputError(
            spec.source, 0,
            "typed job '" + Excerpt(spec.job_type) + "' needs a throughput table (--throughputs)");
      }
      const double throughput =
          LookUpThroughput(table, config.worker_type, spec.job_type, spec.scale_factor);
      if (throughput <= 0) {
        throw InputError(spec.source, 0,
                         "no throughput for ('" + Excerpt(spec.job_type) + "', " +
                             std::to_string(spec.scale_factor) + ") on worker type '" +
                             Excerpt(config.worker_type) + "' in " + table->name() +
                             " (expected a positive \"null\" entry)");
      }
      RequireOneIterationPerRound(spec, throughput);
    }
    if (hetero) ValidateCluster();
  }

  // Every worker type must be in the table, and every job must fit, and run, on some type.
  void ValidateCluster() const {
    if (table != nullptr) RequireWorkerTypesInTable(config.cluster, *table);
    for (const JobSpec& spec : trace.jobs) {
      bool runs_somewhere = false;
      for (const WorkerPool& pool : config.cluster) {
        const double t = spec.typed()
                             ? LookUpThroughput(table, pool.type, spec.job_type, spec.scale_factor)
                             : 1.0;
        runs_somewhere =
            runs_somewhere || (spec.scale_factor <= pool.gpus && t * config.round_s >= 1);
      }
      if (!runs_somewhere) {
        throw InputError(spec.source, 0,
                         "job (" + Excerpt(spec.typed() ? spec.job_type : "untyped") + ", " +
                             std::to_string(spec.scale_factor) +
                             " GPUs) fits on no worker type of --cluster-spec " +
                             FormatClusterSpec(config.cluster) +
                             " (expected a type with at least that many GPUs and a throughput of "
                             "at least one iteration per round)");
      }
    }
  }

  // Speed on each type relative to the reference type, for the job's current batch size.
  void UpdateTypeRates(Job& job) const {
    job.type_rate.assign(config.cluster.size(), 0.0);
    for (size_t k = 0; k < config.cluster.size(); ++k) {
      const WorkerPool& pool = config.cluster[k];
      if (job.spec->scale_factor > pool.gpus) continue;
      if (!job.spec->typed()) {
        job.type_rate[k] = 1.0;
        continue;
      }
      const double t = LookUpThroughput(table, pool.type, job.job_type, job.spec->scale_factor);
      if (job.throughput > 0 && t * config.round_s >= 1) job.type_rate[k] = t / job.throughput;
    }
  }

  // A job that cannot run one whole iteration in a round would never progress (steps are
  // floor(throughput x round_s), as in Gavel).
  void RequireOneIterationPerRound(const JobSpec& spec, double throughput) const {
    if (throughput * config.round_s >= 1) return;
    throw InputError(spec.source, 0,
                     "the job runs " + FormatNumber(throughput) + " iterations/s, less than one " +
                         "iteration per --round-s " + FormatNumber(config.round_s) +
                         " s round, so it could never progress (expected throughput x round_s " +
                         ">= 1)");
  }

  // The isolated run time is what deadlines and fairness are measured against; past the trace
  // limit the simulation could not end in bounded time.
  void RequireBoundedIsolatedTime(const JobSpec& spec, double isolated_s) const {
    if (isolated_s <= kMaxTraceSeconds) return;
    throw InputError(spec.source, 0,
                     "the job runs " + FormatNumber(isolated_s) + " s alone, more than the " +
                         FormatNumber(kMaxTraceSeconds) + " s limit (docs/limits.md)");
  }

  void AddJob(const JobSpec& spec) {
    auto job = std::make_unique<Job>();
    job->spec = &spec;
    job->original_batch = spec.batch_size;
    job->batch = spec.batch_size;
    job->job_type = spec.job_type;
    job->total_steps = spec.total_steps;
    job->throughput = Throughput(*job);
    job->time_since_reset = config.round_s / 2.0;
    job->order = inserted++;
    job->id = spec.id;
    if (hetero) {
      UpdateTypeRates(*job);
      const size_t types = config.cluster.size();
      job->type_time.assign(types, config.round_s / 2.0);
      job->type_deficit.assign(types, 0.0);
      job->type_allocation.assign(types, 0.0);
      job->type_priority.assign(types, 0.0);
    }
    active_by_id[spec.id] = job.get();
    if (incremental_pick) zero_priority.push_back({job.get(), spec.id});
    view_index_by_id[spec.id] = active.size();
    PolicyJob& p = view_buffer.emplace_back();
    p.id = spec.id;
    p.scale_factor = spec.scale_factor;
    p.priority_weight = spec.priority_weight;
    p.arrival_s = spec.arrival_s;
    p.total_isolated_s = records[spec.id].isolated_s;
    p.spec = &spec;
    RefreshView(*job, &p);
    active.push_back(std::move(job));
    need_reallocation = true;
  }

  // The fields of a job's view that change when it runs or changes its batch size.
  void RefreshView(const Job& job, PolicyJob* view) const {
    PolicyJob& p = *view;
    p.throughput = job.throughput;
    p.remaining_steps = std::max(0.0, job.total_steps - job.steps_run);
    p.remaining_isolated_s = job.throughput > 0 ? p.remaining_steps / job.throughput : 0;
    p.attained_s = job.run_time;
    p.attained_gpu_s = job.gpu_s;
    p.batch_size = job.batch;
    p.steps_run = job.steps_run;
    p.total_steps = job.total_steps;
    if (hetero) {
      p.type_throughputs.clear();
      for (double rate : job.type_rate) p.type_throughputs.push_back(rate * job.throughput);
    }
  }

  // Drops completed jobs from `active` and the view, keeping the order of the others.
  void RemoveFinished(size_t first) {
    size_t kept = first;
    for (size_t i = first; i < active.size(); ++i) {
      if (finished_by_id[view_buffer[i].id]) continue;
      if (kept != i) {
        active[kept] = std::move(active[i]);
        view_buffer[kept] = std::move(view_buffer[i]);
        view_index_by_id[view_buffer[kept].id] = kept;
      }
      ++kept;
    }
    active.resize(kept);
    view_buffer.resize(kept);
  }

  // Accordion / GNS: decide at a round boundary whether the job asks for another batch size.
  void UpdateAdaptationRequest(Job& job) {
    if (!Adaptive(job)) return;
    const std::string& model = job.spec->model;
    const long long epoch = EpochsSpanned(model, job.batch, job.steps_run);
    const bool at_max = job.batch == GnsBatchSizeLimit(model);
    if (job.spec->mode == AdaptationMode::kGns) {
      const int sf = job.spec->scale_factor;
      if ((GnsBatchSize(model, job.original_batch, sf, epoch + 1) > job.batch ||
           GnsBatchSize(model, job.original_batch, sf, epoch) > job.batch) &&
          !at_max) {
        job.want_bigger = true;
      }
      return;
    }
    if (AccordionMaxBatchSize(model) == 0) return;  // accordion does not apply
    const bool critical = InAccordionCriticalRegime(model, job.original_batch, epoch);
    if (job.batch == job.original_batch && !critical) {
      if (!at_max) job.want_bigger = true;
    } else if (job.batch != job.original_batch && critical) {
      if (job.batch != MinBatchSize(model)) job.want_smaller = true;
    }
  }

  // Applies a pending batch-size request after the job has run, preserving its epoch count.
  void ApplyAdaptationRequest(Job& job) {
    if (!job.want_bigger && !job.want_smaller) return;
    const bool bigger = job.want_bigger;
    job.want_bigger = job.want_smaller = false;
    const std::string& model = job.spec->model;
    const int max_batch = AccordionMaxBatchSize(model);
    if (max_batch > 0 && job.original_batch == max_batch) return;
    int new_batch = job.batch;
    if (job.spec->mode == AdaptationMode::kGns) {
      new_batch = 2 * job.batch;
    } else if (job.spec->mode == AdaptationMode::kAccordion) {
      new_batch = bigger ? max_batch : job.original_batch;
    }
    if (new_batch == job.batch) return;
    const std::string new_type = MakeJobType(model, new_batch);
    const double new_throughput =
        LookUpThroughput(table, config.worker_type, new_type, job.spec->scale_factor);
    if (new_throughput <= 0) return;  // Not profiled: keep the old batch size.
    const double old_per_epoch = static_cast<double>(IterationsPerEpoch(model, job.batch));
    const double new_per_epoch = static_cast<double>(IterationsPerEpoch(model, new_batch));
    const double old_epochs = std::ceil(job.total_steps / old_per_epoch);
    double new_total = std::ceil(job.total_steps * job.batch / static_cast<double>(new_batch));
    if (std::ceil(new_total / new_per_epoch) != old_epochs) new_total = new_per_epoch * old_epochs;
    job.total_steps = new_total;
    job.steps_run = std::ceil(job.steps_run / old_per_epoch) * new_per_epoch;
    job.batch = new_batch;
    job.job_type = new_type;
    job.throughput = new_throughput;
    if (hetero) UpdateTypeRates(job);
  }

  const std::vector<PolicyJob>& PolicyView(double now) {
    for (PolicyJob& p : view_buffer) p.elapsed_s = now - p.arrival_s;
    return view_buffer;
  }

  // One job's part of a reset: its deficit gains what it was owed since the last reset less what
  // it received, and its time since reset restarts at half a round.
  void ResetJobTime(Job& job, double elapsed) {
    const double received = job.time_since_reset - config.round_s / 2.0;
    const double owed = job.has_allocation ? job.allocation * elapsed : 0.0;
    job.deficit += owed - received;
    job.time_since_reset = config.round_s / 2.0;
    worker_time_since_reset += job.time_since_reset;
  }

  static void SetAllocation(Job& job, double fraction) {
    job.allocation = std::clamp(fraction, 0.0, 1.0);
    job.has_allocation = true;
  }

  void ResetTimeSinceReset(double now) {
    const double elapsed = now - last_reset_s;
    worker_time_since_reset = 0;
    for (auto& job : active) ResetJobTime(*job, elapsed);
    if (hetero) {
      std::fill(worker_type_time.begin(), worker_type_time.end(), 0.0);
      for (auto& job : active) {
        for (size_t k = 0; k < worker_type_time.size(); ++k) {
          const double received = job->type_time[k] - config.round_s / 2.0;
          const double owed = job->has_allocation ? job->type_allocation[k] * elapsed : 0.0;
          job->type_deficit[k] += owed - received;
          job->type_time[k] = config.round_s / 2.0;
          worker_type_time[k] += job->type_time[k];
        }
      }
    }
    last_reset_s = now;
  }

  PolicyContext Context(double now) const {
    PolicyContext context;
    context.now_s = now;
    context.gpus = config.gpus;
    context.round_s = config.round_s;
    context.jobs_in_trace = static_cast<int>(trace.jobs.size());
    for (const WorkerPool& pool : config.cluster) {
      context.worker_types.push_back(pool.type);
      context.worker_gpus.push_back(pool.gpus);
    }
    return context;
  }

  void Reallocate(double now, int* reallocations) {
    if (hetero) {
      ReallocateByType(now);
      ++*reallocations;
      return;
    }
    const std::vector<double> fractions = policy->Allocate(Context(now), PolicyView(now));
    for (size_t i = 0; i < active.size(); ++i) SetAllocation(*active[i], fractions.at(i));
    ++*reallocations;
  }

  // Heterogeneous clusters: the policy's X (aware), or its x_j spread over the types in
  // proportion to their GPUs (agnostic).
  void ReallocateByType(double now) {
    const PolicyContext context = Context(now);
    const std::vector<PolicyJob>& view = PolicyView(now);
    std::vector<std::vector<double>> x;
    if (policy->HeterogeneityAware()) {
      x = policy->AllocateByType(context, view);
    } else {
      const std::vector<double> fractions = policy->Allocate(context, view);
      for (double f : fractions) {
        std::vector<double>& row = x.emplace_back();
        for (const WorkerPool& pool : config.cluster) {
          row.push_back(std::clamp(f, 0.0, 1.0) * (pool.gpus / static_cast<double>(config.gpus)));
        }
      }
    }
    if (x.size() != active.size()) {
      throw std::logic_error("policy " + policy->name() + " allocated " + std::to_string(x.size()) +
                             " jobs of " + std::to_string(active.size()));
    }
    for (size_t i = 0; i < active.size(); ++i) {
      Job& job = *active[i];
      job.allocation = 0;
      for (size_t k = 0; k < config.cluster.size(); ++k) {
        const double value = k < x[i].size() ? std::clamp(x[i][k], 0.0, 1.0) : 0.0;
        job.type_allocation[k] = job.type_rate[k] > 0 ? value : 0.0;
        job.allocation += job.type_allocation[k];
      }
      job.has_allocation = true;
    }
  }

  // The order in which this round's types take their jobs: fastest first for aware policies (as
  // Gavel's v100, p100, k80), a seeded shuffle for agnostic ones (Gavel shuffles too).
  std::vector<int> RoundTypeOrder() {
    std::vector<int> order = fastest_first;
    if (!policy->HeterogeneityAware()) {
      for (size_t i = order.size(); i > 1; --i) {
        std::swap(order[i - 1], order[type_shuffle.UniformInt(i)]);
      }
    }
    return order;
  }

  void UpdatePriorities(double now, int* reallocations) {
    const bool interval_elapsed = now - last_reset_s >= config.min_reallocation_interval_s;
    if (policy->ReallocateEveryRound() ||
        (need_reallocation && (interval_elapsed || last_reset_s == 0))) {
      if (incremental_pick) {
        ResetAndReallocate(now, reallocations);
      } else {
        ResetTimeSinceReset(now);
        Reallocate(now, reallocations);
      }
      need_reallocation = false;
    }
    if (incremental_pick) return;  // PickJobs computes the priorities it needs
    for (auto& job : active) {
      job->priority = PriorityOf(*job);
      for (size_t k = 0; k < worker_type_time.size(); ++k) {
        const double share =
            worker_type_time[k] == 0 ? 0.0 : job->type_time[k] / worker_type_time[k];
        const double x = job->type_allocation[k];
        if (!job->has_allocation || x == 0 || job->type_rate[k] <= 0) {
          job->type_priority[k] = 0;
        } else {
          job->type_priority[k] = share > 0 ? x / share : x * 1e9;
        }
      }
    }
  }

  // Gavel's per-type placement: for each type in RoundTypeOrder, its jobs by priority on that
  // type (then deficit, allocation, insertion order); a job runs on the first type that takes
  // it. Unlike Gavel, this is done in two passes: first only jobs the allocation puts on the type
  // (priority > 0), then, with the GPUs left, the others (work conservation). Gavel's single
  // pass lets jobs with no share of the first type fill it while their own types idle. As in
  // PickJobs, a job without an allocation yet holds its GPUs but does not run.
  std::vector<Pick> PickJobsByType(int round) {
    std::vector<Pick> picked;
    const bool skip_zero_priority = policy->RunsOnlyAllocatedJobs();
    const std::vector<int> type_order = RoundTypeOrder();
    std::vector<int> free = FreeGpusByType();
    std::vector<Job*> order;
    for (int pass = 0; pass < (skip_zero_priority ? 1 : 2); ++pass) {
      for (int k : type_order) {
        order.clear();
        for (auto& job : active) {
          if (job->picked_in_round != round && job->type_rate[k] > 0 &&
              (pass == 1 || job->type_priority[k] > 0)) {
            order.push_back(job.get());
          }
        }
        std::sort(order.begin(), order.end(), [k](const Job* a, const Job* b) {
          if (a->type_priority[k] != b->type_priority[k]) {
            return a->type_priority[k] > b->type_priority[k];
          }
          if (a->type_deficit[k] != b->type_deficit[k]) {
            return a->type_deficit[k] > b->type_deficit[k];
          }
          if (a->type_allocation[k] != b->type_allocation[k]) {
            return a->type_allocation[k] > b->type_allocation[k];
          }
          return a->order < b->order;
        });
        for (Job* job : order) {
          if (free[k] <= 0) break;
          if (job->throughput <= 0) continue;
          if (job->spec->scale_factor > free[k]) continue;
          free[k] -= job->spec->scale_factor;
          job->picked_in_round = round;
          if (job->has_allocation) picked.push_back({job, job->type_rate[k], false, k});
        }
      }
    }
    return picked;
  }

  // The first type, in `order`, with room for the job's gang and a speed for it; -1 if none.
  int PlaceOnType(const Job& job, const std::vector<int>& order, std::vector<int>* free) const {
    for (int k : order) {
      if (job.type_rate[k] > 0 && job.spec->scale_factor <= (*free)[k]) {
        (*free)[k] -= job.spec->scale_factor;
        return k;
      }
    }
    return -1;
  }

  std::vector<int> FreeGpusByType() const {
    std::vector<int> free;
    for (const WorkerPool& pool : config.cluster) free.push_back(pool.gpus);
    return free;
  }

  // Ranking policies on a heterogeneous cluster: aware ones on the type their X names (others,
  // fastest first, if it is full), agnostic ones on the round's shuffled type order.
  std::vector<Pick> AllocatedJobsByType() {
    std::vector<Pick> picked;
    std::vector<int> free = FreeGpusByType();
    const std::vector<int> round_order = RoundTypeOrder();
    for (auto& job : active) {
      if (job->allocation <= 0 || job->throughput <= 0) continue;
      std::vector<int> order = round_order;
      if (policy->HeterogeneityAware()) {
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
          return job->type_allocation[a] > job->type_allocation[b];
        });
      }
      const int k = PlaceOnType(*job, order, &free);
      if (k >= 0) picked.push_back({job.get(), job->type_rate[k], false, k});
    }
    return picked;
  }

  // Gavel's round priority: the job's share of the allocation over its share of the time run
  // since the last reset.
  double PriorityOf(const Job& job) const {
    const double fraction =
        worker_time_since_reset == 0 ? 0.0 : job.time_since_reset / worker_time_since_reset;
    if (!job.has_allocation || job.allocation == 0 || job.throughput <= 0) return 0;
    if (fraction > 0) return job.allocation / fraction;
    return job.allocation * 1e9;
  }

  // ResetTimeSinceReset, Reallocate and a fresh selection state in one pass over the jobs (the
  // policy sees only the view, which the reset does not change): one entry per job with a
  // positive allocation, every job unrun.
  void ResetAndReallocate(double now, int* reallocations) {
    const std::vector<double> fractions = policy->Allocate(Context(now), PolicyView(now));
    ++*reallocations;
    const double elapsed = now - last_reset_s;
    worker_time_since_reset = 0;
    rank_heap.clear();
    stale_entries = 0;
    zero_priority.clear();
    picked_last.clear();
    for (size_t i = 0; i < active.size(); ++i) {
      if (i + 8 < active.size()) {  // the jobs are scattered on the heap: fetch ahead
        const char* ahead = reinterpret_cast<const char*>(active[i + 8].get());
        __builtin_prefetch(ahead + offsetof(Job, time_since_reset));
        __builtin_prefetch(ahead + offsetof(Job, order));
      }
      Job& job = *active[i];
      ResetJobTime(job, elapsed);
      SetAllocation(job, fractions.at(i));
      if (job.allocation != 0 && job.throughput > 0) {
        rank_heap.push_back(RankEntryOf(&job));
      } else {
        zero_priority.push_back({&job, job.id});
      }
    }
    last_reset_s = now;
    std::make_heap(rank_heap.begin(), rank_heap.end(), RankBelow);
    // A policy whose allocations tie (max_min_fairness) ties again: try the selection again only
    // every 16th reallocation.
    wide_epochs = rank_ties_wide ? wide_epochs + 1 : 0;
    rank_ties_wide = wide_epochs % 16 != 0;
  }

  static RankEntry RankEntryOf(Job* job) {
    return {job->allocation / job->time_since_reset, job->order, job, job->id, ++job->rank_version};
  }

  struct RankBelowOrder {  // a function object, so that the heap operations inline it
    bool operator()(const RankEntry& a, const RankEntry& b) const {
      if (a.key != b.key) return a.key < b.key;
      return a.order > b.order;
    }
  };
  static constexpr RankBelowOrder RankBelow{};

  bool Stale(const RankEntry& entry) const {
    return finished_by_id[entry.id] || entry.version != entry.job->rank_version;
  }

  // Drops stale entries from the top of rank_heap; false if no live entry is left.
  bool LiveTop() {
    while (!rank_heap.empty() && Stale(rank_heap.front())) {
      std::pop_heap(rank_heap.begin(), rank_heap.end(), RankBelow);
      rank_heap.pop_back();
      if (stale_entries > 0) --stale_entries;
    }
    return !rank_heap.empty();
  }

  void TakeTop() {
    std::pop_heap(rank_heap.begin(), rank_heap.end(), RankBelow);
    rank_taken.push_back(rank_heap.back());
    rank_heap.pop_back();
  }

  // Greedy gang placement in `order`'s priority order (their `priority` set); returns the jobs
  // to run this round. The order is a total one (insertion order breaks the last ties), so
  // popping a heap gives the sorted order while looking only at the jobs reached before the GPUs
  // run out. `*last` is the priority of the last job looked at, `*looked_at` how many were, and
  // `*full` whether the GPUs ran out.
  std::vector<Pick> PlaceByPriority(std::vector<Job*>* order, double* last, bool* full,
                                    size_t* looked_at) const {
    auto after = [](const Job* a, const Job* b) {  // true if a ranks after b
      if (a->priority != b->priority) return a->priority < b->priority;
      if (a->deficit != b->deficit) return a->deficit < b->deficit;
      if (a->allocation != b->allocation) return a->allocation < b->allocation;
      return a->order > b->order;
    };
    std::make_heap(order->begin(), order->end(), after);
    std::vector<Pick> picked;
    int free_gpus = config.gpus;
    const bool skip_zero_priority = policy->RunsOnlyAllocatedJobs();
    auto end = order->end();
    for (; end != order->begin() && free_gpus > 0; --end) {
      std::pop_heap(order->begin(), end, after);
      Job* job = *(end - 1);
      *last = job->priority;
      if (job->throughput <= 0) continue;
      if (skip_zero_priority && job->priority <= 0) continue;
      if (job->spec->scale_factor > free_gpus) continue;
      free_gpus -= job->spec->scale_factor;
      // As in Gavel, a job that arrived after the last reallocation holds its place in the
      // ranking (its GPUs stay idle this round) but cannot run until it has an allocation.
      if (job->has_allocation) picked.push_back({job});
    }
    *full = free_gpus <= 0;
    *looked_at = static_cast<size_t>(order->end() - end);
    return picked;
  }

  std::vector<Pick> PickJobs() {
    if (incremental_pick) return PickJobsIncrementally();
    std::vector<Job*>& order = pick_heap;
    order.clear();
    for (auto& job : active) order.push_back(job.get());
    double last = 0;
    bool full = false;
    size_t looked_at = 0;
    return PlaceByPriority(&order, &last, &full, &looked_at);
  }

  // PickJobs' result from the jobs with priority 0 and the jobs with the largest keys
  // r = allocation / time_since_reset. A job's priority is p = allocation / (time_since_reset /
  // worker_time_since_reset) = r * worker_time_since_reset up to three roundings (r's, the
  // fraction's and p's, each a relative error of at most u = 2^-53), so a job whose r is below
  // (1 - 2^-44) times another's has a strictly smaller p (for normal, finite values). The top K
  // keys are taken, and every key within that margin of the K-th; each job left out then ranks
  // below every one of the first K. If the placement ends (GPUs full) at a job ranked no lower
  // than the lowest of those K, it looked at the same jobs, in the same order, as ranking all
  // of them; otherwise K grows and it is redone.
  std::vector<Pick> PickJobsIncrementally() {
    for (const JobRef& ref : picked_last) {
      Job* job = ref.job;
      if (finished_by_id[ref.id]) continue;
      if (!job->has_allocation || job->allocation == 0 || job->throughput <= 0) continue;
      rank_heap.push_back(RankEntryOf(job));
      std::push_heap(rank_heap.begin(), rank_heap.end(), RankBelow);
      ++stale_entries;
    }
    picked_last.clear();
    std::erase_if(zero_priority, [&](const JobRef& ref) { return finished_by_id[ref.id] != 0; });
    if (stale_entries > rank_heap.size() / 2 + 1024) {
      std::erase_if(rank_heap, [&](const RankEntry& e) { return Stale(e); });
      std::make_heap(rank_heap.begin(), rank_heap.end(), RankBelow);
      stale_entries = 0;
    }
    const double worker_time = worker_time_since_reset;
    size_t reach = std::max<size_t>(16, 2 * rank_reach);
    rank_taken.clear();
    std::vector<Pick> picked;
    const size_t wide = std::max<size_t>(64, active.size() / 8);
    for (;;) {
      if (rank_ties_wide) {
        std::vector<Job*>& order = pick_heap;
        order.clear();
        for (auto& job : active) {
          job->priority = PriorityOf(*job);
          order.push_back(job.get());
        }
        double last = 0;
        bool full = false;
        picked = PlaceByPriority(&order, &last, &full, &rank_reach);
        break;
      }
      while (rank_taken.size() < reach && LiveTop()) TakeTop();
      const bool complete = !LiveTop();
      bool bounded = false;  // the margin argument applies
      double threshold = 0;
      if (!complete) {
        const double key = rank_taken[reach - 1].key;
        bounded = worker_time > 1e-250 && worker_time < 1e250 && key > 1e-250 && key < 1e250;
        if (bounded) {
          const double bound = key * (1 - 0x1p-44);
          while (LiveTop() && rank_heap.front().key >= bound && rank_taken.size() <= wide) {
            TakeTop();
          }
          if (rank_taken.size() > wide) {
            rank_ties_wide = true;
            continue;
          }
          threshold = PriorityOf(*rank_taken[0].job);
          for (size_t i = 1; i < reach; ++i) {
            threshold = std::min(threshold, PriorityOf(*rank_taken[i].job));
          }
        }
      }
      std::vector<Job*>& order = pick_heap;
      order.clear();
      for (const JobRef& ref : zero_priority) order.push_back(ref.job);
      for (const RankEntry& e : rank_taken) order.push_back(e.job);
      for (Job* job : order) job->priority = PriorityOf(*job);
      double last = 0;
      bool full = false;
      picked = PlaceByPriority(&order, &last, &full, &rank_reach);
      if (complete || (bounded && full && last >= threshold)) break;
      reach = bounded ? reach * 4 : static_cast<size_t>(-1);
    }
    for (const RankEntry& e : rank_taken) {
      rank_heap.push_back(e);
      std::push_heap(rank_heap.begin(), rank_heap.end(), RankBelow);
    }
    for (const Pick& pick : picked) picked_last.push_back({pick.job, pick.job->spec->id});
    return picked;
  }

  // Reallocate and AllocatedJobs in one, for ranking policies on identical GPUs: only the jobs
  // the policy gives a share are looked at (their allocation is not stored: nothing else reads
  // it on this path).
  std::vector<Pick> RankedJobs(double now, int* reallocations) {
    const std::vector<double> fractions = policy->Allocate(Context(now), PolicyView(now));
    ++*reallocations;
    std::vector<Pick> picked;
    int free_gpus = config.gpus;
    for (size_t i = 0; i < active.size(); ++i) {
      if (std::clamp(fractions.at(i), 0.0, 1.0) <= 0) continue;
      Job* job = active[i].get();
      if (job->throughput <= 0) continue;
      if (job->spec->scale_factor > free_gpus) continue;
      free_gpus -= job->spec->scale_factor;
      picked.push_back({job});
    }
    return picked;
  }

  std::vector<Pick> AllocatedJobs() {
    if (hetero) return AllocatedJobsByType();
    std::vector<Pick> picked;
    int free_gpus = config.gpus;
    for (auto& job : active) {
      if (job->allocation <= 0 || job->throughput <= 0) continue;
      if (job->spec->scale_factor > free_gpus) continue;
      free_gpus -= job->spec->scale_factor;
      picked.push_back({job.get()});
    }
    return picked;
  }

  Job* FindActive(int id) {
    auto it = active_by_id.find(id);
    return it == active_by_id.end() || it->second->throughput <= 0 ? nullptr : it->second;
  }

  // A planner's placements, checked: inactive or repeated jobs, non-positive rates, guests that
  // would need more GPUs than their host has left and gangs that no longer fit are dropped in
  // the order given.
  std::vector<Pick> PlannedJobs(double now, int round) {
    PolicyContext context = Context(now);
    context.round = round;
    const std::vector<Policy::Placement> placements =
        policy->PlanPlacements(context, PolicyView(now));
    std::vector<Pick> picked;
    auto taken = [&](const Job* job) { return job->picked_in_round == round; };
    int free_gpus = config.gpus;
    // Heterogeneous clusters: a planner sees identical GPUs; each host goes to the first type in
    // the round's order with room, its guests run on the same type at their speed there.
    std::vector<int> free_by_type = FreeGpusByType();
    const std::vector<int> type_order = hetero ? RoundTypeOrder() : std::vector<int>{};
    for (const Policy::Placement& placement : placements) {
      Job* host = FindActive(placement.job_id);
      if (host == nullptr || taken(host) || !(placement.rate > 0)) continue;
      if (host->spec->scale_factor > free_gpus) continue;
      const int type = hetero ? PlaceOnType(*host, type_order, &free_by_type) : -1;
      if (hetero && type < 0) continue;
      const double host_rate = hetero ? host->type_rate[type] : 1.0;
      free_gpus -= host->spec->scale_factor;
      host->picked_in_round = round;
      picked.push_back({host, placement.rate * host_rate, false, type, placement.spb});
      int guest_gpus = 0;
      for (const Policy::Guest& g : placement.guests) {
        Job* guest = FindActive(g.job_id);
        if (guest == nullptr || guest == host || taken(guest) || !(g.rate > 0) ||
            guest_gpus + guest->spec->scale_factor > host->spec->scale_factor ||
            (hetero && guest->type_rate[type] <= 0)) {
          continue;
        }
        guest_gpus += guest->spec->scale_factor;
        guest->picked_in_round = round;
        picked.push_back(
            {guest, g.rate * (hetero ? guest->type_rate[type] : 1.0), true, type, g.spb});
      }
    }
    return picked;
  }

  void Complete(Job& job, double finish_s, bool hit_deadline) {
    JobRecord& r = records[job.spec->id];
    r.start_s = job.start_s;
    r.finish_s = finish_s;
    r.jct_s = finish_s - job.spec->arrival_s;
    r.gpu_s = job.gpu_s;
    r.rounds_run = job.rounds_run;
    r.final_batch_size = job.batch;
    r.hit_deadline = hit_deadline;
  }

  // Types by their geometric-mean speed relative to the reference type over the trace's typed
  // jobs (v100, p100, k80 on Gavel's table); ties keep the --cluster-spec order.
  void OrderTypesFastestFirst() {
    std::vector<double> mean(config.cluster.size(), 0.0);
    for (size_t k = 0; k < config.cluster.size(); ++k) {
      double sum = 0;
      int count = 0;
      for (const JobSpec& spec : trace.jobs) {
        if (!spec.typed()) continue;
        const double reference =
            LookUpThroughput(table, config.worker_type, spec.job_type, spec.scale_factor);
        if (reference <= 0) continue;
        const double t =
            LookUpThroughput(table, config.cluster[k].type, spec.job_type, spec.scale_factor);
        if (t <= 0) continue;
        sum += std::log(t / reference);
        ++count;
      }
      mean[k] = count > 0 ? sum / count : 0.0;
    }
    fastest_first.resize(config.cluster.size());
    for (size_t k = 0; k < fastest_first.size(); ++k) fastest_first[k] = static_cast<int>(k);
    std::stable_sort(fastest_first.begin(), fastest_first.end(),
                     [&](int a, int b) { return mean[a] > mean[b]; });
  }

  // The jobs of the last round started and their speed (iterations/s), for StalledMessage.
  std::vector<std::pair<const JobSpec*, double>> running_last_;

  std::string StalledMessage(double now,
                             const std::vector<std::pair<const JobSpec*, double>>& last) {
    std::string why;
    for (const auto& [spec, speed] : last) {
      if (spec != nullptr && speed * config.round_s < 1) {
        why = "job " + std::to_string(spec->id) + " (" + spec->source + ") runs " +
              FormatNumber(speed) + " iterations/s in its round, less than one iteration per " +
              FormatNumber(config.round_s) + " s round";
        break;
      }
    }
    if (why.empty()) {
      why = last.empty() ? "policy " + policy->name() + " scheduled no job (jobs wait for an " +
                               "allocation; --min-reallocation-interval-s " +
                               FormatNumber(config.min_reallocation_interval_s) + " s)"
                         : "the scheduled jobs ran no iteration";
    }
    return "the simulation cannot progress: no job ran an iteration, arrived or finished in " +
           std::to_string(kMaxIdleRounds) + " rounds (t=" + FormatNumber(now) + " s): " + why;
  }

  // One job-round's SPB plan into the totals (`share`: the part of the round inside the
  // measurement window).
  static void AddSpbRound(const RunningEntry& e, double execution, double share, SpbTotals* spb) {
    const double gpu_s = execution * e.job->spec->scale_factor;
    switch (e.spb.plan) {
      case Policy::SpbRoundPlan::kFull:
        ++spb->job_rounds_full;
        break;
      case Policy::SpbRoundPlan::kStaircase:
        ++spb->job_rounds_staircase;
        break;
      case Policy::SpbRoundPlan::kAdaptive:
        ++spb->job_rounds_adaptive;
        if (e.spb.compute < 1) ++spb->job_rounds_adaptive_frozen;
        break;
    }
    const double freed = gpu_s * std::max(0.0, 1.0 - e.spb.compute);
    spb->gpu_s_freed += freed;
    spb->window_gpu_s_freed += share * freed;
    if (e.spb.in_freed_capacity) {
      spb->guest_gpu_s_in_freed += gpu_s;
      spb->window_guest_gpu_s_in_freed += share * gpu_s;
    }
  }

  SimResult Run() {
    const auto wall_start = std::chrono::steady_clock::now();
    Validate();
    SimResult result;
    result.policy = policy->name();
    const bool reports_spb = policy->ReportsSpb();
    result.has_spb = reports_spb;
    result.gpus = config.gpus;
    result.round_s = config.round_s;
    records.resize(trace.jobs.size());
    view_index_by_id.assign(trace.jobs.size(), 0);
    finished_by_id.assign(trace.jobs.size(), 0);
    for (const JobSpec& spec : trace.jobs) {
      JobRecord& r = records[spec.id];
      r.id = spec.id;
      r.job_type = spec.typed() ? spec.job_type : "untyped";
      r.scale_factor = spec.scale_factor;
      r.mode = AdaptationModeName(spec.mode);
      r.arrival_s = spec.arrival_s;
      r.isolated_s = IsolatedRunTime(spec, table, config.worker_type, config.isolated_time);
      RequireBoundedIsolatedTime(spec, r.isolated_s);
      Job probe;
      probe.spec = &spec;
      probe.original_batch = spec.batch_size;
      trace_has_adaptive = trace_has_adaptive || Adaptive(probe);
    }
    incremental_pick = !hetero && !trace_has_adaptive && !config.reference_pick;

    if (hetero) {
      result.busy_gpu_s_by_type.assign(config.cluster.size(), 0.0);
      OrderTypesFastestFirst();
    }
    Progress progress("sim", config.progress);
    size_t next_arrival = 0;
    size_t remaining = trace.jobs.size();
    int window_left = 0;
    if (config.window_begin >= 0) {
      result.has_window = true;
      result.window_begin = config.window_begin;
      result.window_end = config.window_end;
      result.window_start_s = trace.jobs[config.window_begin].arrival_s;
      result.window_end_s =
          trace.jobs[std::min<size_t>(config.window_end, trace.jobs.size() - 1)].arrival_s;
      window_left = config.window_end - config.window_begin;
    }
    auto in_window = [&](int id) {
      return result.has_window && id >= config.window_begin && id < config.window_end;
    };
    // Share of [from, to] inside the window's interval.
    auto window_share = [&](double from, double to) {
      if (!result.has_window || !(to > from)) return 0.0;
      const double overlap =
          std::min(to, result.window_end_s) - std::max(from, result.window_start_s);
      return std::max(0.0, overlap) / (to - from);
    };
    std::vector<RunningEntry> running;
    double now = trace.jobs.empty() ? 0 : trace.jobs[0].arrival_s;
    double round_start = now;
    int round = 0;
    long long idle_rounds = 0;  // rounds in a row without an iteration, arrival or completion
    while (remaining > 0) {
      bool progressed = false;
      if (!running.empty()) {
        double round_end = 0;
        for (const RunningEntry& e : running) round_end = std::max(round_end, e.finish_s);
        now = round_end;
      } else if (next_arrival < trace.jobs.size()) {
        now = std::max(now, trace.jobs[next_arrival].arrival_s);
      }

      size_t first_finished = active.size();  // lowest index of a job completed this round
      // Finish the round that just ended (latest finish first, then lower id, as Gavel).
      std::sort(running.begin(), running.end(), [](const RunningEntry& a, const RunningEntry& b) {
        if (a.finish_s != b.finish_s) return a.finish_s > b.finish_s;
        return a.job->spec->id < b.job->spec->id;
      });
      for (const RunningEntry& e : running) {
        Job& job = *e.job;
        double execution = e.finish_s - round_start;
        double steps = e.steps;
        const bool ran_previous_round = job.round_before_last == round - 2;
        if (round != 1 && !ran_previous_round && execution != 0 && execution > config.round_s - 5 &&
            config.preemption_overhead_s > 0) {
          // An overhead longer than the run leaves nothing of the round (never negative work).
          const double factor =
              std::max(0.0, (execution - config.preemption_overhead_s) / execution);
          execution = std::max(0.0, execution - config.preemption_overhead_s);
          steps = std::floor(steps * factor);
        }
        policy->ObserveRun(job.spec->id, job.last_round, steps, execution, job.batch);
        // Run time for the deadline is counted at isolated speed, so a job slowed down by a
        // co-located partner is not ended early.
        job.run_time += execution * std::min(1.0, e.rate);
        job.gpu_s += execution * job.spec->scale_factor;
        const double share = window_share(round_start, e.finish_s);
        if (!e.guest) {
          result.busy_gpu_s += execution * job.spec->scale_factor;
          result.window_busy_gpu_s += share * execution * job.spec->scale_factor;
        }
        if (reports_spb) AddSpbRound(e, execution, share, &result.spb);
        // Goodput in isolated-GPU-seconds: the time these iterations take alone on the gang.
        if (job.throughput > 0) {
          const double useful = steps / job.throughput * job.spec->scale_factor;
          result.useful_gpu_s += useful;
          result.window_useful_gpu_s += share * useful;
        }
        job.steps_run += steps;
        progressed = progressed || steps > 0;
        job.time_since_reset += execution;
        worker_time_since_reset += execution;
        if (e.type >= 0) {
          job.type_time[e.type] += execution;
          worker_type_time[e.type] += execution;
          if (!e.guest) {
            result.busy_gpu_s_by_type[e.type] += execution * job.spec->scale_factor;
          }
        }
        const double profile_duration = std::floor(records[job.spec->id].isolated_s);
        const bool past_deadline =
            config.deadline_factor > 0 && profile_duration > 0 &&
            job.run_time > std::floor(profile_duration * config.deadline_factor);
        ApplyAdaptationRequest(job);
        // Rounding progress up to a whole epoch on a batch-size change can finish the job; it
        // then ends with this round (Gavel would retry it for five empty rounds first).
        const bool done = job.total_steps - job.steps_run <= 0 || past_deadline;
        if (done) {
          Complete(job, e.finish_s, past_deadline && job.total_steps - job.steps_run > 0);
          policy->ObserveCompletion(job.spec->id, now);
          active_by_id.erase(job.spec->id);
          if (in_window(job.spec->id)) --window_left;
          first_finished = std::min(first_finished, view_index_by_id[job.spec->id]);
          finished_by_id[job.spec->id] = 1;
          job.spec = nullptr;  // mark for removal
          --remaining;
          progressed = true;
          need_reallocation = true;
        } else {
          RefreshView(job, &view_buffer[view_index_by_id[job.spec->id]]);
        }
      }
      if (!running.empty()) {
        if (first_finished < active.size()) RemoveFinished(first_finished);
        running.clear();
      }
      if (remaining == 0) break;
      if (result.has_window && window_left == 0) break;  // the window is measured

      if (trace_has_adaptive) {
        for (auto& job : active) UpdateAdaptationRequest(*job);
      }
      while (next_arrival < trace.jobs.size() && trace.jobs[next_arrival].arrival_s <= now) {
        AddJob(trace.jobs[next_arrival]);
        policy->ObserveArrival(trace.jobs[next_arrival].id, now);
        ++next_arrival;
        progressed = true;
      }
      idle_rounds = progressed ? 0 : idle_rounds + 1;
      if (idle_rounds > kMaxIdleRounds) throw UsageError(StalledMessage(now, running_last_));
      if (round >= kMaxSimRounds) {
        throw UsageError("the simulation passed " + std::to_string(kMaxSimRounds) +
                         " rounds at t=" + FormatNumber(now) +
                         " s (docs/limits.md): use a longer --round-s");
      }
      if (active.empty()) continue;  // Idle cluster: jump to the next arrival.

      std::vector<Pick> picked;
      if (policy->PlansRounds()) {
        picked = PlannedJobs(now, round);
      } else if (policy->ReallocateEveryRound() && policy->RunsOnlyAllocatedJobs()) {
        // Ranking policies: their allocation is the round's job set; no priority mechanism.
        if (hetero) {
          Reallocate(now, &result.reallocations);
          picked = AllocatedJobs();
        } else {
          picked = RankedJobs(now, &result.reallocations);
        }
      } else {
        UpdatePriorities(now, &result.reallocations);
        picked = hetero ? PickJobsByType(round) : PickJobs();
      }
      RoundRecord record;
      record.index = round;
      record.start_s = now;
      record.active_jobs = static_cast<int>(active.size());
      double round_end = now;
      running_last_.clear();
      for (const Pick& pick : picked) {
        Job* job = pick.job;
        const double speed = job->throughput * pick.rate;
        running_last_.push_back({job->spec, speed});
        double steps =
            std::min(std::floor(speed * config.round_s), job->total_steps - job->steps_run);
        steps = std::max(steps, 0.0);
        const double finish = now + steps / speed;
        running.push_back({job, steps, finish, pick.guest, pick.rate, pick.type, pick.spb});
        round_end = std::max(round_end, finish);
        job->round_before_last = job->last_round;
        job->last_round = round;
        ++job->rounds_run;
        if (job->start_s < 0) job->start_s = now;
        if (pick.guest) {
          record.colocated.push_back(job->spec->id);
        } else {
          record.gpus_used += job->spec->scale_factor;
        }
        record.scheduled.push_back(job->spec->id);
      }
      record.end_s = round_end;
      if (picked.empty()) {
        // Nothing could run (e.g. every job still waits for its first allocation): advance to
        // the next arrival or the next reallocation opportunity.
        double next = now + config.round_s;
        if (next_arrival < trace.jobs.size()) {
          next = std::min(next, std::max(now, trace.jobs[next_arrival].arrival_s));
        }
        record.end_s = next;
        now = next;
        need_reallocation = true;
      }
      round_start = now;
      result.rounds.push_back(std::move(record));
      ++round;
      if (progress.Due()) {
        progress.Report(static_cast<double>(trace.jobs.size() - remaining),
                        static_cast<double>(trace.jobs.size()),
                        "round " + std::to_string(round) +
                            ", t=" + std::to_string(static_cast<long long>(now)) + " s, " +
                            std::to_string(trace.jobs.size() - remaining) + "/" +
                            std::to_string(trace.jobs.size()) + " jobs done, " +
                            std::to_string(active.size()) + " active");
      }
    }

    for (const JobRecord& r : records) result.makespan_s = std::max(result.makespan_s, r.finish_s);
    result.jobs_finished = static_cast<int>(trace.jobs.size() - remaining);
    result.jobs = std::move(records);
    result.wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    progress.Final("done: " + std::to_string(result.jobs.size()) + " jobs, " +
                   std::to_string(result.rounds.size()) + " rounds, makespan " +
                   std::to_string(std::llround(result.makespan_s)) + " s, wall " +
                   std::to_string(result.wall_s) + " s");
    return result;
  }
};

Simulator::Simulator(const Trace& trace, const ThroughputTable* table, Policy* policy,
                     SimConfig config)
    : impl_(new Impl(trace, table, policy, std::move(config))) {}

Simulator::~Simulator() { delete impl_; }

SimResult Simulator::Run() { return impl_->Run(); }

}  // namespace jigsaw
