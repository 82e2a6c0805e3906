// Policy: decides what fraction of time each active job should hold its gang of GPUs.
//
// The simulator calls Allocate at decision points (job arrival or completion, and every round for
// policies whose ReallocateEveryRound() is true). The returned fractions x_j in [0, 1] must satisfy
// sum_j x_j * scale_factor_j <= gpus; the round mechanism (see Simulator) turns them into
// whole-round gang assignments, Gavel-style. A policy that simply ranks jobs returns 1 for the
// jobs it would run now and 0 for the rest.
#ifndef JIGSAW_CLUSTER_POLICY_H_
#define JIGSAW_CLUSTER_POLICY_H_

#include <memory>
#include <string>
#include <vector>

#include "cluster/freed_capacity.h"

namespace jigsaw {

struct JobSpec;
struct ShockwaveOptions;
class ThroughputTable;
class SpbCostModel;
class SpbPhaseModel;

// A job as a policy sees it at a decision point.
struct PolicyJob {
  int id = 0;            // trace id (stable tie-breaker)
  int scale_factor = 1;  // GPUs, gang-scheduled
  double priority_weight = 1;
  double arrival_s = 0;
  double throughput = 0;            // isolated iterations/s now (current batch size)
  double remaining_steps = 0;       // iterations left in the current batch-size phase and after
  double remaining_isolated_s = 0;  // isolated run time left (all future epochs)
  double total_isolated_s = 0;      // isolated run time of the whole job
  double attained_s = 0;            // seconds the job has run so far
  double attained_gpu_s = 0;        // GPU-seconds received so far
  double elapsed_s = 0;             // now - arrival
  const JobSpec* spec = nullptr;    // the trace's description of the job
  int batch_size = 0;               // current batch size (dynamic adaptation)
  double steps_run = 0;             // iterations done, in current-batch-size units
  double total_steps = 0;           // iterations in total, in current-batch-size units
  // Heterogeneous clusters only (empty otherwise): isolated iterations/s on each of the
  // context's worker_types at the current batch size, 0 where the table has no entry.
  std::vector<double> type_throughputs;
};

struct PolicyContext {
  double now_s = 0;
  int gpus = 0;
  double round_s = 120;
  int jobs_in_trace = 0;
  int round = 0;  // index of the round being decided
  // Heterogeneous clusters only (empty otherwise): the worker types and their GPUs; `gpus` is
  // their total.
  std::vector<std::string> worker_types;
  std::vector<int> worker_gpus;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string name() const = 0;
  virtual std::vector<double> Allocate(const PolicyContext& context,
                                       const std::vector<PolicyJob>& jobs) = 0;
  virtual bool ReallocateEveryRound() const { return false; }

  // Heterogeneous clusters (docs/heterogeneous.md). A heterogeneity-aware policy returns
  // AllocateByType's matrix X[j][k], job j's time fraction on worker type k, with
  // sum_k X[j][k] <= 1 and sum_j sf_j X[j][k] <= worker_gpus[k]; a ranking policy
  // (RunsOnlyAllocatedJobs and ReallocateEveryRound) sets X[j][k] > 0 on the one type it wants job
  // j on. Any other policy is heterogeneity-agnostic: it allocates `gpus` identical GPUs with
  // Allocate and the simulator spreads x_j over the types in proportion to their GPUs (Gavel's
  // proportional split); round planners' picks are placed on types in a seeded order.
  virtual bool HeterogeneityAware() const { return false; }
  virtual std::vector<std::vector<double>> AllocateByType(const PolicyContext& context,
                                                          const std::vector<PolicyJob>& jobs) {
    return {};
  }
  // True if jobs with a zero allocation must not fill otherwise idle GPUs (Gavel's FIFO).
  virtual bool RunsOnlyAllocatedJobs() const { return false; }

  // Round planners (Shockwave) choose each round's jobs themselves: when PlansRounds() is true
  // the simulator calls PlanRound every round instead of Allocate and the priority mechanism.
  // PlanRound returns trace ids of jobs to run; ids of inactive jobs are ignored and jobs that
  // no longer fit are dropped in the order given.
  virtual bool PlansRounds() const { return false; }
  virtual std::vector<int> PlanRound(const PolicyContext& context,
                                     const std::vector<PolicyJob>& jobs) {
    return {};
  }

  // What a round planner may also decide: co-location and per-job speed. A placement runs
  // `job_id` on its own gang of GPUs; its guests run on (subsets of) the same GPUs: each guest's
  // scale factor, and their sum, must not exceed the host's (guests occupy disjoint GPUs of the
  // host's gang; a guest as large as the host shares all of them). Rates scale a job's isolated
  // full-backprop throughput for the round (interference of co-located jobs, SPB's iteration
  // speed-up times its statistical efficiency), must be > 0, and make progress = floor(throughput
  // x rate x round). The default runs PlanRound's jobs alone at 1.
  // The SPB plan a placed job runs this round, for summary.json's "spb" object (planners whose
  // ReportsSpb() is true): full backprop, a staircase, or its adaptive phase plan (`compute`:
  // the busiest GPU's compute per iteration relative to full backprop, < 1 in a frozen phase or
  // on a staircase's shallow workers); `in_freed_capacity`: a guest running in the capacity a
  // host's SPB plan leaves (a staircase's idle workers or a frozen phase's freed share).
  enum class SpbRoundPlan { kFull, kStaircase, kAdaptive };
  struct SpbRound {
    SpbRoundPlan plan = SpbRoundPlan::kFull;
    double compute = 1.0;
    bool in_freed_capacity = false;
  };
  struct Guest {
    int job_id = -1;
    double rate = 1.0;
    SpbRound spb = {};
  };
  struct Placement {
    int job_id = -1;
    double rate = 1.0;
    std::vector<Guest> guests;
    SpbRound spb = {};
  };
  // True if the placements' SpbRound fields are meaningful (the simulator then reports them).
  virtual bool ReportsSpb() const { return false; }
  virtual std::vector<Placement> PlanPlacements(const PolicyContext& context,
                                                const std::vector<PolicyJob>& jobs) {
    std::vector<Placement> placements;
    for (int id : PlanRound(context, jobs)) {
      Placement placement;
      placement.job_id = id;
      placements.push_back(placement);
    }
    return placements;
  }

  // Observations, in simulation order. A round's runs are reported (ObserveRun, then
  // ObserveCompletion for jobs that finished) before the next round's arrivals (ObserveArrival)
  // and before the next PlanRound/Allocate call. `round` is the index of the round that ran.
  virtual void ObserveRun(int job_id, int round, double steps, double execution_s, int batch_size) {
  }
  virtual void ObserveCompletion(int job_id, double now_s) {}
  virtual void ObserveArrival(int job_id, double now_s) {}
};

// Tunables of the co-locating planners (jigsaw, packing, spb_only): planner thresholds and the
// assumptions no measurement backs (docs/jigsaw.md lists them with their sensitivity rows); each
// has a `jigsaw sim` option.
struct ColocationTunables {
  double min_gain = 0.1;            // a host and its guests must beat the host alone by this x GPUs
  double min_host_rate = 0.5;       // a host keeps at least this share of its isolated speed
  bool critical_path_guard = true;  // a slowed host must not outlast the longest remaining job
  int max_guests = 4;               // smaller SPB guests per host (on disjoint shallow workers)
  bool spb_guests = true;           // smaller guests on the shallow workers of an SPB host
  bool interleave = true;           // same-size pairs, both staircase, deep worker on shallow one
  bool spb_memory = true;           // SPB's activation savings make room for guests
  double gpu_memory_mb = 16 * 1024;  // per GPU: V100 16 GB, as Shockwave's configs
  // Unmeasured: each job time-sharing a GPU under SPB runs at (1 - overhead) of its time-sliced
  // speed (0: ideal time slicing, an upper bound on SPB co-location's value).
  double sharing_overhead = 0;
  double spb_warmup = 0;  // share of its iterations a job runs at full backprop before SPB
  // Phase plans (PolicyOptions::spb_phases): guests in the capacity a host's frozen phase frees,
  // and their interference model (cluster/freed_capacity.h).
  bool freed_guests = true;
  FreedCapacityModel freed;
};

// What a policy may need beyond the jobs it is shown. Shockwave builds each job's per-epoch
// profile from `throughputs` (without a table it plans with each job's current throughput and a
// constant batch size) and takes its tunables from `shockwave` (defaults when null); the
// co-locating planners read the table's co-location entries and the SPB and NIC fields.
struct PolicyOptions {
  const ThroughputTable* throughputs = nullptr;
  // The table whose co-location entries and isolated ("null") entries were measured together
  // (Gavel's): pair rates are co-located / isolated throughput from this table, applied to the
  // simulator's isolated throughputs. Null: `throughputs`.
  const ThroughputTable* colocation_throughputs = nullptr;
  std::string worker_type = "v100";
  const ShockwaveOptions* shockwave = nullptr;
  // jigsaw and its ablations: the SPB cost model (null: no SPB plans) and the nodes' NICs, which
  // co-located jobs that span nodes share (gangs are packed onto whole nodes first).
  const SpbCostModel* spb = nullptr;
  // jigsaw and spb_only: every job's phase plan (its adaptive SPB plan, cluster/spb_phase_model.h);
  // null: jobs run full backprop unless a staircase placement says otherwise.
  const SpbPhaseModel* spb_phases = nullptr;
  int gpus_per_node = 4;
  double nic_gbps = 25;
  // Which planner picks the jobs that run alone before guests are added: shockwave (uses
  // `shockwave` and `throughputs`) or least_served.
  std::string colocation_base = "shockwave";
  ColocationTunables colocation;
};

// Known names: fifo, srtf, las, las_perf, min_total_duration, max_min_fairness,
// max_min_fairness_perf, finish_time_fairness, gandiva_fair, allox, max_sum_throughput,
// shockwave (aliases: max_sum_throughput_perf, ossp, themis, gavel). Throws UsageError listing the
// valid names for an unknown one.
std::unique_ptr<Policy> MakePolicy(const std::string& name, const PolicyOptions& options = {});
std::vector<std::string> PolicyNames();

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICY_H_
