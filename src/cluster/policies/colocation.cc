#include "cluster/policies/colocation.h"

#include <algorithm>
#include <numeric>

#include "model/gpu_memory.h"
#include "model/job_spec.h"

namespace jigsaw {
namespace {

double ServedShare(const PolicyJob& job) {
  return job.elapsed_s > 0 ? job.attained_s / job.elapsed_s : 0.0;
}

bool Typed(const PolicyJob& job) {
  return job.spec != nullptr && job.spec->typed() && job.batch_size > 0;
}

}  // namespace

std::vector<size_t> LeastServedOrder(const std::vector<PolicyJob>& jobs) {
  std::vector<size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const double sa = ServedShare(jobs[a]), sb = ServedShare(jobs[b]);
    if (sa != sb) return sa < sb;
    if (jobs[a].arrival_s != jobs[b].arrival_s) return jobs[a].arrival_s < jobs[b].arrival_s;
    return jobs[a].id < jobs[b].id;
  });
  return order;
}

double WorkerMemoryMb(const PolicyJob& job) {
  return Typed(job) ? ProfiledGpuMemoryMb(job.spec->model, job.batch_size) : 0.0;
}

bool SameGangPairRates(const ThroughputTable& table, const std::string& worker_type,
                       const PolicyJob& host, const PolicyJob& guest, double* host_rate,
                       double* guest_rate) {
  if (!Typed(host) || !Typed(guest) || host.scale_factor != guest.scale_factor) return false;
  const JobKey host_key{MakeJobType(host.spec->model, host.batch_size), host.scale_factor};
  const JobKey guest_key{MakeJobType(guest.spec->model, guest.batch_size), guest.scale_factor};
  const ThroughputEntry* entry = table.Find(worker_type, host_key);
  const ThroughputEntry* guest_entry = table.Find(worker_type, guest_key);
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

}  // namespace jigsaw
