#include "cluster/policies/colocation.h"

#include <algorithm>
#include <utility>

#include "model/gpu_memory.h"
#include "model/job_spec.h"

namespace jigsaw {
namespace {

bool Typed(const PolicyJob& job) {
  return job.spec != nullptr && job.spec->typed() && job.batch_size > 0;
}

}  // namespace

double ServedShare(const PolicyJob& job) {
  return job.elapsed_s > 0 ? job.attained_s / job.elapsed_s : 0.0;
}

bool ServedBefore(double served_a, const PolicyJob& a, double served_b, const PolicyJob& b) {
  if (served_a != served_b) return served_a < served_b;
  if (a.arrival_s != b.arrival_s) return a.arrival_s < b.arrival_s;
  return a.id < b.id;
}

std::vector<size_t> LeastServedOrder(const std::vector<PolicyJob>& jobs) {
  std::vector<std::pair<double, size_t>> keyed;
  keyed.reserve(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) keyed.push_back({ServedShare(jobs[j]), j});
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    return ServedBefore(a.first, jobs[a.second], b.first, jobs[b.second]);
  });
  std::vector<size_t> order(keyed.size());
  for (size_t k = 0; k < keyed.size(); ++k) order[k] = keyed[k].second;
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

ColocationConsistency CheckColocationEntries(const ThroughputTable& table,
                                             const std::string& worker_type) {
  ColocationConsistency result;
  const auto* entries = table.Entries(worker_type);
  if (entries == nullptr) return result;
  for (const auto& [key, entry] : *entries) {
    for (const auto& [partner, rates] : entry.colocated) {
      const ThroughputEntry* other = table.Find(worker_type, partner);
      if (other == nullptr || entry.isolated <= 0 || other->isolated <= 0 || rates.first <= 0 ||
          rates.second <= 0) {
        continue;
      }
      ++result.checked;
      if (rates.first > 1.01 * entry.isolated || rates.second > 1.01 * other->isolated) {
        ++result.faster_than_alone;
      }
    }
  }
  return result;
}

}  // namespace jigsaw
