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
//    beats running the host alone by kMinGain, and the host keeps at least kMinHostRate of its
//    speed. Each GPU gang holds at most two jobs (as in Gavel's packing).
// Jobs without a job type or co-location data are only ever placed alone.
#include <algorithm>
#include <numeric>

#include "cluster/policies/policies.h"
#include "model/gpu_memory.h"
#include "model/job_spec.h"
#include "model/throughput_table.h"

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
    std::vector<size_t> order(jobs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const double sa = ServedShare(jobs[a]), sb = ServedShare(jobs[b]);
      if (sa != sb) return sa < sb;
      if (jobs[a].arrival_s != jobs[b].arrival_s) return jobs[a].arrival_s < jobs[b].arrival_s;
      return jobs[a].id < jobs[b].id;
    });
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
      double best_gain = 1.0 + kMinGain, host_rate = 0, guest_rate = 0;
      for (size_t p = 0; p < placements.size(); ++p) {
        if (placements[p].partner_id >= 0) continue;
        const PolicyJob& host = jobs[hosts[p]];
        if (host.scale_factor != jobs[j].scale_factor || !FitInMemory(host, jobs[j])) continue;
        double self = 0, partner = 0;
        if (!ColocatedRates(host, jobs[j], &self, &partner)) continue;
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
  static constexpr double kMinGain = 0.1;
  static constexpr double kMinHostRate = 0.5;
  static constexpr double kGpuMemoryMb = 16 * 1024;

  static double ServedShare(const PolicyJob& job) {
    return job.elapsed_s > 0 ? job.attained_s / job.elapsed_s : 0.0;
  }

  static std::string CurrentType(const PolicyJob& job) {
    return MakeJobType(job.spec->model, job.batch_size);
  }

  static bool Typed(const PolicyJob& job) {
    return job.spec != nullptr && job.spec->typed() && job.batch_size > 0;
  }

  bool FitInMemory(const PolicyJob& a, const PolicyJob& b) const {
    if (!Typed(a) || !Typed(b)) return false;
    const double ma = ProfiledGpuMemoryMb(a.spec->model, a.batch_size);
    const double mb = ProfiledGpuMemoryMb(b.spec->model, b.batch_size);
    return ma > 0 && mb > 0 && ma + mb <= kGpuMemoryMb;
  }

  // Speeds of host and guest together, as fractions of their isolated throughputs.
  bool ColocatedRates(const PolicyJob& host, const PolicyJob& guest, double* host_rate,
                      double* guest_rate) const {
    const JobKey host_key{CurrentType(host), host.scale_factor};
    const JobKey guest_key{CurrentType(guest), guest.scale_factor};
    const ThroughputEntry* entry = table_->Find(worker_type_, host_key);
    const ThroughputEntry* guest_entry = table_->Find(worker_type_, guest_key);
    if (entry == nullptr || guest_entry == nullptr || entry->isolated <= 0 ||
        guest_entry->isolated <= 0) {
      return false;
    }
    auto pair = entry->colocated.find(guest_key);
    if (pair == entry->colocated.end() || pair->second.first <= 0 || pair->second.second <= 0) {
      return false;
    }
    *host_rate = std::min(1.0, pair->second.first / entry->isolated);
    *guest_rate = std::min(1.0, pair->second.second / guest_entry->isolated);
    return true;
  }

  const ThroughputTable* table_;
  std::string worker_type_;
};

}  // namespace

std::unique_ptr<Policy> MakePackingPolicy(const PolicyOptions& options) {
  return std::make_unique<PackingPolicy>(options);
}

}  // namespace jigsaw
