#include "cluster/policies/shockwave_plan.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "cluster/policies/round_packing.h"
#include "solver/mixed_integer_program.h"

namespace jigsaw {
namespace {

constexpr double kEpsilon = 1e-9;
constexpr size_t kLocalSearchMaxJobs = 48;
// The local level scan first packs this many of the highest levels, as the full scan does.
constexpr size_t kProbedLevels = 2;

std::vector<double> BaseLogs(const ShockwavePlanProblem& problem) {
  std::vector<double> logs;
  for (double b : problem.bases) logs.push_back(std::log(b == 0 ? problem.log_origin : b));
  return logs;
}

double LogApproximation(const ShockwavePlanProblem& problem, const std::vector<double>& logs,
                        double u) {
  const std::vector<double>& bases = problem.bases;
  if (u <= bases.front()) return logs[0];
  for (size_t j = 0; j + 1 < bases.size(); ++j) {
    if (u <= bases[j + 1]) {
      const double t = (u - bases[j]) / (bases[j + 1] - bases[j]);
      return logs[j] + t * (logs[j + 1] - logs[j]);
    }
  }
  return logs.back();
}

double PlannableRuntime(const ShockwavePlanJob& job) {
  return std::max(0.0, job.epochs - job.epochs_done) * job.epoch_s;
}

double PlannedRuntime(const ShockwavePlanJob& job, int n, double round_s) {
  return std::min(n * round_s, PlannableRuntime(job));
}

double Utility(const ShockwavePlanProblem& problem, const std::vector<double>& logs,
               const ShockwavePlanJob& job, int n) {
  const double planned_epochs = PlannedRuntime(job, n, problem.round_s) / job.epoch_s;
  const double u = (job.epochs_done + planned_epochs) / job.epochs;
  return job.weight * LogApproximation(problem, logs, u) /
         (static_cast<double>(problem.jobs.size()) * problem.rounds);
}

double Utility(const ShockwavePlanProblem& problem, const ShockwavePlanJob& job, int n) {
  return Utility(problem, BaseLogs(problem), job, n);
}

// Rounds after which the job's planned run time stops growing.
int SaturationRounds(const ShockwavePlanJob& job, const ShockwavePlanProblem& problem) {
  const double rounds = std::ceil(PlannableRuntime(job) / problem.round_s - kEpsilon);
  return static_cast<int>(std::clamp(rounds, 0.0, static_cast<double>(problem.rounds)));
}

// The planner's budget: work units, and optionally wall-clock time (see ShockwavePlanLimits).
class WorkBudget {
 public:
  explicit WorkBudget(const ShockwavePlanLimits& limits)
      : limits_(limits), start_(std::chrono::steady_clock::now()) {}

  // Spends `units`; false once a limit is reached (and from then on).
  bool Spend(long long units) {
    used_ += units;
    if (used_ > limits_.work) exhausted_ = true;
    if (limits_.wall_clock_s > 0 && !exhausted_ &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >
            limits_.wall_clock_s) {
      exhausted_ = true;
    }
    return !exhausted_;
  }
  bool exhausted() const { return exhausted_; }
  long long used() const { return used_; }

 private:
  ShockwavePlanLimits limits_;
  std::chrono::steady_clock::time_point start_;
  long long used_ = 0;
  bool exhausted_ = false;
};

struct Unit {
  double gain_per_gpu;
  int job;
  int n;  // the job's n-th round
};

// Units in decreasing gain, ties in creation order (job, then round: the order of a stable sort
// by gain), sorted only as far as read: under load a level's greedy stops once the rounds are
// full, long before the last unit. The order is total, so every prefix is the full sort's.
class SortedUnits {
 public:
  explicit SortedUnits(std::vector<Unit> units) : units_(std::move(units)) {}
  size_t size() const { return units_.size(); }
  // The unit at position k < size().
  const Unit& At(size_t k) {
    if (k >= sorted_) {
      const size_t end = std::min(units_.size(), std::max({k + 1, size_t{256}, 2 * sorted_}));
      auto first = units_.begin() + sorted_;
      auto last = units_.begin() + end;
      if (end < units_.size()) std::nth_element(first, last, units_.end(), Before);
      std::sort(first, last, Before);
      sorted_ = end;
    }
    return units_[k];
  }

 private:
  static bool Before(const Unit& a, const Unit& b) {
    if (a.gain_per_gpu != b.gain_per_gpu) return a.gain_per_gpu > b.gain_per_gpu;
    return a.job != b.job ? a.job < b.job : a.n < b.n;
  }
  std::vector<Unit> units_;
  size_t sorted_ = 0;
};

// Per job, the utility and the planned remaining time at every count it can usefully take
// (0..saturation), computed once per plan: the level scan asks for them many times.
class JobCurves {
 public:
  explicit JobCurves(const ShockwavePlanProblem& problem) {
    const std::vector<double> logs = BaseLogs(problem);
    for (const ShockwavePlanJob& job : problem.jobs) {
      const int saturation = SaturationRounds(job, problem);
      saturation_.push_back(saturation);
      offset_.push_back(utility_.size());
      for (int n = 0; n <= saturation; ++n) {
        utility_.push_back(Utility(problem, logs, job, n));
        remaining_.push_back(PlannedRemaining(job, n, problem.round_s));
      }
    }
  }
  int saturation(size_t job) const { return saturation_[job]; }
  // n <= saturation(job).
  double utility(size_t job, int n) const { return utility_[offset_[job] + n]; }
  double remaining(size_t job, int n) const { return remaining_[offset_[job] + n]; }

 private:
  std::vector<int> saturation_;
  std::vector<size_t> offset_;
  std::vector<double> utility_, remaining_;
};

// Fewest rounds bringing rem down to `bound`, or -1 if no number of rounds does.
int MinRounds(const ShockwavePlanJob& job, const ShockwavePlanProblem& problem,
              const JobCurves& curves, size_t i, double bound) {
  const int saturation = curves.saturation(i);
  if (curves.remaining(i, saturation) > bound + kEpsilon) return -1;
  const double needed_s = job.remaining_s - bound;
  if (needed_s <= kEpsilon) return 0;
  return std::min(saturation, static_cast<int>(std::ceil(needed_s / problem.round_s - kEpsilon)));
}

// Packs the counts biggest gangs first; false if some copy finds no round.
bool PackCounts(const ShockwavePlanProblem& problem, const std::vector<int>& counts,
                std::vector<std::vector<int>>* schedule) {
  const size_t n_jobs = counts.size();
  std::vector<size_t> order(n_jobs);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return problem.jobs[a].gpus > problem.jobs[b].gpus; });
  RoundPacking packing(problem.rounds, problem.gpus, n_jobs);
  for (size_t i : order) {
    for (int c = 0; c < counts[i]; ++c) {
      if (!packing.Add(i, problem.jobs[i].gpus)) return false;
    }
  }
  if (schedule != nullptr) *schedule = packing.schedule();
  return true;
}

// "Most room" choices over a fixed number of rounds, without allocating per call.
class RoomChooser {
 public:
  RoomChooser() = default;

  // Up to `count` distinct rounds with room for `gpus`: those with the most free GPUs, earlier
  // rounds first on ties, into `chosen` (cleared first; in round order).
  void MostRoom(const std::vector<int>& free_gpus, int gpus, int count, std::vector<int>* chosen) {
    chosen->clear();
    const int horizon = static_cast<int>(free_gpus.size());
    if (count == 1) {  // the earliest round with the most room, if it has room
      int best = -1;
      for (int t = 0; t < horizon; ++t) {
        if (free_gpus[t] >= gpus && (best < 0 || free_gpus[t] > free_gpus[best])) best = t;
      }
      if (best >= 0) chosen->push_back(best);
      return;
    }
    room_.clear();
    for (int free : free_gpus) {
      if (free >= gpus) room_.push_back(free);
    }
    if (static_cast<int>(room_.size()) <= count) {
      for (int t = 0; t < horizon; ++t) {
        if (free_gpus[t] >= gpus) chosen->push_back(t);
      }
      return;
    }
    if (count <= 0) return;
    // The count-th most room, then every round with more and the earliest ones with as much.
    std::nth_element(room_.begin(), room_.begin() + (count - 1), room_.end(), std::greater<int>());
    const int threshold = room_[count - 1];
    int ties = count;
    for (int free : room_) ties -= free > threshold;
    for (int t = 0; t < horizon; ++t) {
      if (free_gpus[t] > threshold || (free_gpus[t] == threshold && ties-- > 0)) {
        chosen->push_back(t);
      }
    }
  }

  // Packs (*counts)[i] copies of each job of `biggest_first` (already in the packing order:
  // biggest gangs first) for which `skip(i)` is false into distinct rounds, each into the rounds
  // with the most room. Returns whether every copy fit; with `drop`, the counts are lowered to
  // what fit, otherwise it stops at the first copy that does not fit.
  // Without `drop` (Fits), once the single-GPU jobs are reached (the tail of biggest_first) the
  // answer comes from UnitJobsFit and *free_gpus is left as it was there.
  template <typename Skip>
  bool Pack(const std::vector<size_t>& biggest_first, const Skip& skip,
            const std::vector<int>& gpus, std::vector<int>* counts, std::vector<int>* free_gpus,
            bool drop, const std::vector<long long>* unit_histogram = nullptr) {
    if (!drop) return Fits(biggest_first, skip, gpus, *counts, free_gpus, unit_histogram);
    bool all = true;
    for (size_t q = 0; q < biggest_first.size(); ++q) {
      const size_t i = biggest_first[q];
      if ((*counts)[i] == 0 || skip(i)) continue;
      MostRoom(*free_gpus, gpus[i], (*counts)[i], &chosen_);
      for (int t : chosen_) (*free_gpus)[t] -= gpus[i];
      if (static_cast<int>(chosen_.size()) < (*counts)[i]) {
        all = false;
        if (!drop) return false;
        (*counts)[i] = static_cast<int>(chosen_.size());
      }
    }
    return all;
  }

 private:
  // Pack without `drop`: the same most-room choices, made without selecting among all rounds.
  // `unit_histogram`, if given, counts the single-GPU jobs to check by their counts (instead of
  // reading them from biggest_first). *free_gpus is left unspecified where the answer is false.
  template <typename Skip>
  bool Fits(const std::vector<size_t>& biggest_first, const Skip& skip,
            const std::vector<int>& gpus, const std::vector<int>& counts,
            std::vector<int>* free_gpus, const std::vector<long long>* unit_histogram) {
    std::vector<int>& free = *free_gpus;
    const int horizon = static_cast<int>(free.size());
    if (horizon <= 64)
      return FitsByBuckets(biggest_first, skip, gpus, counts, free_gpus, unit_histogram);
    // The rounds kept sorted by most room (earlier first on ties): taking the first `count` of
    // them and subtracting one gang from each keeps both parts sorted, so one merge restores the
    // order.
    auto more_room = [&](int a, int b) {
      return free[a] > free[b] || (free[a] == free[b] && a < b);
    };
    bool sorted = false;
    for (size_t q = 0; q < biggest_first.size(); ++q) {
      const size_t i = biggest_first[q];
      if (gpus[i] == 1) {
        if (unit_histogram != nullptr) return CountsFit(*unit_histogram, free);
        return UnitJobsFit(biggest_first, q, skip, counts, free);
      }
      const int count = counts[i];
      if (count == 0 || skip(i)) continue;
      if (!sorted) {
        by_room_.resize(horizon);
        std::iota(by_room_.begin(), by_room_.end(), 0);
        std::sort(by_room_.begin(), by_room_.end(), more_room);
        sorted = true;
      }
      if (count > horizon || free[by_room_[count - 1]] < gpus[i]) return false;
      for (int p = 0; p < count; ++p) free[by_room_[p]] -= gpus[i];
      merged_.resize(horizon);
      std::merge(by_room_.begin(), by_room_.begin() + count, by_room_.begin() + count,
                 by_room_.end(), merged_.begin(), more_room);
      std::swap(by_room_, merged_);
    }
    return true;
  }

  // Fits for up to 64 rounds: the rounds sit in buckets by free GPUs (a bit mask of rounds per
  // free count, and a bit per nonempty bucket), so a gang's rounds are the lowest bits of the
  // highest buckets, taken in O(count) bit operations.
  template <typename Skip>
  bool FitsByBuckets(const std::vector<size_t>& biggest_first, const Skip& skip,
                     const std::vector<int>& gpus, const std::vector<int>& counts,
                     std::vector<int>* free_gpus, const std::vector<long long>* unit_histogram) {
    std::vector<int>& free = *free_gpus;
    const int horizon = static_cast<int>(free.size());
    bool fits = true;
    bool bucketed = false;
    int most = 0;
    for (size_t q = 0; q < biggest_first.size(); ++q) {
      const size_t i = biggest_first[q];
      if (gpus[i] == 1) {
        fits = unit_histogram != nullptr ? CountsFit(*unit_histogram, free)
                                         : UnitJobsFit(biggest_first, q, skip, counts, free);
        break;
      }
      const int count = counts[i];
      if (count == 0 || skip(i)) continue;
      if (!bucketed) {
        for (int f : free) most = std::max(most, f);
        buckets_.Reserve(most);
        for (int t = 0; t < horizon; ++t) buckets_.Move(t, -1, std::max(0, free[t]));
        bucketed = true;
      }
      const int gang = gpus[i];
      uint64_t taken = 0;
      int need = count;
      for (int f = buckets_.Highest(most); f >= gang && need > 0; f = buckets_.Highest(f - 1)) {
        for (uint64_t bits = buckets_.rounds_with(f); bits != 0 && need > 0;
             bits &= bits - 1, --need) {
          taken |= bits & -bits;
        }
      }
      if (need > 0) {
        fits = false;
        break;
      }
      for (; taken != 0; taken &= taken - 1) {
        const int t = std::countr_zero(taken);
        buckets_.Move(t, free[t], free[t] - gang);
        free[t] -= gang;
      }
    }
    // Leaves the buckets empty for the next call: the nonempty ones are the rounds' free counts,
    // so O(horizon) instead of clearing every count up to the cluster's size.
    if (bucketed) buckets_.Clear(free);
    return fits;
  }

  // Whether the single-GPU jobs biggest_first[from...] (not skipped) fit, each into (*counts)[i]
  // distinct rounds. For single-GPU jobs the most-room greedy fails only where no placement
  // exists (an exchange argument: some placement gives the job being placed the rounds with the
  // most room), and by max-flow / min-cut one exists exactly when, for every k, the k largest
  // counts sum to at most sum_t min(free_t, k). O(jobs + horizon + max free) instead of
  // O(jobs x horizon); the randomised test against the plain greedy checks the equivalence.
  template <typename Skip>
  bool UnitJobsFit(const std::vector<size_t>& biggest_first, size_t from, const Skip& skip,
                   const std::vector<int>& counts, const std::vector<int>& free_gpus) {
    const int horizon = static_cast<int>(free_gpus.size());
    histogram_.assign(horizon + 1, 0);
    long long jobs = 0;
    for (size_t q = from; q < biggest_first.size(); ++q) {
      const size_t i = biggest_first[q];
      if (counts[i] == 0 || skip(i)) continue;
      if (counts[i] > horizon) return false;
      ++histogram_[counts[i]];
      ++jobs;
    }
    if (jobs == 0) return true;
    return CountsFit(histogram_, free_gpus);
  }

  // Whether single-GPU jobs, histogram[c] of them with count c (c <= horizon), fit as above.
  bool CountsFit(const std::vector<long long>& histogram, const std::vector<int>& free_gpus) {
    const int horizon = static_cast<int>(free_gpus.size());
    // rounds_with_[k]: rounds with at least k free GPUs, for k up to the most free.
    int most = 0;
    for (int free : free_gpus) most = std::max(most, free);
    rounds_with_.assign(most + 2, 0);
    for (int free : free_gpus) {
      if (free > 0) ++rounds_with_[free];
    }
    for (int k = most - 1; k >= 1; --k) rounds_with_[k] += rounds_with_[k + 1];
    // k jobs, largest counts first; room(k) = sum_t min(free_t, k) grows by rounds_with_[k].
    long long k = 0, largest = 0, room = 0;
    for (int c = horizon; c >= 1; --c) {
      for (int j = 0; j < histogram[c]; ++j) {
        ++k;
        largest += c;
        if (k <= most) room += rounds_with_[k];
        if (largest > room) return false;
        if (k >= most) break;  // room stops growing: only the total is left to check
      }
      if (k >= most) break;
    }
    long long total = 0, all_free = 0;
    for (int c = 1; c <= horizon; ++c) total += static_cast<long long>(c) * histogram[c];
    for (int free : free_gpus) all_free += std::max(0, free);
    return total <= all_free;
  }

  std::vector<int> room_;
  std::vector<int> chosen_;
  std::vector<int> by_room_, merged_;   // Fits': rounds by most room, and merge scratch
  RoundBuckets buckets_;                // FitsByBuckets': rounds by free GPUs
  std::vector<long long> histogram_;    // UnitJobsFit's: jobs by count
  std::vector<long long> rounds_with_;  // UnitJobsFit's: rounds by free GPUs, cumulative
};

// Local search on the counts: moves one round from job a to job b (or two rounds to b when a's
// gang is at least twice b's), or adds a round to b, while the objective improves and the counts
// still pack.
void ImproveLocally(const ShockwavePlanProblem& problem, const std::vector<int>& minimum,
                    WorkBudget* budget, ShockwavePlan* plan) {
  const size_t n_jobs = problem.jobs.size();
  std::vector<int> saturation(n_jobs);
  for (size_t i = 0; i < n_jobs; ++i) saturation[i] = SaturationRounds(problem.jobs[i], problem);
  std::vector<int>& n = plan->rounds;
  auto remaining = [&](size_t i, int rounds) {
    return PlannedRemaining(problem.jobs[i], rounds, problem.round_s);
  };
  const size_t kNone = n_jobs;
  for (int pass = 0; pass < 1000; ++pass) {
    // The three largest remaining times, to get the max over the jobs a move leaves alone.
    std::vector<size_t> top;
    for (size_t i = 0; i < n_jobs; ++i) {
      top.push_back(i);
      std::sort(top.begin(), top.end(),
                [&](size_t x, size_t y) { return remaining(x, n[x]) > remaining(y, n[y]); });
      if (top.size() > 3) top.pop_back();
    }
    auto max_others = [&](size_t a, size_t b) {
      for (size_t i : top) {
        if (i != a && i != b) return remaining(i, n[i]);
      }
      return 0.0;
    };
    bool improved = false;
    for (size_t a = 0; a <= n_jobs && !improved && !budget->exhausted(); ++a) {
      if (a != kNone && n[a] <= minimum[a]) continue;
      for (size_t b = 0; b < n_jobs && !improved; ++b) {
        if (b == a) continue;
        const int most = a != kNone && problem.jobs[a].gpus >= 2 * problem.jobs[b].gpus ? 2 : 1;
        for (int add = 1; add <= most && n[b] + add <= saturation[b] && !improved; ++add) {
          const int new_a = a == kNone ? 0 : n[a] - 1;
          double delta = Utility(problem, problem.jobs[b], n[b] + add) -
                         Utility(problem, problem.jobs[b], n[b]);
          double old_max = std::max(max_others(a, b), remaining(b, n[b]));
          double new_max = std::max(max_others(a, b), remaining(b, n[b] + add));
          if (a != kNone) {
            delta +=
                Utility(problem, problem.jobs[a], new_a) - Utility(problem, problem.jobs[a], n[a]);
            old_max = std::max(old_max, remaining(a, n[a]));
            new_max = std::max(new_max, remaining(a, new_a));
          }
          delta -= problem.k * (new_max - old_max);
          if (!budget->Spend(1)) break;
          if (delta <= 1e-12 * std::max(1.0, std::abs(plan->objective))) continue;
          std::vector<int> trial = n;
          if (a != kNone) trial[a] = new_a;
          trial[b] += add;
          if (!budget->Spend(std::accumulate(trial.begin(), trial.end(), 0LL))) break;
          std::vector<std::vector<int>> schedule;
          if (!PackCounts(problem, trial, &schedule)) continue;
          n = trial;
          plan->schedule = std::move(schedule);
          plan->objective = ShockwaveObjective(problem, n);
          improved = true;
        }
      }
    }
    if (!improved || budget->exhausted()) break;
  }
}

}  // namespace

double PlannedRemaining(const ShockwavePlanJob& job, int n, double round_s) {
  return std::max(0.0, job.remaining_s - PlannedRuntime(job, n, round_s));
}

double ShockwaveObjective(const ShockwavePlanProblem& problem, const std::vector<int>& rounds) {
  double utility = 0;
  double max_remaining = 0;
  for (size_t i = 0; i < problem.jobs.size(); ++i) {
    utility += Utility(problem, problem.jobs[i], rounds[i]);
    max_remaining =
        std::max(max_remaining, PlannedRemaining(problem.jobs[i], rounds[i], problem.round_s));
  }
  return utility - problem.k * max_remaining;
}

namespace {

// With `level_objectives`, packs every feasible level (highest first) and appends its objective
// (-infinity where its minimum copies do not pack) instead of solving.
ShockwavePlan SolveWithBudget(const ShockwavePlanProblem& problem, bool local_scan,
                              WorkBudget* budget,
                              std::vector<ShockwaveLevel>* level_objectives = nullptr) {
  const size_t n_jobs = problem.jobs.size();
  const long long capacity = static_cast<long long>(problem.gpus) * problem.rounds;
  ShockwavePlan best;
  if (n_jobs == 0) {
    best.feasible = true;
    return best;
  }

  // The caps on rem (Shockwave's fairness constraints) are often infeasible under load: find out
  // before computing every job's curves.
  for (const ShockwavePlanJob& job : problem.jobs) {
    if (PlannedRemaining(job, SaturationRounds(job, problem), problem.round_s) >
        job.max_remaining_s + kEpsilon) {
      return best;
    }
  }
  const JobCurves curves(problem);
  // Lower bounds from the caps on rem, and the largest max-rem worth considering.
  std::vector<int> capped_min(n_jobs);
  double top_level = 0;
  // No max-rem below the largest remaining time at saturation is feasible.
  double floor_level = 0;
  for (size_t i = 0; i < n_jobs; ++i) {
    capped_min[i] = MinRounds(problem.jobs[i], problem, curves, i, problem.jobs[i].max_remaining_s);
    if (capped_min[i] < 0) return best;
    top_level = std::max(top_level, curves.remaining(i, capped_min[i]));
    floor_level = std::max(floor_level, curves.remaining(i, curves.saturation(i)));
  }

  // Marginal units, made non-increasing per job so that equal gains keep round order.
  std::vector<Unit> units;
  // A job's units are its rounds 1..units_of[i] (the gains are non-increasing).
  std::vector<int> units_of(n_jobs, 0);
  std::vector<double> levels;
  int smallest_gang = problem.gpus;
  for (size_t i = 0; i < n_jobs; ++i) {
    const ShockwavePlanJob& job = problem.jobs[i];
    smallest_gang = std::min(smallest_gang, job.gpus);
    const int saturation = curves.saturation(i);
    double previous_gain = std::numeric_limits<double>::infinity();
    for (int n = 1; n <= saturation; ++n) {
      const double gain = std::min(previous_gain, curves.utility(i, n) - curves.utility(i, n - 1));
      previous_gain = gain;
      if (gain > 0) {
        units.push_back({gain / job.gpus, static_cast<int>(i), n});
        units_of[i] = n;
      }
    }
    for (int n = capped_min[i]; n <= saturation; ++n) {
      const double level = curves.remaining(i, n);
      // Levels below floor_level - epsilon are infeasible (and sort after every feasible one).
      if (level <= top_level + kEpsilon && level + kEpsilon >= floor_level) levels.push_back(level);
    }
  }
  SortedUnits sorted_units(std::move(units));
  std::sort(levels.begin(), levels.end(), std::greater<double>());
  levels.erase(std::unique(levels.begin(), levels.end(),
                           [](double a, double b) { return std::abs(a - b) <= kEpsilon; }),
               levels.end());

  // Minimum rounds per job when max-rem is held to `level`; false if over capacity.
  std::vector<int> minimum(n_jobs);
  auto minimum_rounds = [&](double level) {
    long long load = 0;
    for (size_t i = 0; i < n_jobs; ++i) {
      const int n = MinRounds(problem.jobs[i], problem, curves, i, level);
      if (n < 0) return false;
      minimum[i] = std::max(capped_min[i], n);
      load += static_cast<long long>(minimum[i]) * problem.jobs[i].gpus;
    }
    return load <= capacity;
  };
  if (levels.empty() || !minimum_rounds(levels.front())) return best;
  // Levels are feasible down to some index (feasibility is monotone in the level).
  size_t lo = 0, hi = levels.size() - 1;
  while (lo < hi) {
    const size_t mid = (lo + hi + 1) / 2;
    if (minimum_rounds(levels[mid])) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  const size_t last_feasible = lo;
  const double lowest_level = levels[last_feasible];

  best.objective = -std::numeric_limits<double>::infinity();
  std::vector<size_t> biggest_first(n_jobs);
  std::iota(biggest_first.begin(), biggest_first.end(), 0);
  std::stable_sort(biggest_first.begin(), biggest_first.end(),
                   [&](size_t a, size_t b) { return problem.jobs[a].gpus > problem.jobs[b].gpus; });
  // The packing of the current level and of the best so far (swapped, not copied, on a better
  // level; the best one's schedule is read once at the end).
  RoundPacking packing(problem.rounds, problem.gpus, n_jobs);
  RoundPacking best_packing(problem.rounds, problem.gpus, n_jobs);
  std::vector<int> rounds(n_jobs);
  // Packs level l (the minimum copies, then the units in order) into `packing`; false if the
  // minimum copies do not fit. Sets the level's utility and objective.
  double utility = 0;
  double objective = 0;
  auto pack_level = [&](size_t l) {
    minimum_rounds(levels[l]);
    // Every round taken is placed at once (into the round with the most room the job is not in
    // yet), so the counts always have a packing.
    packing.Reset(problem.rounds, problem.gpus, n_jobs);
    // Jobs whose next unit is still ahead: a job's units come in round order, and once one of
    // them does not fit, the job takes no more.
    size_t live = 0;
    for (size_t i : biggest_first) {
      for (int c = 0; c < minimum[i]; ++c) {
        if (!packing.Add(i, problem.jobs[i].gpus)) return false;
      }
      live += minimum[i] < units_of[i];
    }
    for (size_t u = 0; u < sorted_units.size() && live > 0; ++u) {
      if (packing.total_free() < smallest_gang) break;  // no unit fits any more
      const Unit& unit = sorted_units.At(u);
      if (unit.n != packing.count(unit.job) + 1) continue;
      if (!packing.Add(unit.job, problem.jobs[unit.job].gpus) || unit.n == units_of[unit.job]) {
        --live;
      }
    }
    double sum = 0;  // in a local: the compiler keeps it in a register
    double max_remaining = 0;
    for (size_t i = 0; i < n_jobs; ++i) {
      rounds[i] = packing.count(i);
      sum += curves.utility(i, rounds[i]);
      max_remaining = std::max(max_remaining, curves.remaining(i, rounds[i]));
    }
    utility = sum;
    objective = utility - problem.k * max_remaining;
    return true;
  };
  auto keep = [&] {
    best.objective = objective;
    best.rounds = rounds;
    std::swap(packing, best_packing);
    best.feasible = true;
  };
  // The level's placements: the minimum copies and the marginal units tried.
  auto spend = [&] {
    return budget->Spend(static_cast<long long>(sorted_units.size()) +
                         std::accumulate(minimum.begin(), minimum.end(), 0LL));
  };
  if (level_objectives != nullptr) {
    for (size_t l = 0; l <= last_feasible; ++l) {
      const bool packed = pack_level(l);
      level_objectives->push_back(
          {levels[l], packed, packed ? utility : 0, packed ? objective : 0});
    }
    return best;
  }
  if (!local_scan) {
    for (size_t l = 0; l <= last_feasible; ++l) {
      if (!pack_level(l)) break;
      if (objective > best.objective) keep();
      // Lower levels only lose utility, and max-rem cannot drop below the lowest feasible level.
      if (utility - problem.k * lowest_level <= best.objective) break;
      if (!spend()) break;
    }
  } else {
    // First the full scan's own first levels, with its stopping rule: where it stops there,
    // this is its answer.
    size_t probed = 0;
    bool stopped = false;
    for (; probed <= last_feasible && probed < kProbedLevels && !stopped; ++probed) {
      if (!pack_level(probed)) {
        stopped = true;
        break;
      }
      if (objective > best.objective) keep();
      stopped = utility - problem.k * lowest_level <= best.objective || !spend();
    }
    // Otherwise upwards from the lowest level whose minimum copies pack, while the objective
    // does not drop. Ties go to the higher level, as in the full scan: among the levels climbed
    // to the later one, against the probed levels the probed one.
    double climbed_best = -std::numeric_limits<double>::infinity();
    bool best_climbed = false;
    for (size_t l = last_feasible + 1; !stopped && l-- > probed;) {
      if (!pack_level(l)) {
        if (climbed_best > -std::numeric_limits<double>::infinity()) break;
        if (!spend()) break;
        continue;
      }
      if (objective < climbed_best) break;
      climbed_best = objective;
      if (objective > best.objective || (best_climbed && objective == best.objective)) {
        keep();
        best_climbed = true;
      }
      if (!spend()) break;
    }
  }
  if (best.feasible) best.schedule = best_packing.schedule();
  // Local search costs O(jobs^3) per plan; on large problems the greedy alone is kept.
  if (best.feasible && n_jobs <= kLocalSearchMaxJobs && !budget->exhausted()) {
    ImproveLocally(problem, capped_min, budget, &best);
  }
  return best;
}

}  // namespace

ShockwavePlan SolveShockwavePlan(const ShockwavePlanProblem& problem,
                                 const ShockwavePlanLimits& limits) {
  WorkBudget budget(limits);
  ShockwavePlan plan = SolveWithBudget(problem, limits.local_level_scan, &budget);
  plan.work = budget.used();
  plan.limited = budget.exhausted();
  return plan;
}

std::vector<ShockwaveLevel> ShockwaveLevelObjectives(const ShockwavePlanProblem& problem) {
  WorkBudget budget(ShockwavePlanLimits{});
  std::vector<ShockwaveLevel> objectives;
  SolveWithBudget(problem, /*local_scan=*/false, &budget, &objectives);
  return objectives;
}

std::vector<std::vector<int>> RankRounds(const std::vector<int>& rounds,
                                         const std::vector<double>& priorities,
                                         const std::vector<int>& gpus, int capacity, int horizon) {
  const size_t n_jobs = rounds.size();
  RoomChooser rooms;
  auto biggest_first = [&](std::vector<size_t> jobs) {
    std::stable_sort(jobs.begin(), jobs.end(),
                     [&](size_t a, size_t b) { return gpus[a] > gpus[b]; });
    return jobs;
  };
  // Feasible counts first: biggest gangs first, each into the rounds with the most room.
  std::vector<int> counts(n_jobs, 0);
  {
    std::vector<int> free_gpus(horizon, capacity);
    std::vector<size_t> jobs(n_jobs);
    std::iota(jobs.begin(), jobs.end(), 0);
    for (size_t i : jobs) counts[i] = std::min(rounds[i], horizon);
    rooms.Pack(
        biggest_first(jobs), [](size_t) { return false; }, gpus, &counts, &free_gpus,
        /*drop=*/true);
  }

  std::vector<size_t> order(n_jobs);
  std::iota(order.begin(), order.end(), 0);
  auto urgency = [&](size_t i) {
    return priorities[i] / (std::max(1, counts[i]) * static_cast<double>(gpus[i]));
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return urgency(a) > urgency(b); });
  // The jobs still to place after position k, in the packing order, and how many GPUs they need
  // in one round at most (if every round has that much room, they certainly pack).
  std::vector<size_t> position(n_jobs);
  std::vector<size_t> placed_later;
  for (size_t k = 0; k < n_jobs; ++k) {
    position[order[k]] = k;
    if (counts[order[k]] > 0) placed_later.push_back(order[k]);
  }
  placed_later = biggest_first(std::move(placed_later));
  std::vector<long long> gpus_from(n_jobs + 1, 0);
  for (size_t k = n_jobs; k-- > 0;) {
    gpus_from[k] = gpus_from[k + 1] + (counts[order[k]] > 0 ? gpus[order[k]] : 0);
  }

  std::vector<std::vector<int>> schedule(horizon);
  std::vector<int> free_gpus(horizon, capacity), trial(horizon);
  std::vector<int> earliest, most_room;
  std::vector<char> in_earliest(horizon);
  size_t placed_since_compaction = 0;  // of the jobs in placed_later
  // The single-GPU jobs of placed_later still to place, by count (the check reads them so).
  std::vector<long long> units_later(horizon + 1, 0);
  for (size_t j : placed_later) {
    if (gpus[j] == 1) ++units_later[counts[j]];
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    if (counts[i] == 0) continue;
    if (gpus[i] == 1) --units_later[counts[i]];
    // Earliest rounds with room, unless that leaves the remaining jobs no packing; then the
    // rounds with the most room.
    earliest.clear();
    for (int t = 0; t < horizon && static_cast<int>(earliest.size()) < counts[i]; ++t) {
      if (free_gpus[t] >= gpus[i]) earliest.push_back(t);
    }
    rooms.MostRoom(free_gpus, gpus[i], counts[i], &most_room);
    const std::vector<int>* chosen = &most_room;
    if (static_cast<int>(earliest.size()) == counts[i]) {
      std::fill(in_earliest.begin(), in_earliest.end(), 0);
      for (int t : earliest) in_earliest[t] = 1;
      bool same = most_room.size() == earliest.size();
      for (int t : most_room) same = same && in_earliest[t];
      if (same) {
        chosen = &earliest;  // both choices agree: nothing to check
      } else {
        trial = free_gpus;
        for (int t : earliest) trial[t] -= gpus[i];
        const bool rest_fits_everywhere =
            gpus_from[k + 1] <= *std::min_element(trial.begin(), trial.end());
        if (!rest_fits_everywhere && 2 * placed_since_compaction > placed_later.size()) {
          // Jobs placed so far are skipped by the check: drop them once they are the majority.
          std::erase_if(placed_later, [&](size_t j) { return position[j] <= k; });
          placed_since_compaction = 0;
        }
        if (rest_fits_everywhere ||
            rooms.Pack(
                placed_later, [&](size_t j) { return position[j] <= k; }, gpus, &counts, &trial,
                /*drop=*/false, &units_later)) {
          chosen = &earliest;
        }
      }
    }
    for (int t : *chosen) {
      free_gpus[t] -= gpus[i];
      schedule[t].push_back(static_cast<int>(i));
    }
    ++placed_since_compaction;
  }
  for (auto& round : schedule) std::sort(round.begin(), round.end());
  return schedule;
}

ShockwavePlan SolveShockwaveMilpWithCbc(const ShockwavePlanProblem& problem, double time_limit_s,
                                        double relative_gap,
                                        std::vector<std::vector<int>>* schedule) {
  const int n_jobs = static_cast<int>(problem.jobs.size());
  const int horizon = problem.rounds;
  const size_t n_bases = problem.bases.size();
  const double scale = static_cast<double>(n_jobs) * horizon;
  const std::vector<double> logs = BaseLogs(problem);
  MixedIntegerProgram mip(MixedIntegerProgram::Sense::kMaximize);
  std::vector<std::vector<int>> s(n_jobs, std::vector<int>(horizon));
  const int max_remaining = mip.AddVariable(0, MixedIntegerProgram::kInfinity, -problem.k);
  for (int i = 0; i < n_jobs; ++i) {
    const ShockwavePlanJob& job = problem.jobs[i];
    for (int t = 0; t < horizon; ++t) s[i][t] = mip.AddBinaryVariable(0);
    const int planned = mip.AddVariable(0, MixedIntegerProgram::kInfinity, 0);
    const int remaining = mip.AddVariable(0, job.max_remaining_s, 0);
    std::vector<int> lambda(n_bases), boundary(n_bases);
    for (size_t b = 0; b < n_bases; ++b) {
      lambda[b] = mip.AddVariable(0, 1, job.weight * logs[b] / scale);
      boundary[b] = mip.AddBinaryVariable(0);
    }
    std::vector<std::pair<int, double>> run = {{planned, job.epoch_s}};
    for (int t = 0; t < horizon; ++t) run.push_back({s[i][t], -problem.round_s});
    mip.AddRow(run, -MixedIntegerProgram::kInfinity, 0);
    std::vector<std::pair<int, double>> progress = {{planned, -1.0 / job.epochs}};
    std::vector<std::pair<int, double>> convexity, boundaries;
    for (size_t b = 0; b < n_bases; ++b) {
      progress.push_back({lambda[b], problem.bases[b]});
      convexity.push_back({lambda[b], 1});
      boundaries.push_back({boundary[b], 1});
      mip.AddRow({{lambda[b], 1}, {boundary[b], -1}}, -MixedIntegerProgram::kInfinity, 0);
      for (size_t other = b + 2; other < n_bases; ++other) {
        mip.AddRow({{boundary[b], 1}, {boundary[other], 1}}, -MixedIntegerProgram::kInfinity, 1);
      }
    }
    const double done = job.epochs_done / job.epochs;
    mip.AddRow(progress, done, done);
    mip.AddRow(convexity, 1, 1);
    mip.AddRow(boundaries, -MixedIntegerProgram::kInfinity, 2);
    mip.AddRow({{remaining, 1}, {planned, job.epoch_s}}, job.remaining_s,
               MixedIntegerProgram::kInfinity);
    mip.AddRow({{max_remaining, 1}, {remaining, -1}}, 0, MixedIntegerProgram::kInfinity);
  }
  for (int t = 0; t < horizon; ++t) {
    std::vector<std::pair<int, double>> load;
    for (int i = 0; i < n_jobs; ++i) load.push_back({s[i][t], problem.jobs[i].gpus});
    mip.AddRow(load, -MixedIntegerProgram::kInfinity, problem.gpus);
  }
  ShockwavePlan plan;
  const MixedIntegerProgram::Status status = mip.Solve(time_limit_s, relative_gap);
  if (status != MixedIntegerProgram::Status::kOptimal &&
      status != MixedIntegerProgram::Status::kFeasible) {
    return plan;
  }
  plan.feasible = true;
  plan.rounds.assign(n_jobs, 0);
  if (schedule != nullptr) schedule->assign(horizon, {});
  for (int i = 0; i < n_jobs; ++i) {
    for (int t = 0; t < horizon; ++t) {
      if (mip.value(s[i][t]) < 0.5) continue;
      ++plan.rounds[i];
      if (schedule != nullptr) (*schedule)[t].push_back(i);
    }
  }
  plan.objective = ShockwaveObjective(problem, plan.rounds);
  return plan;
}

}  // namespace jigsaw
