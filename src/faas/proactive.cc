#include "faas/proactive.h"

#include <algorithm>
#include <cmath>

namespace jigsaw::faas {

int ProactiveAllocator::Target(double rate_per_s, Time duration, bool used_recently) const {
  const double load = rate_per_s * static_cast<double>(duration) / net::kSecond;
  int target = 0;
  if (load > 0) {
    target = static_cast<int>(std::ceil(load + options_.headroom_sigmas * std::sqrt(load)));
  }
  if (used_recently && target < 1) target = 1;
  return target;
}

ProactiveAllocator::PlanResult ProactiveAllocator::Plan(const std::vector<Worker*>& pool,
                                                        const std::vector<FunctionId>& functions,
                                                        const std::vector<int>& target) const {
  PlanResult result;
  std::vector<char> served(target.size(), 0);
  for (FunctionId f : functions) served[f] = 1;
  auto pool_count = [&](FunctionId f) {
    int count = 0;
    for (const Worker* w : pool) count += w->sandboxes(f);
    return count;
  };
  auto surplus = [&](FunctionId g) { return pool_count(g) > (served[g] ? target[g] : 0); };
  for (FunctionId f : functions) {
    if (target[f] > 0) continue;
    for (Worker* w : pool) {
      while (w->EvictIdle(f)) ++result.evicted;
    }
  }
  for (FunctionId f : functions) {
    int missing = target[f] - pool_count(f);
    while (missing > 0) {
      std::vector<uint32_t> order;
      for (uint32_t i = 0; i < pool.size(); ++i) {
        if (pool[i]->alive()) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
        return pool[x]->free_memory() > pool[y]->free_memory();
      });
      bool placed = false;
      for (uint32_t i : order) {
        if (pool[i]->MakeRoom(f, surplus, &result.evicted)) {
          pool[i]->CreateWarming(f);
          result.created.push_back({i, f});
          placed = true;
          break;
        }
      }
      if (!placed) break;
      --missing;
    }
  }
  return result;
}

}  // namespace jigsaw::faas
