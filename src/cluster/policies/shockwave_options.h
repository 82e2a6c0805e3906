// ShockwaveOptions: the Shockwave policy's tunables, read from Shockwave's JSON config format
// (configurations/*.json in uw-mad-dash/shockwave), e.g.
//   {"future_rounds": 20, "k": 1e-3, "lambda": 12.0, "rhomax": 1.0,
//    "log_approximation_bases": [0.0, 0.2, 0.4, 0.6, 0.8, 1.0], "gpu_ram": 16,
//    "solver_rel_gap": 1e-3, "solver_num_threads": 24, "solver_timeout": 15}
// Keys may be omitted (defaults are the tacc_32gpus values); unknown keys and out-of-range
// values are InputErrors naming the file and line.
#ifndef JIGSAW_CLUSTER_POLICIES_SHOCKWAVE_OPTIONS_H_
#define JIGSAW_CLUSTER_POLICIES_SHOCKWAVE_OPTIONS_H_

#include <string>
#include <vector>

namespace jigsaw {

inline constexpr int kDefaultShockwaveMaxPlannedJobs = 0;
inline constexpr int kDefaultShockwaveEventReplanMaxJobs = 1024;
inline constexpr int kDefaultShockwaveFullScanMaxJobs = 900;
inline constexpr int kDefaultShockwaveBusyReoptRounds = 20;

struct ShockwaveOptions {
  int future_rounds = 20;  // planning horizon F
  double k = 1e-3;         // weight of the max-remaining-time (makespan) term
  double lambda = 12.0;    // exponent of the finish-time-fairness priority
  double rhomax = 1.0;     // finish-time fairness bound
  std::vector<double> log_bases = {0.0, 0.2, 0.4, 0.6, 0.8, 1.0};
  double gpu_ram_gb = 16;  // read for completeness; the plan ignores memory
  double solver_rel_gap = 1e-3;
  int solver_threads = 24;       // read for completeness; the planner is single-threaded
  double solver_timeout_s = 15;  // per plan, CBC only (--shockwave-solver cbc)
  // The planner's limits (ShockwavePlanLimits): deterministic work by default; a wall-clock
  // limit only when asked for (0: none), and then results depend on the machine's speed.
  long long planner_work_limit = 50'000'000;
  double planner_wall_clock_s = 0;
  int reopt_rounds = 8;  // re-plan at least this often (not a config-file key)
  // Bound on planning work for overloaded clusters (not a config-file key; 0: none): with more
  // active jobs than this, only this many, the first by Shockwave's own priority (the
  // finish-time-fairness weight, then admission order), enter the plan; the others get no
  // planned rounds but still fill idle GPUs. A departure from the published algorithm
  // (docs/shockwave.md, "At Philly scale"); the default never binds on Shockwave's traces.
  int max_planned_jobs = kDefaultShockwaveMaxPlannedJobs;
  // The other bound (not a config-file key; 0: none): with more active jobs than this, an
  // arrival or completion no longer re-plans at once; the next periodic re-plan (reopt_rounds)
  // takes it in, and meanwhile the GPUs of jobs that left go to the last plan's fill order.
  int event_replan_max_jobs = kDefaultShockwaveEventReplanMaxJobs;
  // While more than event_replan_max_jobs jobs are active, the periodic re-plan comes every this
  // many rounds instead of every reopt_rounds (not a config-file key; a plan covers
  // future_rounds rounds, so values above that act as future_rounds).
  int busy_reopt_rounds = kDefaultShockwaveBusyReoptRounds;
  // Plans with more jobs than this scan the max-rem levels locally, from the lowest feasible
  // one upwards (ShockwavePlanLimits::local_level_scan; not a config-file key; 0: never). The
  // default, 900, is the size of Shockwave's largest trace: no plan on its traces has more jobs,
  // on any cluster, so it never binds there.
  int full_scan_max_jobs = kDefaultShockwaveFullScanMaxJobs;
  bool use_cbc = false;       // solve the per-round MILP with CBC instead of the planner
  bool report_stats = false;  // print plan counts and times on stderr at the end
};

ShockwaveOptions LoadShockwaveOptions(const std::string& path);
ShockwaveOptions ParseShockwaveOptions(const std::string& name, const std::string& text);
// Throws UsageError naming the offending option if a value is out of range.
void ValidateShockwaveOptions(const ShockwaveOptions& options);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_SHOCKWAVE_OPTIONS_H_
