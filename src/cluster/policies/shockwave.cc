// shockwave (Shockwave, NSDI'23, as in its simulator): plans the next F rounds at once by
// maximising a dynamic Eisenberg-Gale objective (shockwave_plan.h) under finish-time-fairness
// constraints: each job's predicted finish (end of the horizon plus its unplanned remaining time
// at an equal share) must not exceed rhomax times its momentum-averaged fair-share finish-time
// target. When that is infeasible (the usual case under load), the constraints are dropped and
// the log-utility of each job that is behind its target is weighted by (ratio)^lambda (^100 if it
// needs under a round), and jobs are ranked so that high-priority ones run in earlier rounds.
// Each planned round is topped up with unplanned jobs, longest predicted remaining time first.
// The plan is recomputed on every arrival and completion and every `reopt_rounds` rounds.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <unordered_map>

#include "cluster/policies/policies.h"
#include "cluster/policies/prefix_order.h"
#include "cluster/policies/shockwave_job.h"
#include "cluster/policies/shockwave_options.h"
#include "cluster/policies/shockwave_plan.h"
#include "model/adaptation.h"
#include "model/job_spec.h"
#include "model/throughput_table.h"

namespace jigsaw {
namespace {

// Largest finite priority: keeps weight * log finite.
constexpr double kMaxPriority = 1e250;

class ShockwavePolicy : public Policy {
 public:
  explicit ShockwavePolicy(const PolicyOptions& options)
      : table_(options.throughputs),
        worker_type_(options.worker_type),
        options_(options.shockwave != nullptr ? *options.shockwave : ShockwaveOptions{}) {
    ValidateShockwaveOptions(options_);
  }

  ~ShockwavePolicy() override {
    if (!options_.report_stats || plans_ == 0) return;
    std::fprintf(stderr,
                 "shockwave: %d plans (%d with finish-time constraints relaxed), plan time mean "
                 "%.2f ms, max %.2f ms, total %.2f s; planner work max %lld units, %d plans "
                 "stopped at the work limit %lld%s; %d plans bounded to %d jobs, %lld "
                 "arrivals/completions left to the periodic re-plan (over %d active jobs); %d "
                 "solves with the local level scan (over %d jobs)\n",
                 plans_, relaxed_plans_, 1e3 * plan_s_ / plans_, 1e3 * max_plan_s_, plan_s_,
                 max_work_, limited_plans_, options_.planner_work_limit,
                 options_.planner_wall_clock_s > 0 ? " or the wall-clock limit" : "",
                 bounded_plans_, options_.max_planned_jobs, deferred_events_,
                 options_.event_replan_max_jobs, local_scans_, options_.full_scan_max_jobs);
    if (compared_ > 0) {
      std::fprintf(stderr,
                   "shockwave: planner vs CBC on %d plans: planner objective better or equal in "
                   "%d, worst relative shortfall %.3g, mean %.3g\n",
                   compared_, planner_not_worse_, worst_shortfall_, shortfall_sum_ / compared_);
    }
  }

  std::string name() const override { return "shockwave"; }
  bool PlansRounds() const override { return true; }

  // Not used by the simulator (PlansRounds); gives 1 to the jobs of the last planned round.
  std::vector<double> Allocate(const PolicyContext& context,
                               const std::vector<PolicyJob>& jobs) override {
    std::vector<double> x(jobs.size(), 0.0);
    for (size_t j = 0; j < jobs.size(); ++j) {
      x[j] = std::count(last_round_.begin(), last_round_.end(), jobs[j].id) > 0 ? 1.0 : 0.0;
    }
    return x;
  }

  std::vector<int> PlanRound(const PolicyContext& context,
                             const std::vector<PolicyJob>& jobs) override {
    if (planned_before_) {
      // Every known job, not only last round's: a co-locating wrapper (jigsaw) may have run
      // others as guests. Idempotent for jobs that did not run; each job's update is its own,
      // so the view's order serves.
      for (const PolicyJob& view : jobs) {
        // A job's progress can only have changed if its view did since its last update.
        if (view.id >= 0 && static_cast<size_t>(view.id) < seen_.size()) {
          Seen& seen = seen_[view.id];
          if (seen.steps_run == view.steps_run && seen.total_steps == view.total_steps &&
              seen.batch_size == view.batch_size) {
            continue;
          }
          seen = {view.steps_run, view.total_steps, view.batch_size};
        }
        State* state = Find(view.id);
        if (state != nullptr) state->job.SetProgress(EpochsDone(view, state->job.epochs()));
      }
      ++round_ptr_;
      if (++rounds_since_reopt_ >= ReoptRounds()) {
        rounds_since_reopt_ = 0;
        resolve_ = true;
      }
    }
    planned_before_ = true;
    for (const PolicyJob& job : jobs) {
      if (Find(job.id) != nullptr) continue;
      Index(job.id, &states_.emplace(job.id, State{MakeJob(job, context), {}}).first->second);
      admission_.push_back(job.id);
      QueueChanged();
    }
    auto stored = schedules_.find(round_ptr_);
    if (resolve_ || stored == schedules_.end()) {
      Replan(context);
      stored = schedules_.find(round_ptr_);
    }
    last_round_ = stored->second;
    if (deferred_completion_) TopUp(context);
    return last_round_;
  }

  void ObserveRun(int job_id, int round, double steps, double execution_s,
                  int batch_size) override {
    State* state = Find(job_id);
    if (state == nullptr) return;
    // Shockwave keys a measurement by the number of rounds completed when it is reported.
    state->job.RecordThroughput(round + 1, execution_s > 0 ? steps / execution_s : 0, batch_size);
  }

  void ObserveCompletion(int job_id, double now_s) override {
    if (states_.erase(job_id) == 0) return;
    Index(job_id, nullptr);
    admission_.erase(std::find(admission_.begin(), admission_.end(), job_id));
    QueueChanged();
    if (!resolve_) deferred_completion_ = true;
  }

 private:
  struct State {
    ShockwaveJob job;
    FinishTimeTarget target;  // momentum average of the fair-share finish-time estimates
  };

  // An arrival or a completion: re-plan at once (Shockwave), or with more than
  // event_replan_max_jobs active jobs at the next periodic re-plan (every reopt_rounds rounds).
  void QueueChanged() {
    reestimate_ = true;
    const int bound = options_.event_replan_max_jobs;
    if (bound <= 0 || static_cast<int>(admission_.size()) <= bound) {
      resolve_ = true;
    } else {
      ++deferred_events_;
    }
  }

  // The periodic re-plan's period: busy_reopt_rounds while events wait for it.
  int ReoptRounds() const {
    const int bound = options_.event_replan_max_jobs;
    return bound > 0 && static_cast<int>(admission_.size()) > bound ? options_.busy_reopt_rounds
                                                                    : options_.reopt_rounds;
  }

  // A planned round after completions whose re-plan was deferred: without the jobs that left,
  // and their GPUs filled in the last plan's fill order (longest predicted remaining time
  // first; jobs that arrived since wait for the next plan).
  void TopUp(const PolicyContext& context) {
    std::vector<int> ids;
    int idle = context.gpus;
    for (int id : last_round_) {
      const State* state = Find(id);
      if (state == nullptr) continue;
      ids.push_back(id);
      idle -= state->job.gpus();
    }
    if (ids.size() < last_round_.size()) {
      std::vector<int> sorted = ids;
      std::sort(sorted.begin(), sorted.end());
      for (size_t k = 0; k < fill_order_.size() && idle > 0; ++k) {
        const int id = fill_order_[k];
        const State* state = Find(id);
        if (state == nullptr || state->job.gpus() > idle ||
            std::binary_search(sorted.begin(), sorted.end(), id)) {
          continue;
        }
        idle -= state->job.gpus();
        ids.push_back(id);
      }
    }
    last_round_ = std::move(ids);
  }

  // The state of a known job, or null; ids index a vector (trace ids are dense), others a map.
  State* Find(int id) {
    if (id >= 0 && static_cast<size_t>(id) < by_id_.size()) return by_id_[id];
    if (id >= 0) return nullptr;
    auto it = states_.find(id);
    return it == states_.end() ? nullptr : &it->second;
  }
  void Index(int id, State* state) {
    if (id < 0) return;
    if (static_cast<size_t>(id) >= by_id_.size()) {
      if (state == nullptr) return;
      by_id_.resize(std::max<size_t>(2 * by_id_.size(), id + 1), nullptr);
      seen_.resize(by_id_.size());
    }
    by_id_[id] = state;
    seen_[id] = Seen{};
  }
  State& At(int id) { return *Find(id); }

  // Per-epoch profile from the throughput table: the job's batch-size schedule and, per epoch,
  // dataset / batch / throughput at that batch (the last known throughput where absent), as runs
  // of equal epochs.
  ShockwaveJob MakeJob(const PolicyJob& view, const PolicyContext& context) const {
    const JobSpec* spec = view.spec;
    const int gpus = view.scale_factor;
    if (spec != nullptr && spec->typed() && DatasetSize(spec->model) > 0 && spec->batch_size > 0 &&
        view.throughput > 0) {
      const std::string& model = spec->model;
      const long long epochs =
          std::max(1LL, EpochsSpanned(model, spec->batch_size, spec->total_steps));
      std::vector<EpochRun> runs;
      if (table_ == nullptr || spec->mode == AdaptationMode::kStatic) {
        runs.push_back({spec->batch_size, 0, epochs});
      } else {
        for (int batch : BatchSizeSchedule(spec->mode, model, spec->batch_size, gpus, epochs)) {
          if (!runs.empty() && runs.back().batch_size == batch) {
            ++runs.back().epochs;
          } else {
            runs.push_back({batch, 0, 1});
          }
        }
      }
      const double dataset = DatasetSize(model);
      double throughput = view.throughput;
      if (table_ != nullptr) {
        const double base = table_->Isolated(worker_type_, {spec->job_type, gpus});
        if (base > 0) throughput = base;
      }
      for (EpochRun& run : runs) {
        if (table_ != nullptr) {
          const double at =
              table_->Isolated(worker_type_, {MakeJobType(model, run.batch_size), gpus});
          if (at > 0) throughput = at;
        }
        run.duration_s = std::max(1.0, std::nearbyint(dataset / run.batch_size / throughput));
      }
      return ShockwaveJob(view.id, gpus, std::move(runs), dataset, context.round_s, context.now_s);
    }
    // No dataset model: pseudo-epochs of about one round each.
    const double total_s = std::max(1.0, view.total_isolated_s);
    const int epochs =
        static_cast<int>(std::clamp(std::ceil(total_s / context.round_s), 1.0, 1000.0));
    return ShockwaveJob(view.id, gpus, {EpochRun{0, std::max(1.0, total_s / epochs), epochs}}, 0,
                        context.round_s, context.now_s);
  }

  static long long EpochsDone(const PolicyJob& view, long long epochs) {
    const JobSpec* spec = view.spec;
    if (spec != nullptr && spec->typed() && DatasetSize(spec->model) > 0 && view.batch_size > 0) {
      return static_cast<long long>(
          std::floor(view.steps_run / IterationsPerEpoch(spec->model, view.batch_size)));
    }
    if (view.total_steps <= 0) return 0;
    return static_cast<long long>(std::floor(view.steps_run / view.total_steps * epochs));
  }

  void Replan(const PolicyContext& context) {
    const auto start = std::chrono::steady_clock::now();
    const int n_jobs = static_cast<int>(admission_.size());
    const int horizon = options_.future_rounds;
    const double share = std::min(1.0, context.gpus / static_cast<double>(n_jobs));
    for (int id : admission_) At(id).job.Calibrate();
    if (reestimate_) {
      for (int id : admission_) {
        State& state = At(id);
        const double finish = state.job.submit_s() +
                              (state.job.CompletedRuntime() + state.job.RemainingRuntime()) / share;
        state.target.Add(round_ptr_, finish);
      }
      reestimate_ = false;
    }

    const double horizon_end_s = context.round_s * (round_ptr_ + horizon);
    std::vector<double> remaining(n_jobs), priorities(n_jobs);
    std::vector<int> gpus(n_jobs);
    std::vector<ShockwavePlanJob> plan_jobs(n_jobs);
    for (int i = 0; i < n_jobs; ++i) {
      const State& state = At(admission_[i]);
      const ShockwaveJob& job = state.job;
      remaining[i] = job.RemainingRuntime();
      gpus[i] = job.gpus();
      const double target = state.target.Value(round_ptr_);
      ShockwavePlanJob& plan_job = plan_jobs[i];
      plan_job.gpus = job.gpus();
      plan_job.epochs = static_cast<double>(job.epochs());
      plan_job.epochs_done = static_cast<double>(job.progress());
      plan_job.epoch_s = job.InterpolatedEpochDuration();
      plan_job.remaining_s = remaining[i];
      plan_job.max_remaining_s = (options_.rhomax * target - horizon_end_s) * share;
      const double ratio = (context.round_s * round_ptr_ + remaining[i] / share) / target;
      priorities[i] = 1;
      if (ratio > options_.rhomax) {
        const double power = remaining[i] < context.round_s ? 100 : options_.lambda;
        priorities[i] = std::min(kMaxPriority, std::pow(ratio, power));
      }
    }

    // The jobs the plan covers (indices into admission_, ascending): all of them, or under
    // max_planned_jobs the first by priority.
    const std::vector<int> planned = PlannedJobs(priorities);
    const int n_planned = static_cast<int>(planned.size());
    if (n_planned < n_jobs) ++bounded_plans_;
    ShockwavePlanProblem problem;
    problem.gpus = context.gpus;
    problem.rounds = horizon;
    problem.round_s = context.round_s;
    problem.k = options_.k;
    problem.bases = options_.log_bases;
    std::vector<double> planned_priorities(n_planned);
    std::vector<int> planned_gpus(n_planned);
    for (int p = 0; p < n_planned; ++p) {
      problem.jobs.push_back(plan_jobs[planned[p]]);
      planned_priorities[p] = priorities[planned[p]];
      planned_gpus[p] = gpus[planned[p]];
    }

    std::vector<std::vector<int>> schedule;
    ShockwavePlan plan = Solve(problem, &schedule);
    bool ranked = !options_.use_cbc;
    if (!plan.feasible) {
      ++relaxed_plans_;
      for (int p = 0; p < n_planned; ++p) {
        problem.jobs[p].weight = planned_priorities[p];
        problem.jobs[p].max_remaining_s = ShockwavePlanJob().max_remaining_s;
      }
      plan = Solve(problem, &schedule);
      ranked = true;
      if (!plan.feasible) plan.rounds.assign(n_planned, 0);
    }
    if (ranked) {
      schedule = RankRounds(plan.rounds, planned_priorities, planned_gpus, context.gpus, horizon);
    }
    if (n_planned < n_jobs) {
      for (std::vector<int>& round : schedule) {
        for (int& p : round) p = planned[p];  // ascending stays ascending
      }
    }

    // Work-conserving fill: longest predicted remaining time first (ties: admission order). The
    // order is sorted only as far as the fill reads it.
    PrefixOrder by_remaining(n_jobs, [&](int a, int b) {
      return remaining[a] > remaining[b] || (remaining[a] == remaining[b] && a < b);
    });
    chosen_.assign(n_jobs, 0);
    schedules_.clear();
    for (int t = 0; t < horizon; ++t) {
      std::vector<int> ids;
      int idle = context.gpus;
      for (int i : schedule[t]) {
        chosen_[i] = 1;
        ids.push_back(admission_[i]);
        idle -= gpus[i];
      }
      for (int k = 0; k < n_jobs && idle > 0; ++k) {
        const int i = by_remaining.At(k);
        if (chosen_[i] || gpus[i] > idle) continue;
        idle -= gpus[i];
        ids.push_back(admission_[i]);
      }
      for (int i : schedule[t]) chosen_[i] = 0;
      schedules_[round_ptr_ + t] = std::move(ids);
    }
    fill_order_.clear();
    deferred_completion_ = false;
    if (options_.event_replan_max_jobs > 0 && n_jobs > options_.event_replan_max_jobs) {
      for (int k = 0; k < n_jobs; ++k) fill_order_.push_back(admission_[by_remaining.At(k)]);
    }
    resolve_ = false;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++plans_;
    plan_s_ += elapsed;
    max_plan_s_ = std::max(max_plan_s_, elapsed);
  }

  // Indices into admission_ (ascending) of the jobs a plan covers: all, or with more than
  // max_planned_jobs, that many with the highest priority (ties: admission order).
  std::vector<int> PlannedJobs(const std::vector<double>& priorities) const {
    const int n_jobs = static_cast<int>(priorities.size());
    std::vector<int> planned(n_jobs);
    for (int i = 0; i < n_jobs; ++i) planned[i] = i;
    const int bound = options_.max_planned_jobs;
    if (bound <= 0 || n_jobs <= bound) return planned;
    std::nth_element(planned.begin(), planned.begin() + bound, planned.end(), [&](int a, int b) {
      return priorities[a] > priorities[b] || (priorities[a] == priorities[b] && a < b);
    });
    planned.resize(bound);
    std::sort(planned.begin(), planned.end());
    return planned;
  }

  ShockwavePlan Solve(const ShockwavePlanProblem& problem,
                      std::vector<std::vector<int>>* schedule) {
    const int full_scan = options_.full_scan_max_jobs;
    const bool local_scan = full_scan > 0 && static_cast<int>(problem.jobs.size()) > full_scan;
    local_scans_ += local_scan;
    ShockwavePlan plan = SolveShockwavePlan(
        problem, {options_.planner_work_limit, options_.planner_wall_clock_s, local_scan});
    max_work_ = std::max(max_work_, plan.work);
    limited_plans_ += plan.limited;
    if (!options_.use_cbc) return plan;
    ShockwavePlan exact = SolveShockwaveMilpWithCbc(problem, options_.solver_timeout_s,
                                                    options_.solver_rel_gap, schedule);
    if (exact.feasible && plan.feasible) {
      ++compared_;
      const double shortfall =
          (exact.objective - plan.objective) / std::max(1e-12, std::abs(exact.objective));
      if (shortfall <= 0) ++planner_not_worse_;
      worst_shortfall_ = std::max(worst_shortfall_, shortfall);
      shortfall_sum_ += std::max(0.0, shortfall);
    }
    return exact.feasible ? exact : plan;
  }

  const ThroughputTable* table_;
  std::string worker_type_;
  ShockwaveOptions options_;
  std::map<int, State> states_;  // node-based: by_id_'s pointers stay valid
  std::vector<State*> by_id_;    // states_ by non-negative id, null where unknown
  // By non-negative id: the view a job's progress was last set from (NaN: not yet).
  struct Seen {
    double steps_run = std::numeric_limits<double>::quiet_NaN();
    double total_steps = 0;
    int batch_size = 0;
  };
  std::vector<Seen> seen_;
  std::vector<int> admission_;  // active job ids in admission order
  std::map<int, std::vector<int>> schedules_;
  std::vector<int> last_round_;
  std::vector<char> chosen_;  // Replan's scratch: by admission index, planned in the round
  // With deferred re-plans: the last plan's fill order (ids), and whether a job left since.
  std::vector<int> fill_order_;
  bool deferred_completion_ = false;
  int round_ptr_ = 0;
  int rounds_since_reopt_ = 0;
  bool planned_before_ = false;
  bool resolve_ = true;
  bool reestimate_ = true;
  // Statistics.
  int plans_ = 0;
  int relaxed_plans_ = 0;
  int bounded_plans_ = 0;
  int local_scans_ = 0;
  long long deferred_events_ = 0;
  long long max_work_ = 0;
  int limited_plans_ = 0;
  double plan_s_ = 0;
  double max_plan_s_ = 0;
  int compared_ = 0;
  int planner_not_worse_ = 0;
  double worst_shortfall_ = 0;
  double shortfall_sum_ = 0;
};

}  // namespace

std::unique_ptr<Policy> MakeShockwavePolicy(const PolicyOptions& options) {
  return std::make_unique<ShockwavePolicy>(options);
}

}  // namespace jigsaw
