#include "faas/openwhisk_balancer.h"

#include <numeric>
#include <stdexcept>
#include <utility>

namespace jigsaw::faas {
namespace {

uint64_t Hash(uint64_t action) { return action * 2654435761ULL; }

}  // namespace

OpenWhiskBalancer::OpenWhiskBalancer(std::vector<uint64_t> slot_bytes, uint64_t seed)
    : slot_bytes_(std::move(slot_bytes)),
      used_(slot_bytes_.size(), 0),
      rng_state_(seed * 0x9E3779B97F4A7C15ULL + 0x6A09E667F3BCC909ULL) {
  if (slot_bytes_.empty()) throw std::invalid_argument("OpenWhiskBalancer: no invokers");
  const uint32_t n = static_cast<uint32_t>(slot_bytes_.size());
  for (uint32_t candidate = 1; candidate <= n; ++candidate) {
    if (std::gcd(candidate, n) != 1) continue;
    bool coprime = true;
    for (uint32_t step : steps_) coprime = coprime && std::gcd(step, candidate) == 1;
    if (coprime) steps_.push_back(candidate);
  }
}

uint32_t OpenWhiskBalancer::Home(uint64_t action) const {
  return static_cast<uint32_t>(Hash(action) % slot_bytes_.size());
}

uint32_t OpenWhiskBalancer::Step(uint64_t action) const {
  return steps_[Hash(action) % steps_.size()];
}

int OpenWhiskBalancer::Acquire(uint64_t action, uint64_t bytes, const std::vector<char>& usable) {
  const uint32_t n = static_cast<uint32_t>(slot_bytes_.size());
  const uint32_t home = Home(action), step = Step(action);
  uint32_t index = home;
  uint32_t live = 0;
  for (uint32_t tried = 0; tried < n; ++tried, index = (index + step) % n) {
    if (!usable[index]) continue;
    ++live;
    if (used_[index] + bytes <= slot_bytes_[index]) {
      used_[index] += bytes;
      if (index != home) ++spilled_;
      return static_cast<int>(index);
    }
  }
  if (live == 0) return -1;
  // splitmix64: the draw among the usable invokers.
  uint64_t z = (rng_state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  uint32_t pick = static_cast<uint32_t>(z % live);
  for (uint32_t i = 0; i < n; ++i) {
    if (!usable[i]) continue;
    if (pick-- == 0) {
      used_[i] += bytes;
      ++forced_;
      if (i != home) ++spilled_;
      return static_cast<int>(i);
    }
  }
  return -1;
}

void OpenWhiskBalancer::Release(uint32_t invoker, uint64_t bytes) {
  used_[invoker] = used_[invoker] > bytes ? used_[invoker] - bytes : 0;
}

}  // namespace jigsaw::faas
