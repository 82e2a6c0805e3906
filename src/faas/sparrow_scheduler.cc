#include "faas/sparrow_scheduler.h"

#include <stdexcept>
#include <utility>

namespace jigsaw::faas {

SparrowScheduler::SparrowScheduler(std::vector<uint32_t> slots, uint32_t probes, size_t max_queue,
                                   uint64_t seed)
    : slots_(std::move(slots)),
      probes_(probes),
      max_queue_(max_queue),
      usable_(slots_.size(), 1),
      running_(slots_.size(), 0),
      queues_(slots_.size()),
      rng_state_(seed * 0x9E3779B97F4A7C15ULL + 0x6A09E667F3BCC909ULL) {
  if (slots_.empty()) throw std::invalid_argument("SparrowScheduler: no SGS");
  for (uint32_t s : slots_) {
    if (s == 0) throw std::invalid_argument("SparrowScheduler: an SGS without slots");
  }
  if (probes_ == 0) throw std::invalid_argument("SparrowScheduler: probes must be positive");
  if (max_queue_ == 0) throw std::invalid_argument("SparrowScheduler: max_queue must be positive");
}

uint32_t SparrowScheduler::Draw(uint32_t n) {
  // splitmix64
  uint64_t z = (rng_state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<uint32_t>(z % n);
}

std::vector<uint32_t> SparrowScheduler::UsableWithRoom() const {
  std::vector<uint32_t> candidates;
  for (uint32_t s = 0; s < slots_.size(); ++s) {
    if (usable_[s] && queues_[s].size() < max_queue_) candidates.push_back(s);
  }
  return candidates;
}

uint64_t SparrowScheduler::Reserve(std::vector<Launch>* launches) {
  std::vector<uint32_t> candidates = UsableWithRoom();
  if (candidates.empty()) {
    ++refused_;
    return 0;
  }
  const uint32_t n = static_cast<uint32_t>(candidates.size());
  const uint32_t probes = probes_ < n ? probes_ : n;
  // The first `probes` of a partial Fisher-Yates shuffle: distinct SGSs, uniformly drawn.
  for (uint32_t p = 0; p < probes; ++p) std::swap(candidates[p], candidates[p + Draw(n - p)]);
  const uint64_t task = next_task_++;
  pending_[task] = probes;
  for (uint32_t p = 0; p < probes; ++p) queues_[candidates[p]].push_back(task);
  for (uint32_t p = 0; p < probes; ++p) Dispatch(candidates[p], launches);
  return task;
}

std::vector<SparrowScheduler::Launch> SparrowScheduler::Finish(uint32_t sgs) {
  if (running_[sgs] > 0) --running_[sgs];
  std::vector<Launch> launches;
  Dispatch(sgs, &launches);
  return launches;
}

std::vector<SparrowScheduler::Launch> SparrowScheduler::SetUsable(uint32_t sgs, bool usable) {
  std::vector<Launch> launches;
  usable_[sgs] = usable ? 1 : 0;
  if (usable) {
    Dispatch(sgs, &launches);
    return launches;
  }
  std::deque<uint64_t> queue;
  queue.swap(queues_[sgs]);
  for (uint64_t task : queue) {
    auto it = pending_.find(task);
    if (it == pending_.end()) {
      ++late_binding_drops_;
      continue;
    }
    if (--it->second > 0) continue;  // its other reservations are on usable SGSs
    const int to = PlaceOne(task);
    if (to < 0) {
      pending_.erase(it);
      ++failed_;
      launches.push_back({task, -1});
      continue;
    }
    it->second = 1;
    ++replaced_;
    Dispatch(static_cast<uint32_t>(to), &launches);
  }
  return launches;
}

int SparrowScheduler::PlaceOne(uint64_t task) {
  const std::vector<uint32_t> candidates = UsableWithRoom();
  if (candidates.empty()) return -1;
  const uint32_t s = candidates[Draw(static_cast<uint32_t>(candidates.size()))];
  queues_[s].push_back(task);
  return static_cast<int>(s);
}

void SparrowScheduler::Dispatch(uint32_t sgs, std::vector<Launch>* launches) {
  std::deque<uint64_t>& queue = queues_[sgs];
  while (usable_[sgs] && running_[sgs] < slots_[sgs] && !queue.empty()) {
    const uint64_t task = queue.front();
    queue.pop_front();
    auto it = pending_.find(task);
    if (it == pending_.end()) {
      ++late_binding_drops_;  // launched elsewhere (or cancelled): this reservation is void
      continue;
    }
    pending_.erase(it);
    ++running_[sgs];
    ++launched_;
    launches->push_back({task, static_cast<int>(sgs)});
  }
}

}  // namespace jigsaw::faas
