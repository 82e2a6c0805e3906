#include "cluster/policies/guest_plans.h"

#include <algorithm>

#include "cluster/freed_capacity.h"
#include "cluster/policies/colocation.h"

namespace jigsaw {

GuestPlanner::GuestPlanner(const PolicyOptions& options, const ThroughputTable* pairs,
                           bool use_packing, bool use_spb)
    : options_(options),
      tunables_(options.colocation),
      pairs_(pairs),
      use_packing_(use_packing),
      use_spb_(use_spb) {}

void GuestPlanner::Consider(const HostState& host, const JobClass& h, const JobClass& g, Plan plan,
                            Plan* best) const {
  ShareNics(h, g, &plan);
  // The goodput the guest adds (net of what the host loses) must reach min_gain x the GPUs the
  // guest occupies.
  const double gain = (plan.host_rate - host.rate) * h.gpus + plan.guest_rate * g.gpus;
  if (!(gain > tunables_.min_gain * g.gpus)) return;
  if (!best->possible ||
      gain > (best->host_rate - host.rate) * h.gpus + best->guest_rate * g.gpus) {
    plan.possible = true;
    *best = plan;
  }
}

Plan GuestPlanner::PlanGuest(const HostState& host, const JobClass& h, const JobClass& g) const {
  Plan best;
  if (host.mode == HostMode::kAlone && g.gpus == h.gpus) PackingAndInterleave(host, h, g, &best);
  SpbGuest(host, h, g, &best);
  FreedCapacityGuest(host, h, g, &best);
  return best;
}

void GuestPlanner::PackingAndInterleave(const HostState& host, const JobClass& h, const JobClass& g,
                                        Plan* best) const {
  const double gpu_memory = tunables_.gpu_memory_mb;
  const double keep = 1.0 - tunables_.sharing_overhead;
  double self = 0, partner = 0;
  if (use_packing_ && pairs_ != nullptr && h.memory_mb + g.memory_mb <= gpu_memory &&
      SameGangPairRates(*pairs_, options_.worker_type, *h.example, *g.example, &self, &partner)) {
    Plan plan;
    plan.mode = HostMode::kExclusive;
    plan.host_rate = plan.host_speed = self;
    plan.guest_rate = plan.guest_speed = partner;
    Consider(host, h, g, plan, best);
  }
  if (tunables_.interleave && h.staircase != nullptr && g.staircase != nullptr) {
    const SpbOption& a = *h.staircase;
    const SpbOption& b = *g.staircase;
    const int n = h.gpus;
    double load = 1.0;
    bool fits = true;
    for (int k = 0; k < n; ++k) {
      load = std::max(load, a.worker_busy[k] + b.worker_busy[n - 1 - k]);
      fits &= h.memory_mb * Memory(a, k) + g.memory_mb * Memory(b, n - 1 - k) <= gpu_memory;
    }
    if (fits) {
      Plan plan;
      plan.mode = HostMode::kExclusive;
      plan.host_speed = keep / (a.iteration_time * load);
      plan.guest_speed = keep / (b.iteration_time * load);
      plan.host_rate = a.statistical_efficiency * plan.host_speed;
      plan.guest_rate = b.statistical_efficiency * plan.guest_speed;
      plan.host_bytes = a.bytes;
      plan.guest_bytes = b.bytes;
      plan.host_spb = plan.guest_spb = true;
      Consider(host, h, g, plan, best);
    }
  }
}

void GuestPlanner::SpbGuest(const HostState& host, const JobClass& h, const JobClass& g,
                            Plan* best) const {
  if (!tunables_.spb_guests || h.staircase == nullptr || host.mode == HostMode::kExclusive ||
      host.mode == HostMode::kFreed || host.used_workers + g.gpus > h.gpus) {
    return;
  }
  const double gpu_memory = tunables_.gpu_memory_mb;
  const double keep = 1.0 - tunables_.sharing_overhead;
  const SpbOption& a = *h.staircase;
  double idle = 1.0;
  bool fits = true;
  for (int k = host.used_workers; k < host.used_workers + g.gpus; ++k) {
    idle = std::min(idle, 1.0 - a.worker_busy[k]);
    fits &= h.memory_mb * Memory(a, k) + g.memory_mb <= gpu_memory;
  }
  if (!fits || !(idle > 0)) return;
  Plan plan;
  plan.mode = HostMode::kSpb;
  if (host.mode == HostMode::kSpb) {  // already in staircase
    plan.host_speed = host.speed;
    plan.host_rate = host.rate;
  } else {
    plan.host_speed = keep / a.iteration_time;
    plan.host_rate = a.statistical_efficiency * plan.host_speed;
  }
  plan.host_bytes = a.bytes;
  plan.host_spb = true;
  plan.guest_rate = plan.guest_speed = keep * idle;
  Consider(host, h, g, plan, best);
}

void GuestPlanner::FreedCapacityGuest(const HostState& host, const JobClass& h, const JobClass& g,
                                      Plan* best) const {
  if (!use_spb_ || !tunables_.freed_guests || !h.Frozen() || pairs_ == nullptr ||
      (host.mode != HostMode::kAlone && host.mode != HostMode::kFreed) ||
      host.used_workers + g.gpus > h.gpus) {
    return;
  }
  // Memory per GPU: the host's worker in its phase and the guest's, at full backprop.
  const double host_memory = h.memory_mb * (tunables_.spb_memory ? h.phase->memory : 1.0);
  if (host_memory + g.memory_mb > tunables_.gpu_memory_mb) return;
  // Gavel's pair at the guest's size (the guest shares as many of the host's GPUs).
  PolicyJob host_at_guest_size = *h.example;
  host_at_guest_size.scale_factor = g.gpus;
  double x_h = 0, x_g = 0;
  if (!SameGangPairRates(*pairs_, options_.worker_type, host_at_guest_size, *g.example, &x_h,
                         &x_g)) {
    return;
  }
  const double frozen_speed = 1.0 / h.phase->iteration_time;
  const FreedCapacityRates rates =
      FreedCapacityCoRun(frozen_speed, h.phase->efficiency, x_h, x_g, tunables_.freed);
  if (!(rates.host_speed > 0) || !(rates.guest_speed > 0)) return;
  const double keep = 1.0 - tunables_.sharing_overhead;
  Plan plan;
  plan.mode = HostMode::kFreed;
  // The gang runs at its slowest worker: the slowest of the guests' effects on the host.
  const double before = host.mode == HostMode::kFreed ? host.speed : keep * frozen_speed;
  plan.host_speed = std::min(before, keep * rates.host_speed);
  plan.host_rate = h.phase->efficiency * plan.host_speed;
  plan.host_bytes = h.phase->bytes;
  plan.guest_rate = plan.guest_speed = keep * rates.guest_speed;
  Consider(host, h, g, plan, best);
}

double GuestPlanner::Memory(const SpbOption& option, int worker) const {
  return tunables_.spb_memory ? option.worker_memory[worker] : 1.0;
}

// Egress bytes/s one node of the job's gang puts on its NIC at `speed` x its isolated
// throughput; 0 when the gang fits in one node or its bytes are unknown. With a ring across
// nodes, one worker's share of the ring leaves each node per iteration.
double GuestPlanner::NodeEgress(const JobClass& job, double speed, double bytes_ratio) const {
  if (job.gpus <= options_.gpus_per_node) return 0;
  return speed * job.throughput * bytes_ratio * job.full_bytes;
}

// Co-located gangs that both span nodes share the NICs: when their combined egress exceeds a
// NIC (and what either sends alone, which its measured throughput already includes), both slow
// down by the excess.
void GuestPlanner::ShareNics(const JobClass& host, const JobClass& guest, Plan* plan) const {
  const double h = NodeEgress(host, plan->host_speed, plan->host_bytes);
  const double g = NodeEgress(guest, plan->guest_speed, plan->guest_bytes);
  if (h <= 0 || g <= 0) return;
  const double capacity = std::max({options_.nic_gbps * 1e9 / 8, h, g});
  const double share = std::min(1.0, capacity / (h + g));
  plan->host_rate *= share, plan->guest_rate *= share;
  plan->host_speed *= share, plan->guest_speed *= share;
}

}  // namespace jigsaw
