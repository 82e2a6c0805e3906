#include "serve/knn_cache.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "core/error.h"

namespace jigsaw {

KnnCache::KnnCache(KnnCacheOptions options) : options_(std::move(options)), rng_(options_.seed) {
  if (options_.layers.size() != options_.max_distance.size()) {
    throw UsageError("freeze cache: one distance bound per cached layer");
  }
  if (!std::is_sorted(options_.layers.begin(), options_.layers.end()) ||
      (!options_.layers.empty() && options_.layers.front() < 0)) {
    throw UsageError("freeze cache: layers must be ascending and >= 0");
  }
  if (options_.k < 1 || options_.classes < 1 || options_.per_class_capacity < 1) {
    throw UsageError("freeze cache: k, classes and the per-class capacity must be >= 1");
  }
  if (options_.lower_bound_groups < 0) {
    throw UsageError("freeze cache: lower-bound groups must be >= 0");
  }
  stores_.resize(options_.layers.size());
  for (Store& store : stores_) {
    store.rows.resize(options_.classes);
    store.sums.resize(options_.classes);
    store.seen.assign(options_.classes, 0);
  }
}

namespace {

constexpr size_t kLanes = 8;

float Total(const float (&lanes)[kLanes]) {
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
         ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

// Squared L2 distance of two width-long rows, or some partial sum above `worst` as soon as one
// is seen (checked every 32 values). Eight independent accumulators so the compiler can keep
// them in one vector register (a single running sum would serialise every add).
float SquaredDistance(const float* row, const float* query, size_t width, float worst) {
  float lanes[kLanes] = {};
  const size_t whole = width - width % kLanes;
  size_t i = 0;
  while (i < whole) {
    const size_t end = std::min(whole, i + 4 * kLanes);
    for (; i < end; i += kLanes) {
      for (size_t j = 0; j < kLanes; ++j) {
        const float d = row[i + j] - query[i + j];
        lanes[j] += d * d;
      }
    }
    const float partial = Total(lanes);
    if (partial > worst) return partial;
  }
  float sum = Total(lanes);
  for (; i < width; ++i) {
    const float d = row[i] - query[i];
    sum += d * d;
  }
  return sum;
}

}  // namespace

int KnnCache::Slot(int layer) const {
  const auto it = std::lower_bound(options_.layers.begin(), options_.layers.end(), layer);
  if (it == options_.layers.end() || *it != layer) return -1;
  return static_cast<int>(it - options_.layers.begin());
}

size_t KnnCache::entries(int layer) const {
  const int slot = Slot(layer);
  if (slot < 0 || stores_[slot].width == 0) return 0;
  size_t count = 0;
  for (const std::vector<float>& rows : stores_[slot].rows) count += rows.size();
  return count / stores_[slot].width;
}

size_t KnnCache::MemoryBytes() const {
  size_t bytes = 0;
  for (const Store& store : stores_) {
    for (const std::vector<float>& rows : store.rows) bytes += rows.size() * sizeof(float);
    for (const std::vector<float>& sums : store.sums) bytes += sums.size() * sizeof(float);
  }
  return bytes;
}

std::optional<KnnCache::Probed> KnnCache::Probe(int layer, std::span<const float> features) const {
  const int slot = Slot(layer);
  if (slot < 0) return std::nullopt;
  std::vector<float> buffer;
  const std::span<const float> compared = Compared(slot, features, &buffer);
  if (compared.empty()) return std::nullopt;
  return Nearest(slot, compared, std::numeric_limits<float>::infinity(), false);
}

void KnnCache::BlockSums(const float* values, size_t width, size_t block, float* out) {
  for (size_t begin = 0, g = 0; begin < width; begin += block, ++g) {
    const size_t end = std::min(width, begin + block);
    double sum = 0;
    for (size_t i = begin; i < end; ++i) sum += values[i];
    out[g] = static_cast<float>(sum / std::sqrt(static_cast<double>(end - begin)));
  }
}

void KnnCache::GroupSums(const Store& store, const float* features, float* out) {
  if (store.groups == 0) return;
  BlockSums(features, store.width, store.group_size, out);
}

std::span<const float> KnnCache::Compared(int slot, std::span<const float> features,
                                          std::vector<float>* buffer) const {
  const Store& store = stores_[slot];
  if (store.input_width == 0 || features.size() != store.input_width) return {};
  if (store.pool_size == 0) return features;
  buffer->resize(store.width);
  BlockSums(features.data(), store.input_width, store.pool_size, buffer->data());
  return *buffer;
}

std::optional<KnnCache::Probed> KnnCache::Nearest(int slot, std::span<const float> features,
                                                  float limit, bool use_lower_bound) const {
  const Store& store = stores_[slot];
  if (store.width == 0 || features.size() != store.width) return std::nullopt;
  // The k smallest (distance^2, row index in class order), ascending: the same k rows whatever
  // order rows are visited in. A row is abandoned as soon as its partial sum exceeds the current
  // k-th smallest (or `limit` while fewer than k are kept).
  struct Candidate {
    float distance;
    int label;
    size_t index;
  };
  const size_t k = static_cast<size_t>(options_.k);
  std::vector<Candidate> best;
  best.reserve(k + 1);
  float worst = limit;
  auto keep = [&](float sum, int label, size_t index) {
    if (sum > worst) return;
    const Candidate candidate{sum, label, index};
    const auto at = std::upper_bound(
        best.begin(), best.end(), candidate, [](const Candidate& a, const Candidate& b) {
          return a.distance < b.distance || (a.distance == b.distance && a.index < b.index);
        });
    best.insert(at, candidate);
    if (best.size() > k) best.pop_back();
    if (best.size() == k) worst = best.back().distance;
  };
  if (!use_lower_bound || store.groups == 0) {
    size_t index = 0;
    for (int label = 0; label < options_.classes; ++label) {
      const std::vector<float>& rows = store.rows[label];
      for (size_t start = 0; start < rows.size(); start += store.width, ++index) {
        keep(SquaredDistance(rows.data() + start, features.data(), store.width, worst), label,
             index);
      }
    }
  } else {
    // Pass 1: every row's group-sum lower bound; the k rows with the smallest bounds are
    // measured first so that `worst` is tight before the rest are filtered by their bounds.
    std::vector<float> query_sums(store.groups);
    GroupSums(store, features.data(), query_sums.data());
    std::vector<const float*> row_at;
    std::vector<int> label_at;
    std::vector<float> lower_at;
    std::vector<std::pair<float, size_t>> seeds;  // k smallest bounds, ascending
    for (int label = 0; label < options_.classes; ++label) {
      const std::vector<float>& rows = store.rows[label];
      const float* sums = store.sums[label].data();
      for (size_t start = 0; start < rows.size(); start += store.width, sums += store.groups) {
        float lower = 0;
        for (size_t g = 0; g < store.groups; ++g) {
          const float d = sums[g] - query_sums[g];
          lower += d * d;
        }
        const size_t index = row_at.size();
        row_at.push_back(rows.data() + start);
        label_at.push_back(label);
        lower_at.push_back(lower);
        if (seeds.size() < k || lower < seeds.back().first) {
          const std::pair<float, size_t> seed{lower, index};
          seeds.insert(std::upper_bound(seeds.begin(), seeds.end(), seed), seed);
          if (seeds.size() > k) seeds.pop_back();
        }
      }
    }
    std::vector<char> measured(row_at.size(), 0);
    for (const auto& [lower, index] : seeds) {
      measured[index] = 1;
      keep(SquaredDistance(row_at[index], features.data(), store.width, worst), label_at[index],
           index);
    }
    // The bound is computed in float: it must exceed `worst` by a margin far above rounding
    // before a row is skipped, so a skipped row is never one the full search would keep.
    constexpr float kSkipMargin = 1.001f;
    for (size_t index = 0; index < row_at.size(); ++index) {
      if (measured[index] || lower_at[index] > worst * kSkipMargin) continue;
      keep(SquaredDistance(row_at[index], features.data(), store.width, worst), label_at[index],
           index);
    }
  }
  if (best.size() < k) return std::nullopt;
  double distance = 0;
  for (size_t i = 0; i < k; ++i) {
    if (best[i].label != best[0].label) return std::nullopt;
    distance += std::sqrt(static_cast<double>(best[i].distance));
  }
  return Probed{static_cast<int64_t>(best[0].label), distance / static_cast<double>(k)};
}

std::optional<CacheAnswer> KnnCache::Lookup(int layer, std::span<const float> features) {
  const int slot = Slot(layer);
  if (slot < 0) return std::nullopt;
  const double bound = options_.max_distance[slot];
  // A hit needs the k nearest distances to average at most `bound`, so none of them exceeds
  // k * bound: rows farther than that can be abandoned from the first one on. The answer is the
  // same as Probe's (fewer than k rows within k * bound means the true mean exceeds the bound);
  // the slack keeps float rounding from dropping a row exactly at the limit.
  float limit = std::numeric_limits<float>::infinity();
  if (std::isfinite(bound) && bound >= 0) {
    const double reach = options_.k * bound;
    const double squared = reach * reach * (1 + 1e-4) + 1e-12;
    if (squared < std::numeric_limits<float>::max()) limit = static_cast<float>(squared);
  }
  std::vector<float> buffer;
  const std::span<const float> compared = Compared(slot, features, &buffer);
  if (compared.empty()) return std::nullopt;
  const std::optional<Probed> probed = Nearest(slot, compared, limit, true);
  if (!probed || probed->mean_distance > bound) return std::nullopt;
  return CacheAnswer{probed->label, {}};
}

void KnnCache::set_max_distance(int layer, double bound) {
  const int slot = Slot(layer);
  if (slot < 0) throw UsageError("freeze cache: layer " + std::to_string(layer) + " is not cached");
  options_.max_distance[slot] = bound;
}

void KnnCache::Insert(int layer, std::span<const float> features, int64_t label,
                      std::span<const float> logits) {
  const int slot = Slot(layer);
  if (slot < 0 || label < 0 || label >= options_.classes || features.empty()) return;
  Store& store = stores_[slot];
  if (store.input_width == 0) {
    store.input_width = features.size();
    store.width = features.size();
    const size_t groups = static_cast<size_t>(options_.lower_bound_groups);
    if (groups > 0 && options_.pool_width > 0 && store.input_width >= options_.pool_width &&
        store.input_width >= 4 * groups) {
      store.pool_size = (store.input_width + groups - 1) / groups;
      store.width = (store.input_width + store.pool_size - 1) / store.pool_size;
    } else if (groups > 0 && store.width >= 4 * groups) {
      store.group_size = (store.width + groups - 1) / groups;
      store.groups = (store.width + store.group_size - 1) / store.group_size;
    }
  }
  if (features.size() != store.input_width) {
    throw std::invalid_argument("freeze cache: layer " + std::to_string(layer) + " has width " +
                                std::to_string(store.input_width) + ", insert of " +
                                std::to_string(features.size()));
  }
  std::vector<float> buffer;
  features = Compared(slot, features, &buffer);
  std::vector<float>& rows = store.rows[label];
  std::vector<float>& sums = store.sums[label];
  std::vector<float> row_sums(store.groups);
  GroupSums(store, features.data(), row_sums.data());
  const int64_t seen = store.seen[label]++;
  const size_t capacity = static_cast<size_t>(options_.per_class_capacity);
  if (rows.size() / store.width < capacity) {
    rows.insert(rows.end(), features.begin(), features.end());
    sums.insert(sums.end(), row_sums.begin(), row_sums.end());
    return;
  }
  const uint64_t slot_index = rng_.UniformInt(static_cast<uint64_t>(seen) + 1);
  if (slot_index < capacity) {
    std::copy(features.begin(), features.end(), rows.begin() + slot_index * store.width);
    std::copy(row_sums.begin(), row_sums.end(), sums.begin() + slot_index * store.groups);
  }
}

}  // namespace jigsaw
