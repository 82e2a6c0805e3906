// Shockwave's planning problem: which jobs run in each of the next F rounds.
//
// Shockwave maximises a dynamic Eisenberg-Gale objective over the next F rounds:
//   sum_i w_i log(u_i) / (N F) - k max_i rem_i,
// where job i (N jobs) runs n_i of the F rounds, plans p_i = min(n_i round_s / d_i, E_i - c_i)
// more epochs (d_i: its interpolated epoch duration, c_i of E_i epochs done), reaches progress
// u_i = (c_i + p_i) / E_i, and still needs rem_i = max(0, R_i - p_i d_i) seconds (R_i: predicted
// remaining run time). log is the piecewise-linear interpolation of ln through `bases` (ln of
// `log_origin` at base 0). Each round holds gangs of at most `gpus` GPUs in total; rem_i may be
// capped (Shockwave's finish-time-fairness constraints).
//
// Only the count n_i matters to the objective, so the plan is solved over counts: for each
// candidate max-rem level (scanned downwards, pruned by a bound), the rounds each job needs to
// meet it are placed first, then single rounds in decreasing order of marginal log-utility gain
// per GPU (the gains are concave in n_i), each placed at once into a round with room, so the
// counts always have a packing; RankRounds then re-orders the rounds by priority.
// SolveShockwaveMilpWithCbc solves the original per-round MILP with CBC, for comparison.
#ifndef JIGSAW_CLUSTER_POLICIES_SHOCKWAVE_PLAN_H_
#define JIGSAW_CLUSTER_POLICIES_SHOCKWAVE_PLAN_H_

#include <limits>
#include <vector>

namespace jigsaw {

struct ShockwavePlanJob {
  int gpus = 1;
  double epochs = 1;                                                 // E_i
  double epochs_done = 0;                                            // c_i
  double epoch_s = 1;                                                // d_i
  double remaining_s = 0;                                            // R_i
  double weight = 1;                                                 // w_i
  double max_remaining_s = std::numeric_limits<double>::infinity();  // cap on rem_i
};

struct ShockwavePlanProblem {
  std::vector<ShockwavePlanJob> jobs;
  int gpus = 1;
  int rounds = 20;  // F
  double round_s = 120;
  double k = 1e-3;
  std::vector<double> bases = {0, 0.2, 0.4, 0.6, 0.8, 1.0};
  double log_origin = 1e-6;
};

struct ShockwavePlan {
  bool feasible = false;
  std::vector<int> rounds;                 // n_i
  std::vector<std::vector<int>> schedule;  // job indices of each round: one packing of n
  double objective = 0;
  long long work = 0;    // work units spent (see ShockwavePlanLimits)
  bool limited = false;  // the search stopped at a limit, keeping the best plan found
};

// How long the planner may refine. The default is a deterministic work limit, so a plan (and
// every result downstream) is the same on any machine under any load: a work unit is one
// placement of a job copy into a round, or one local-search move evaluated (about 0.1-0.2 us
// each). The largest canonical plan (shockwave_900 on 32 GPUs) needs 5.1 x 10^6 units; the
// default allows 5 x 10^7 (about 10 s at worst on the 2-core development machine). A
// wall-clock limit exists only as an explicit option and breaks reproducibility: where it binds,
// the plan depends on the machine's speed and load.
inline constexpr long long kDefaultShockwaveWorkLimit = 50'000'000;
//
// local_level_scan trades the full scan of max-rem levels (from the highest down, about a
// dozen greedy packings of the horizon per plan under load) for a local one: the full scan's
// first two levels with its own stopping rule (if it stops there, that is its answer), then
// from the lowest feasible level upwards, stopping at the first level whose objective is lower
// than the best climbed to; the better of the two, ties to the higher level. It picks the full
// scan's level whenever the full scan stops within two levels or the objective over the levels
// rises to its maximum and then falls (under load the lowest level is usually the best, as the
// makespan term outweighs the utility term). Plans can differ otherwise, so it is a bound on
// planning work (docs/shockwave.md), not the algorithm's default.
struct ShockwavePlanLimits {
  long long work = kDefaultShockwaveWorkLimit;
  double wall_clock_s = 0;  // 0: none
  bool local_level_scan = false;
};

// Objective of the counts `rounds` (ignores feasibility).
double ShockwaveObjective(const ShockwavePlanProblem& problem, const std::vector<int>& rounds);
// Remaining run time of job `job` after `n` planned rounds.
double PlannedRemaining(const ShockwavePlanJob& job, int n, double round_s);

// Best counts; gives up refining (keeping the best found) at `limits`.
ShockwavePlan SolveShockwavePlan(const ShockwavePlanProblem& problem,
                                 const ShockwavePlanLimits& limits = {});

// For tests and diagnostics: the greedy packing at every feasible max-rem level, highest level
// first; empty if the caps on rem cannot be met.
struct ShockwaveLevel {
  double level = 0;      // the cap on max-rem
  bool packed = false;   // whether the level's minimum copies packed (else no values)
  double utility = 0;    // the log-utility term
  double objective = 0;  // utility - k max-rem
};
std::vector<ShockwaveLevel> ShockwaveLevelObjectives(const ShockwavePlanProblem& problem);

// Places job i in rounds[i] of the `horizon` rounds, minimising sum_i priority_i * (mean round
// index of job i): jobs in decreasing priority / (rounds * gpus) take the earliest rounds with
// room, leaving an even share of every round to the jobs not yet placed. Copies that fit nowhere
// are dropped. Returns the job indices of each round.
std::vector<std::vector<int>> RankRounds(const std::vector<int>& rounds,
                                         const std::vector<double>& priorities,
                                         const std::vector<int>& gpus, int capacity, int horizon);

// The per-round MILP (binary s[i][t], SOS2 log approximation) solved by CBC. `schedule` (if
// non-null) receives the job indices of each round. plan.feasible is false if CBC found no
// solution in time.
ShockwavePlan SolveShockwaveMilpWithCbc(const ShockwavePlanProblem& problem, double time_limit_s,
                                        double relative_gap,
                                        std::vector<std::vector<int>>* schedule);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_SHOCKWAVE_PLAN_H_
