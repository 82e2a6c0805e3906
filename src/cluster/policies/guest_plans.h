// What a guest does to a host, for the co-locating round planners (jigsaw, packing, spb_only;
// docs/jigsaw.md): the kinds of placement as a pure function of the host's class and state and
// the guest's class. jigsaw.cc searches the hosts; this file prices each (host, guest) pair.
//  * packing: a same-size pair, both at full backprop, rates from Gavel's measured co-location
//    throughputs normalised by Gavel's own isolated ones, if both workers fit in GPU memory;
//  * interleave: a same-size pair, both switched to staircase SPB, the guest's deepest worker on
//    the host's shallowest GPU (and so on); both stretch by the busiest GPU's load;
//  * SPB guests: up to max_guests smaller jobs on disjoint sets of the shallowest workers of a
//    host switched to staircase, each at the smallest idle share of the GPUs it occupies;
//  * guests in freed capacity: a host in a frozen phase of its phase plan (cluster/
//    spb_phase_model.h) takes up to max_guests jobs no larger than itself on disjoint GPUs
//    (policies/freed_capacity.h: Gavel's pair rates scaled by the share the phase frees).
// Every kind checks GPU memory per GPU (the host's worker, SPB-reduced, plus the guest's) and the
// shared NICs of gangs that span nodes.
#ifndef JIGSAW_CLUSTER_POLICIES_GUEST_PLANS_H_
#define JIGSAW_CLUSTER_POLICIES_GUEST_PLANS_H_

#include "cluster/policy.h"
#include "cluster/spb_options.h"
#include "cluster/spb_phase_model.h"
#include "model/throughput_table.h"

namespace jigsaw {

// Everything a placement decision reads about a job, shared by the jobs of one class (model,
// batch size, GPUs, throughput and, with phase plans, the phase the job is in).
struct JobClass {
  bool colocatable = false;  // typed, with a known memory footprint
  double memory_mb = 0;
  const SpbOption* staircase = nullptr;  // null: no SPB plan (unknown, or efficiency unknown)
  double full_bytes = 0;                 // per worker and iteration at full backprop
  int gpus = 1;
  double throughput = 0;
  const PolicyJob* example = nullptr;  // a job of the class (for table lookups)
  // The job's phase plan and its current phase; null without one (full backprop alone).
  const JobPhases* phases = nullptr;
  int phase_index = 0;
  const JobPhase* phase = nullptr;
  // Alone on its gang the job runs its frozen phase only if that makes more progress per second
  // than full backprop (efficiency / iteration time > 1); otherwise the freeze waits.
  bool alone_frozen = false;
  double alone_rate = 1.0, alone_speed = 1.0;  // 1 at full backprop
  bool Frozen() const { return phase != nullptr && phase->saves; }
};

enum class HostMode { kAlone, kExclusive, kSpb, kFreed };

struct HostState {
  size_t job = 0;  // index into the round's jobs
  int job_class = 0;
  HostMode mode = HostMode::kAlone;
  int used_workers = 0;  // workers (GPUs) taken by guests that use a subset of the gang
  double rate = 1.0;
  double speed = 1.0;  // iterations/s relative to isolated
  double bytes = 1.0;  // bytes per iteration relative to full
};

// A guest's effect on a host, per (host class, host mode, used workers, guest class).
struct Plan {
  bool possible = false;
  HostMode mode = HostMode::kAlone;
  bool host_spb = false, guest_spb = false;  // who runs a staircase plan
  double host_rate = 0, guest_rate = 0;
  double host_speed = 0, guest_speed = 0;
  double host_bytes = 1, guest_bytes = 1;
};

class GuestPlanner {
 public:
  // `pairs`: the table of co-location entries and their isolated throughputs (may be null);
  // use_packing / use_spb: which kinds the policy offers (packing, spb_only, jigsaw).
  GuestPlanner(const PolicyOptions& options, const ThroughputTable* pairs, bool use_packing,
               bool use_spb);

  // The best allowed placement of a guest of class `g` on a host of class `h` in state `host`;
  // its gain (net of what the host loses) must beat min_gain x the GPUs the guest occupies.
  Plan PlanGuest(const HostState& host, const JobClass& h, const JobClass& g) const;

 private:
  void PackingAndInterleave(const HostState& host, const JobClass& h, const JobClass& g,
                            Plan* best) const;
  void SpbGuest(const HostState& host, const JobClass& h, const JobClass& g, Plan* best) const;
  void FreedCapacityGuest(const HostState& host, const JobClass& h, const JobClass& g,
                          Plan* best) const;
  // Offers `plan` (after NIC sharing) against the best so far.
  void Consider(const HostState& host, const JobClass& h, const JobClass& g, Plan plan,
                Plan* best) const;
  // A staircase worker's memory relative to full backprop (1 when SPB's savings are not counted).
  double Memory(const SpbOption& option, int worker) const;
  double NodeEgress(const JobClass& job, double speed, double bytes_ratio) const;
  void ShareNics(const JobClass& host, const JobClass& guest, Plan* plan) const;

  const PolicyOptions& options_;
  const ColocationTunables& tunables_;
  const ThroughputTable* pairs_;
  bool use_packing_;
  bool use_spb_;
};

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_GUEST_PLANS_H_
