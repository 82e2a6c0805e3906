// packing: memory-aware co-location without SPB (the "packing only" ablation of JigSaw), planned
// every round.
//
// 1. Rank active jobs by the share of their lifetime they have run (run time / time since
//    arrival), least served first, then by arrival: a max-min fair order over time.
// 2. Place jobs alone, in that order, while their gangs fit (smaller jobs backfill).
// 3. Offer each job left over, in order, to the placed job with the same number of GPUs that
//    maximises the pair's combined normalised throughput (self / isolated + partner / isolated,
//    from the throughput table's co-location entries at the jobs' current batch sizes), provided
//    both fit in GPU memory together (Shockwave's per-model memory profile, 16 GB GPUs), the sum
//    beats running the host alone by kMinColocationGain, and the host keeps at least kMinHostRate
//    of its speed. Each GPU gang holds at most two jobs (as in Gavel's packing).
// Jobs without a job type or co-location data are only ever placed alone.
#include "cluster/policies/colocation.h"
#include "cluster/policies/policies.h"

namespace jigsaw {
namespace {

class PackingPolicy : public Policy {
 public:
  explicit PackingPolicy(const PolicyOptions& options)
      : table_(options.throughputs), worker_type_(options.worker_type) {}

  std::string name() const override { return "packing"; }
  bool PlansRounds() const override { return true; }
  std::vector<double> Allocate(const PolicyContext&, const std::vector<PolicyJob>& jobs) override {
    return std::vector<double>(jobs.size(), 0.0);
  }

  std::vector<Placement> PlanPlacements(const PolicyContext& context,
                                        const std::vector<PolicyJob>& jobs) override {
    const std::vector<size_t> order = LeastServedOrder(jobs);
    std::vector<Placement> placements;
    std::vector<size_t> hosts;  // index into jobs, parallel to placements
    std::vector<bool> placed(jobs.size(), false);
    int free_gpus = context.gpus;
    for (size_t j : order) {
      if (jobs[j].scale_factor > free_gpus) continue;
      free_gpus -= jobs[j].scale_factor;
      placements.push_back({jobs[j].id});
      hosts.push_back(j);
      placed[j] = true;
    }
    if (table_ == nullptr) return placements;
    for (size_t j : order) {
      if (placed[j]) continue;
      int best = -1;
      double best_gain = 1.0 + kMinColocationGain, host_rate = 0, guest_rate = 0;
      for (size_t p = 0; p < placements.size(); ++p) {
        if (placements[p].partner_id >= 0) continue;
        const PolicyJob& host = jobs[hosts[p]];
        const double memory = WorkerMemoryMb(host) + WorkerMemoryMb(jobs[j]);
        if (WorkerMemoryMb(host) <= 0 || WorkerMemoryMb(jobs[j]) <= 0 || memory > kGpuMemoryMb) {
          continue;
        }
        double self = 0, partner = 0;
        if (!SameGangPairRates(*table_, worker_type_, host, jobs[j], &self, &partner)) continue;
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
  const ThroughputTable* table_;
  std::string worker_type_;
};

}  // namespace

std::unique_ptr<Policy> MakePackingPolicy(const PolicyOptions& options) {
  return std::make_unique<PackingPolicy>(options);
}

}  // namespace jigsaw
