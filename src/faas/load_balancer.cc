#include "faas/load_balancer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace jigsaw::faas {

LoadBalancer::LoadBalancer(uint32_t dags, uint32_t sgs_count, LoadBalancerOptions options)
    : options_(options),
      sgs_count_(sgs_count),
      sgs_of_(dags),
      calm_(dags, 0),
      since_scale_out_(dags, 1 << 20),
      barred_until_(static_cast<size_t>(dags) * sgs_count, 0) {
  for (uint32_t dag = 0; dag < dags; ++dag) sgs_of_[dag].push_back(dag % sgs_count);
}

uint32_t LoadBalancer::Route(uint32_t dag, const std::vector<double>& load,
                             const std::vector<char>& usable) const {
  int best = -1;
  for (uint32_t s : sgs_of_[dag]) {
    if (usable[s] && (best < 0 || load[s] < load[best])) best = static_cast<int>(s);
  }
  if (best >= 0 && load[best] <= options_.spill_load) return static_cast<uint32_t>(best);
  // Every SGS of the DAG is past spill_load (or dead): the least loaded usable SGS takes the
  // request if it is clearly less loaded, until the next epoch's scale-out.
  int spill = -1;
  for (uint32_t s = 0; s < sgs_count_; ++s) {
    if (usable[s] && (spill < 0 || load[s] < load[spill])) spill = static_cast<int>(s);
  }
  if (best >= 0 && (spill < 0 || load[spill] >= options_.scale_out_load)) {
    return static_cast<uint32_t>(best);
  }
  if (spill >= 0) return static_cast<uint32_t>(spill);
  return sgs_of_[dag].front();
}

void LoadBalancer::SetPoolMemory(PoolMemory memory) {
  if (memory.pool_bytes.size() != sgs_count_ || memory.dag_sandbox_bytes.size() != sgs_of_.size() ||
      memory.dag_functions.size() != sgs_of_.size() || !(memory.epoch_s > 0)) {
    throw std::invalid_argument("LoadBalancer: pool memory sizes do not match the DAGs and SGSs");
  }
  memory_ = std::move(memory);
  memory_set_ = true;
}

uint64_t LoadBalancer::Footprint(uint32_t dag, double cores) const {
  if (!memory_set_) return 0;
  const double functions = std::max<uint32_t>(1, memory_.dag_functions[dag]);
  const double sandboxes = functions + std::ceil(std::clamp(cores, 0.0, 1e9) - 1e-9);
  return static_cast<uint64_t>(
      std::llround(static_cast<double>(memory_.dag_sandbox_bytes[dag]) / functions * sandboxes));
}

uint64_t LoadBalancer::Resident(uint32_t s, const std::vector<double>& demand) const {
  uint64_t bytes = 0;
  for (uint32_t dag = 0; dag < sgs_of_.size(); ++dag) {
    const std::vector<uint32_t>& set = sgs_of_[dag];
    if (std::find(set.begin(), set.end(), s) == set.end()) continue;
    bytes += Footprint(dag, demand[static_cast<size_t>(dag) * sgs_count_ + s] / memory_.epoch_s);
  }
  return bytes;
}

bool LoadBalancer::Fits(uint32_t dag, uint32_t s, double dag_cores,
                        const std::vector<double>& demand) const {
  if (!memory_set_) return true;
  return Resident(s, demand) + Footprint(dag, dag_cores) <= memory_.pool_bytes[s];
}

void LoadBalancer::MemoryScaleIn(const std::vector<double>& demand,
                                 const std::vector<char>& usable) {
  const uint32_t dags = static_cast<uint32_t>(sgs_of_.size());
  for (uint32_t s = 0; s < sgs_count_; ++s) {
    if (!usable[s] || Resident(s, demand) <= memory_.pool_bytes[s]) continue;
    int lightest = -1;
    for (uint32_t dag = 0; dag < dags; ++dag) {
      const std::vector<uint32_t>& set = sgs_of_[dag];
      if (set.size() < 2 || std::find(set.begin(), set.end(), s) == set.end()) continue;
      if (lightest < 0 || demand[static_cast<size_t>(dag) * sgs_count_ + s] <
                              demand[static_cast<size_t>(lightest) * sgs_count_ + s]) {
        lightest = static_cast<int>(dag);
      }
    }
    if (lightest < 0) continue;
    std::vector<uint32_t>& set = sgs_of_[lightest];
    set.erase(std::find(set.begin(), set.end(), s));
    barred_until_[static_cast<size_t>(lightest) * sgs_count_ + s] = epoch_ + options_.calm_epochs;
    calm_[lightest] = 0;
    ++memory_scale_ins_;
    ++scale_ins_;
  }
}

void LoadBalancer::EndEpoch(const std::vector<double>& load, const std::vector<double>& demand,
                            const std::vector<char>& usable) {
  const uint32_t dags = static_cast<uint32_t>(sgs_of_.size());
  ++epoch_;
  for (uint32_t dag = 0; dag < dags; ++dag) ++since_scale_out_[dag];
  if (memory_set_) MemoryScaleIn(demand, usable);
  for (uint32_t s = 0; s < sgs_count_; ++s) {
    if (!usable[s] || load[s] <= options_.scale_out_load) continue;
    int heaviest = -1;
    for (uint32_t dag = 0; dag < dags; ++dag) {
      const double d = demand[static_cast<size_t>(dag) * sgs_count_ + s];
      if (d <= 0 || sgs_of_[dag].size() >= sgs_count_) continue;
      if (heaviest < 0 || d > demand[static_cast<size_t>(heaviest) * sgs_count_ + s]) {
        heaviest = static_cast<int>(dag);
      }
    }
    if (heaviest < 0) continue;
    std::vector<uint32_t>& set = sgs_of_[heaviest];
    // Past capacity, tasks queue: any SGS with idle cores helps, and enough of them join at once
    // to offer the excess (in SGS units, as idle fractions) as spare capacity. Hot but not past
    // capacity: one calm SGS joins.
    const bool past_capacity = load[s] > options_.spill_load;
    const double limit = past_capacity ? options_.spill_load : options_.scale_out_load;
    double excess = past_capacity ? load[s] - options_.spill_load : 0;
    double dag_cores = 0;  // the DAG's cores over its whole set, shared by the enlarged set
    if (memory_set_) {
      for (uint32_t t : set) {
        dag_cores += demand[static_cast<size_t>(heaviest) * sgs_count_ + t] / memory_.epoch_s;
      }
    }
    do {
      // The least loaded SGS by load alone, and the least loaded whose pool fits the DAG.
      int by_load = -1, target = -1;
      const double share = dag_cores / static_cast<double>(set.size() + 1);
      for (uint32_t t = 0; t < sgs_count_; ++t) {
        if (!usable[t] || std::find(set.begin(), set.end(), t) != set.end()) continue;
        if (barred_until_[static_cast<size_t>(heaviest) * sgs_count_ + t] > epoch_) continue;
        if (by_load < 0 || load[t] < load[by_load]) by_load = static_cast<int>(t);
        if (!Fits(static_cast<uint32_t>(heaviest), t, share, demand)) continue;
        if (target < 0 || load[t] < load[target]) target = static_cast<int>(t);
      }
      if (by_load >= 0 && by_load != target && load[by_load] < limit) ++memory_refusals_;
      if (target < 0) break;
      if (load[target] >= limit) break;
      set.push_back(static_cast<uint32_t>(target));
      excess -= options_.spill_load - load[target];
      since_scale_out_[heaviest] = 0;
      calm_[heaviest] = 0;
      ++scale_outs_;
      max_sgs_per_dag_ = std::max(max_sgs_per_dag_, set.size());
    } while (excess > 0);
  }
  for (uint32_t dag = 0; dag < dags; ++dag) {
    std::vector<uint32_t>& set = sgs_of_[dag];
    if (set.size() < 2) continue;
    double mean = 0;
    for (uint32_t s : set) mean += load[s];
    mean /= set.size();
    calm_[dag] = mean < options_.scale_in_load ? calm_[dag] + 1 : 0;
    if (calm_[dag] >= options_.calm_epochs && since_scale_out_[dag] >= options_.calm_epochs) {
      set.pop_back();
      calm_[dag] = 0;
      ++scale_ins_;
    }
  }
}

}  // namespace jigsaw::faas
