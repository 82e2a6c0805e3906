// jigsaw: SPB-aware co-location, planned every round (first version; see docs/jigsaw.md).
//
// Like `packing`, jobs are ranked least-served first and placed alone while their gangs fit;
// each job left over is then offered to a placed job, choosing the placement with the largest
// combined normalised speed (host rate + guest rate), which must beat the host alone by
// kMinColocationGain while the host keeps kMinHostRate:
//  * same-size pair, both full backprop: rates from the throughput table's co-location entries,
//    memory from Shockwave's per-model profile (the packing placement);
//  * a smaller guest on the lightly loaded workers of a multi-GPU host switched to a staircase
//    SPB plan: the host's iteration time is set by its full-depth worker, which the guest avoids,
//    so the host keeps its speed and progresses at the SPB statistical efficiency; the guest uses
//    the compute the shallow workers leave idle (rate = the smallest idle fraction over the GPUs
//    it occupies) and must fit in their memory, which SPB shrinks (spb_options.h).
// The plan can change every round without a restart. SPB placements need a measured statistical
// efficiency (PolicyOptions::spb_statistical_efficiency); without one only the first kind is used.
#include <algorithm>
#include <string>
#include <utility>

#include "cluster/policies/colocation.h"
#include "cluster/policies/policies.h"
#include "cluster/spb_options.h"
#include "model/job_spec.h"

namespace jigsaw {
namespace {

class JigsawPolicy : public Policy {
 public:
  JigsawPolicy(std::string name, const PolicyOptions& options, bool use_spb)
      : name_(std::move(name)),
        table_(options.throughputs),
        worker_type_(options.worker_type),
        statistical_efficiency_(use_spb ? options.spb_statistical_efficiency : 0.0) {}

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
    int free_gpus = context.gpus;
    for (size_t j : order) {
      if (jobs[j].scale_factor > free_gpus) continue;
      free_gpus -= jobs[j].scale_factor;
      placements.push_back({jobs[j].id});
      hosts.push_back(j);
      placed[j] = true;
    }
    for (size_t j : order) {
      if (placed[j]) continue;
      int best = -1;
      double best_gain = 1.0 + kMinColocationGain, host_rate = 0, guest_rate = 0;
      for (size_t p = 0; p < placements.size(); ++p) {
        if (placements[p].partner_id >= 0) continue;
        double self = 0, partner = 0;
        if (!PairRates(jobs[hosts[p]], jobs[j], &self, &partner)) continue;
        if (self < kMinHostRate || self + partner <= best_gain) continue;
        best = static_cast<int>(p);
        best_gain = self + partner;
        host_rate = self;
        guest_rate = partner;
      }
      if (best < 0) continue;
      placements[best].rate = host_rate;
      placements[best].partner_id = jobs[j].id;
      placements[best].partner_rate = guest_rate;
      placed[j] = true;
    }
    return placements;
  }

 private:
  // The better of the two placement kinds for `guest` on `host`'s GPUs.
  bool PairRates(const PolicyJob& host, const PolicyJob& guest, double* host_rate,
                 double* guest_rate) const {
    const double host_memory = WorkerMemoryMb(host), guest_memory = WorkerMemoryMb(guest);
    if (host_memory <= 0 || guest_memory <= 0) return false;
    bool found = false;
    double self = 0, partner = 0;
    if (table_ != nullptr && host_memory + guest_memory <= kGpuMemoryMb &&
        SameGangPairRates(*table_, worker_type_, host, guest, &self, &partner)) {
      *host_rate = self, *guest_rate = partner;
      found = true;
    }
    if (statistical_efficiency_ > 0 && guest.scale_factor < host.scale_factor) {
      const std::vector<SpbOption> options =
          FallbackSpbOptions(host.spec->model, host.batch_size, host.scale_factor);
      if (options.size() > 1) {
        const SpbOption& spb = options[1];
        double idle = 1.0;
        bool fits = true;
        for (int k = 0; k < guest.scale_factor; ++k) {
          idle = std::min(idle, 1.0 - spb.worker_busy[k]);
          fits &= host_memory * spb.worker_memory[k] + guest_memory <= kGpuMemoryMb;
        }
        const double spb_host = statistical_efficiency_ / spb.iteration_time;
        if (fits && idle > 0 && (!found || spb_host + idle > *host_rate + *guest_rate)) {
          *host_rate = spb_host, *guest_rate = idle;
          found = true;
        }
      }
    }
    return found;
  }

  std::string name_;
  const ThroughputTable* table_;
  std::string worker_type_;
  double statistical_efficiency_;
};

}  // namespace

std::unique_ptr<Policy> MakeJigsawPolicy(const PolicyOptions& options) {
  return std::make_unique<JigsawPolicy>("jigsaw", options, /*use_spb=*/true);
}

// packing: the packing-only ablation, i.e. jigsaw without SPB placements. Same-size pairs from
// the throughput table's co-location entries when both fit in GPU memory, ranked least-served
// first, at most two jobs per GPU gang (as in Gavel's packing).
std::unique_ptr<Policy> MakePackingPolicy(const PolicyOptions& options) {
  return std::make_unique<JigsawPolicy>("packing", options, /*use_spb=*/false);
}

}  // namespace jigsaw
