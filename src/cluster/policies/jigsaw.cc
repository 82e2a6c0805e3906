// jigsaw: SPB-aware co-location, planned every round (docs/jigsaw.md), and its two ablations.
//
// The jobs that run alone on whole gangs come from a base planner: `shockwave` (default; its
// plans are work-conserving and makespan-aware) or `least_served` (least-served first while gangs
// fit). Each job left over is then offered to a placed job, choosing the placement with the largest
// normalised goodput (host rate x host GPUs + guest rate x guest GPUs: what cluster_efficiency
// sums), which must beat the host alone by kMinColocationGain x host GPUs while the host keeps
// kMinHostRate and, slowed down, does not outlast the longest remaining job (it must not become the
// makespan's critical path). Two kinds of placement:
//  * packing: a same-size pair, both at full backprop, rates from the throughput table's
//    co-location entries, if both workers fit in GPU memory (Shockwave's per-model profile);
//  * SPB: a smaller guest on the shallowest workers of a multi-GPU host switched to a staircase
//    plan. The host's iteration time comes from the SPB cost model (its full-depth worker still
//    sets it) and it progresses at the plan's measured statistical efficiency; the guest gets the
//    compute the shallow workers leave idle (rate = the smallest idle fraction over the GPUs it
//    occupies) and must fit in their memory, which SPB shrinks.
// Co-located jobs whose gangs span nodes share the nodes' NICs: when their combined egress
// exceeds a NIC (and exceeds what either job sends alone, which its measured throughput already
// includes), both rates are scaled down by that excess.
// Policies: jigsaw (both kinds), packing (packing only: "packing without SPB") and spb_only
// (SPB placements only: "SPB without packing"). The plan can change every round without a
// restart: SPB changes which backward work a worker does, not its state.
#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include "cluster/policies/colocation.h"
#include "cluster/policies/policies.h"
#include "cluster/spb_cost_model.h"
#include "core/error.h"
#include "model/job_spec.h"
#include "model/throughput_table.h"

namespace jigsaw {
namespace {

struct PairPlan {
  double host_rate = 0, guest_rate = 0;        // progress rates (what the simulator applies)
  double host_speed = 0, guest_speed = 0;      // iterations per second relative to isolated
  double host_bytes = 1.0, guest_bytes = 1.0;  // bytes per iteration relative to full
};

// GPU-weighted progress of a pair: normalised goodput in GPUs' worth of isolated full backprop.
double Goodput(const PolicyJob& host, const PolicyJob& guest, const PairPlan& plan) {
  return plan.host_rate * host.scale_factor + plan.guest_rate * guest.scale_factor;
}

class JigsawPolicy : public Policy {
 public:
  JigsawPolicy(std::string name, const PolicyOptions& options, bool use_packing, bool use_spb)
      : name_(std::move(name)),
        options_(options),
        use_packing_(use_packing),
        use_spb_(use_spb && options.spb != nullptr) {
    if (options.colocation_base == "shockwave") {
      base_ = MakeShockwavePolicy(options);
    } else if (options.colocation_base != "least_served") {
      throw UsageError(
          "the co-location base planner (--colocation-base) must be shockwave or "
          "least_served, got '" +
          options.colocation_base + "'");
    }
  }

  // The base planner calibrates its predictions from observed throughputs: report a shared
  // round's progress at the job's isolated speed (steps / rate), not its co-located speed.
  void ObserveRun(int job_id, int round, double steps, double execution_s,
                  int batch_size) override {
    if (base_ == nullptr) return;
    auto rate = last_rates_.find(job_id);
    if (rate != last_rates_.end() && rate->second > 0) steps /= rate->second;
    base_->ObserveRun(job_id, round, steps, execution_s, batch_size);
  }
  void ObserveCompletion(int job_id, double now_s) override {
    if (base_ != nullptr) base_->ObserveCompletion(job_id, now_s);
  }
  void ObserveArrival(int job_id, double now_s) override {
    if (base_ != nullptr) base_->ObserveArrival(job_id, now_s);
  }

  std::string name() const override { return name_; }
  bool PlansRounds() const override { return true; }
  std::vector<double> Allocate(const PolicyContext&, const std::vector<PolicyJob>& jobs) override {
    return std::vector<double>(jobs.size(), 0.0);
  }

  std::vector<Placement> PlanPlacements(const PolicyContext& context,
                                        const std::vector<PolicyJob>& jobs) override {
    const std::vector<size_t> order = LeastServedOrder(jobs);
    std::vector<Placement> placements;
    std::vector<size_t> hosts;
    std::vector<bool> placed(jobs.size(), false);
    // Hosts: the base plan's jobs in its order, or every job least served first, while they fit.
    std::vector<size_t> candidates = order;
    if (base_ != nullptr) {
      std::unordered_map<int, size_t> index;
      for (size_t j = 0; j < jobs.size(); ++j) index[jobs[j].id] = j;
      candidates.clear();
      for (int id : base_->PlanRound(context, jobs)) {
        auto it = index.find(id);
        if (it != index.end()) candidates.push_back(it->second);
      }
    }
    int free_gpus = context.gpus;
    for (size_t j : candidates) {
      if (placed[j] || jobs[j].scale_factor > free_gpus) continue;
      free_gpus -= jobs[j].scale_factor;
      placements.push_back({jobs[j].id});
      hosts.push_back(j);
      placed[j] = true;
    }
    double longest_remaining_s = 0;
    for (const PolicyJob& job : jobs) {
      longest_remaining_s = std::max(longest_remaining_s, job.remaining_isolated_s);
    }
    for (size_t j : order) {
      if (placed[j]) continue;
      int best = -1;
      double best_gain = 0;
      PairPlan best_plan;
      for (size_t p = 0; p < placements.size(); ++p) {
        if (placements[p].partner_id >= 0) continue;
        const PolicyJob& host = jobs[hosts[p]];
        PairPlan plan;
        if (!PlanPair(host, jobs[j], &plan) || plan.host_rate < kMinHostRate) continue;
        // Slowing the host must not make it the job that sets the makespan.
        if (host.remaining_isolated_s / plan.host_rate > longest_remaining_s) continue;
        const double gain = Goodput(host, jobs[j], plan) / host.scale_factor;
        if (gain <= 1.0 + kMinColocationGain || gain <= best_gain) continue;
        best = static_cast<int>(p);
        best_gain = gain;
        best_plan = plan;
      }
      if (best < 0) continue;
      placements[best].rate = best_plan.host_rate;
      placements[best].partner_id = jobs[j].id;
      placements[best].partner_rate = best_plan.guest_rate;
      placed[j] = true;
    }
    last_rates_.clear();
    for (const Placement& p : placements) {
      last_rates_[p.job_id] = p.rate;
      if (p.partner_id >= 0) last_rates_[p.partner_id] = p.partner_rate;
    }
    return placements;
  }

 private:
  // The better of the allowed placement kinds for `guest` on `host`'s GPUs, NIC-shared.
  bool PlanPair(const PolicyJob& host, const PolicyJob& guest, PairPlan* result) const {
    const double host_memory = WorkerMemoryMb(host), guest_memory = WorkerMemoryMb(guest);
    if (host_memory <= 0 || guest_memory <= 0) return false;
    bool found = false;
    double self = 0, partner = 0;
    if (use_packing_ && options_.throughputs != nullptr &&
        host_memory + guest_memory <= kGpuMemoryMb &&
        SameGangPairRates(*options_.throughputs, options_.worker_type, host, guest, &self,
                          &partner)) {
      PairPlan plan{self, partner, self, partner};
      ShareNics(host, guest, &plan);
      *result = plan;
      found = true;
    }
    if (use_spb_ && guest.scale_factor < host.scale_factor) {
      const std::vector<SpbOption>& options =
          options_.spb->Options(host.spec->model, host.batch_size, host.scale_factor);
      if (options.size() > 1) {
        const SpbOption& spb = options[1];
        double idle = 1.0;
        bool fits = true;
        for (int k = 0; k < guest.scale_factor; ++k) {
          idle = std::min(idle, 1.0 - spb.worker_busy[k]);
          fits &= host_memory * spb.worker_memory[k] + guest_memory <= kGpuMemoryMb;
        }
        if (fits && idle > 0) {
          PairPlan plan;
          plan.host_speed = 1.0 / spb.iteration_time;
          plan.host_rate = spb.statistical_efficiency * plan.host_speed;
          plan.guest_rate = plan.guest_speed = idle;
          plan.host_bytes = spb.bytes;
          ShareNics(host, guest, &plan);
          if (!found || Goodput(host, guest, plan) > Goodput(host, guest, *result)) {
            *result = plan;
            found = true;
          }
        }
      }
    }
    return found;
  }

  // Egress bytes/s one node of the job's gang puts on its NIC at `speed` x its isolated
  // throughput; 0 when the gang fits in one node or its bytes are unknown. With a ring across
  // nodes, one worker's share of the ring leaves each node per iteration.
  double NodeEgress(const PolicyJob& job, double speed, double bytes_ratio) const {
    if (job.scale_factor <= options_.gpus_per_node || options_.spb == nullptr) return 0;
    return speed * job.throughput * bytes_ratio *
           options_.spb->FullBytesPerWorker(job.spec->model, job.batch_size, job.scale_factor);
  }

  void ShareNics(const PolicyJob& host, const PolicyJob& guest, PairPlan* plan) const {
    const double h = NodeEgress(host, plan->host_speed, plan->host_bytes);
    const double g = NodeEgress(guest, plan->guest_speed, plan->guest_bytes);
    if (h <= 0 || g <= 0) return;
    const double capacity = std::max({options_.nic_gbps * 1e9 / 8, h, g});
    const double share = std::min(1.0, capacity / (h + g));
    plan->host_rate *= share, plan->guest_rate *= share;
    plan->host_speed *= share, plan->guest_speed *= share;
  }

  std::string name_;
  PolicyOptions options_;
  bool use_packing_;
  bool use_spb_;
  std::unique_ptr<Policy> base_;                // null: least served first
  std::unordered_map<int, double> last_rates_;  // job id -> rate in the last planned round
};

}  // namespace

std::unique_ptr<Policy> MakeJigsawPolicy(const PolicyOptions& options) {
  return std::make_unique<JigsawPolicy>("jigsaw", options, /*use_packing=*/true,
                                        /*use_spb=*/true);
}

std::unique_ptr<Policy> MakePackingPolicy(const PolicyOptions& options) {
  return std::make_unique<JigsawPolicy>("packing", options, /*use_packing=*/true,
                                        /*use_spb=*/false);
}

std::unique_ptr<Policy> MakeSpbOnlyPolicy(const PolicyOptions& options) {
  return std::make_unique<JigsawPolicy>("spb_only", options, /*use_packing=*/false,
                                        /*use_spb=*/true);
}

}  // namespace jigsaw
