#include "paramsvc/packing.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <stdexcept>

namespace jigsaw::paramsvc {

std::vector<int> FirstFitDecreasing(const std::vector<double>& demands, double capacity) {
  if (!(capacity > 0)) throw std::invalid_argument("bin capacity must be positive");
  std::vector<size_t> order(demands.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return demands[a] > demands[b]; });
  std::vector<int> assignment(demands.size(), -1);
  std::vector<double> loads;
  for (size_t item : order) {
    int bin = FirstFit(loads, demands[item], capacity);
    if (bin < 0) {
      bin = static_cast<int>(loads.size());
      loads.push_back(0);
    }
    loads[bin] += demands[item];
    assignment[item] = bin;
  }
  return assignment;
}

int BinCount(const std::vector<int>& assignment) {
  int bins = 0;
  for (int bin : assignment) bins = std::max(bins, bin + 1);
  return bins;
}

int FirstFit(const std::vector<double>& bin_loads, double demand, double capacity) {
  for (size_t bin = 0; bin < bin_loads.size(); ++bin) {
    if (bin_loads[bin] + demand <= capacity) return static_cast<int>(bin);
  }
  return -1;
}

uint64_t ShardCount(uint64_t parameters, double demand, uint64_t max_shard_floats,
                    double capacity) {
  if (parameters == 0 || max_shard_floats == 0 || !(capacity > 0)) return 1;
  uint64_t count = (parameters + max_shard_floats - 1) / max_shard_floats;
  if (demand > 0) {
    count = std::max<uint64_t>(
        count, static_cast<uint64_t>(std::min(std::ceil(demand / (capacity / 2)), 1e9)));
  }
  return std::max<uint64_t>(1, std::min<uint64_t>({count, kMaxShardsPerJob, parameters}));
}

int OptimalBinCount(const std::vector<double>& demands, double capacity) {
  if (demands.size() > 12) throw std::invalid_argument("OptimalBinCount: at most 12 items");
  std::vector<double> sorted = demands;
  std::sort(sorted.rbegin(), sorted.rend());
  int best = static_cast<int>(sorted.size());
  std::vector<double> loads;
  // Depth-first over "which open bin (or a new one) takes the next item".
  std::function<void(size_t)> place = [&](size_t item) {
    if (static_cast<int>(loads.size()) >= best) return;
    if (item == sorted.size()) {
      best = static_cast<int>(loads.size());
      return;
    }
    for (size_t bin = 0; bin < loads.size(); ++bin) {
      if (loads[bin] + sorted[item] <= capacity) {
        loads[bin] += sorted[item];
        place(item + 1);
        loads[bin] -= sorted[item];
      }
    }
    loads.push_back(sorted[item]);
    place(item + 1);
    loads.pop_back();
  };
  place(0);
  return best;
}

}  // namespace jigsaw::paramsvc
