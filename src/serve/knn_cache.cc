#include "serve/knn_cache.h"

#include <algorithm>
#include <cmath>
#include <cstring>
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
  if (options_.lower_bound_groups < 0 || options_.principal_dims < 0) {
    throw UsageError("freeze cache: lower-bound groups and principal dimensions must be >= 0");
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

// Four floats in one vector register (GCC / Clang vector extension); two of them are the eight
// lanes below, so the loops compile to packed instructions whatever the target flags.
using Vec4 = float __attribute__((vector_size(16)));

Vec4 Load4(const float* values) {
  Vec4 v;
  std::memcpy(&v, values, sizeof v);
  return v;
}

float Total(Vec4 low, Vec4 high) {
  return ((low[0] + low[1]) + (low[2] + low[3])) + ((high[0] + high[1]) + (high[2] + high[3]));
}

// Squared L2 distance of two width-long rows, or some partial sum above `worst` as soon as one
// is seen (checked every 32 values). Eight independent accumulators (lane j sums the values at
// i = j mod 8), so the adds pipeline instead of waiting on one running sum.
float SquaredDistance(const float* row, const float* query, size_t width, float worst) {
  Vec4 low = {}, high = {};
  const size_t whole = width - width % kLanes;
  size_t i = 0;
  while (i < whole) {
    const size_t end = std::min(whole, i + 4 * kLanes);
    for (; i < end; i += kLanes) {
      const Vec4 d0 = Load4(row + i) - Load4(query + i);
      const Vec4 d1 = Load4(row + i + 4) - Load4(query + i + 4);
      low += d0 * d0;
      high += d1 * d1;
    }
    const float partial = Total(low, high);
    if (partial > worst) return partial;
  }
  float sum = Total(low, high);
  for (; i < width; ++i) {
    const float d = row[i] - query[i];
    sum += d * d;
  }
  return sum;
}

// Squared L2 distance of the first `count` (<= kLanes) values of two rows.
float HeadDistance(const float* a, const float* b, size_t count) {
  if (count == kLanes) {
    const Vec4 d0 = Load4(a) - Load4(b);
    const Vec4 d1 = Load4(a + 4) - Load4(b + 4);
    return Total(d0 * d0, d1 * d1);
  }
  float sum = 0;
  for (size_t j = 0; j < count; ++j) {
    const float d = a[j] - b[j];
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
    bytes += store.basis.size() * sizeof(double);
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
  if (store.basis.empty()) {
    BlockSums(features, store.width, store.group_size, out);
    return;
  }
  const double* direction = store.basis.data();
  const size_t whole = store.width - store.width % 4;
  for (size_t g = 0; g < store.groups; ++g, direction += store.width) {
    double lanes[4] = {};  // independent sums, so the additions pipeline
    size_t i = 0;
    for (; i < whole; i += 4) {
      for (size_t j = 0; j < 4; ++j) lanes[j] += direction[i + j] * features[i + j];
    }
    double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (; i < store.width; ++i) sum += direction[i] * features[i];
    out[g] = static_cast<float>(sum);
  }
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
    // A row's lower bound is its projection's distance to the query's projection.
    std::vector<float> query_sums(store.groups);
    GroupSums(store, features.data(), query_sums.data());
    // Float rounding: each stored or query projection value is off by at most ~2^-24 of the
    // row's norm (computed in double, rounded once) and the directions are orthonormal to
    // ~1e-15, so a bound is off by far less than this slack plus 0.05% of the distance. A row
    // is skipped only when its bound exceeds the current k-th distance by more than both.
    double query_norm = 0;
    for (const float value : features) query_norm += static_cast<double>(value) * value;
    const double slack = 1e-6 * std::sqrt(static_cast<double>(store.groups)) *
                         (store.max_norm + std::sqrt(query_norm));
    auto skip_above = [slack](float squared) {
      if (!std::isfinite(squared)) return std::numeric_limits<float>::infinity();
      const double reach = std::sqrt(static_cast<double>(squared)) * 1.0005 + slack;
      return static_cast<float>(reach * reach);
    };
    // Pass 1 bounds every row by its projection's first kLanes values only (a lower bound as
    // well: fewer directions) and keeps the k smallest as seeds. The seeds are measured, which
    // sets a first cut; every other row within it by those values is bounded by its whole
    // projection, and the rows within the cut by that are measured in ascending bound order.
    const size_t head = std::min(store.groups, kLanes);
    size_t entries_total = 0;
    for (const std::vector<float>& rows : store.rows) entries_total += rows.size() / store.width;
    thread_local std::vector<float> heads;
    heads.resize(entries_total);
    struct Seed {
      float lower;
      int label;
      size_t index;
      const float* row;
    };
    std::vector<Seed> seeds;
    seeds.reserve(k + 1);
    size_t index = 0;
    for (int label = 0; label < options_.classes; ++label) {
      const std::vector<float>& rows = store.rows[label];
      const float* sums = store.sums[label].data();
      for (size_t start = 0; start < rows.size();
           start += store.width, sums += store.groups, ++index) {
        const float lower = HeadDistance(sums, query_sums.data(), head);
        heads[index] = lower;
        if (seeds.size() < k || lower < seeds.back().lower) {
          const Seed seed{lower, label, index, rows.data() + start};
          seeds.insert(
              std::upper_bound(seeds.begin(), seeds.end(), seed,
                               [](const Seed& a, const Seed& b) { return a.lower < b.lower; }),
              seed);
          if (seeds.size() > k) seeds.pop_back();
        }
      }
    }
    for (const Seed& seed : seeds) {
      keep(SquaredDistance(seed.row, features.data(), store.width, worst), seed.label, seed.index);
      heads[seed.index] = std::numeric_limits<float>::infinity();  // measured
    }
    float cut = skip_above(worst);
    std::vector<Seed> rest;  // rows whose whole bound is within the seeds' cut
    index = 0;
    for (int label = 0; label < options_.classes; ++label) {
      const std::vector<float>& rows = store.rows[label];
      const float* sums = store.sums[label].data();
      for (size_t start = 0; start < rows.size();
           start += store.width, sums += store.groups, ++index) {
        if (heads[index] > cut) continue;
        const float lower = store.groups > head
                                ? SquaredDistance(sums, query_sums.data(), store.groups, cut)
                                : heads[index];
        if (lower <= cut) rest.push_back({lower, label, index, rows.data() + start});
      }
    }
    // Nearest bounds first (a min-heap): the cut shrinks fastest, and once the smallest
    // remaining bound exceeds it so do all others.
    auto farther = [](const Seed& a, const Seed& b) { return a.lower > b.lower; };
    std::make_heap(rest.begin(), rest.end(), farther);
    for (auto end = rest.end(); end != rest.begin() && rest.front().lower <= cut; --end) {
      const Seed row = rest.front();
      std::pop_heap(rest.begin(), end, farther);
      keep(SquaredDistance(row.row, features.data(), store.width, worst), row.label, row.index);
      cut = skip_above(worst);
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

size_t KnnCache::lower_bound_dims(int layer) const {
  const int slot = Slot(layer);
  return slot < 0 ? 0 : stores_[slot].groups;
}

std::vector<double> KnnCache::PrincipalDirections(const Store& store, size_t dims) const {
  const size_t width = store.width;
  size_t count = 0;
  std::vector<double> mean(width, 0.0);
  for (const std::vector<float>& rows : store.rows) {
    for (size_t start = 0; start < rows.size(); start += width, ++count) {
      for (size_t i = 0; i < width; ++i) mean[i] += rows[start + i];
    }
  }
  for (double& value : mean) value /= static_cast<double>(count);
  // Covariance (upper triangle accumulated, then mirrored).
  std::vector<double> covariance(width * width, 0.0);
  std::vector<double> centred(width);
  for (const std::vector<float>& rows : store.rows) {
    for (size_t start = 0; start < rows.size(); start += width) {
      for (size_t i = 0; i < width; ++i) centred[i] = rows[start + i] - mean[i];
      for (size_t a = 0; a < width; ++a) {
        double* line = covariance.data() + a * width;
        const double scale = centred[a];
        for (size_t b = a; b < width; ++b) line[b] += scale * centred[b];
      }
    }
  }
  for (size_t a = 0; a < width; ++a) {
    for (size_t b = 0; b < a; ++b) covariance[a * width + b] = covariance[b * width + a];
  }
  for (const double value : covariance) {
    if (!std::isfinite(value)) return {};
  }
  // Subspace iteration: `dims` directions (rows of `basis`), multiplied by the covariance and
  // orthonormalised (Gram-Schmidt, twice for double-precision orthogonality) on every round.
  // Only the bound's tightness depends on convergence; any orthonormal set keeps it exact.
  Rng rng(options_.seed ^ 0x9e3779b97f4a7c15ull);
  std::vector<double> basis(dims * width);
  for (double& value : basis) value = rng.Uniform(-1.0, 1.0);
  auto orthonormalise = [&](std::vector<double>* vectors) {
    for (size_t c = 0; c < dims; ++c) {
      double* v = vectors->data() + c * width;
      for (int attempt = 0;; ++attempt) {
        for (int pass = 0; pass < 2; ++pass) {
          for (size_t p = 0; p < c; ++p) {
            const double* u = vectors->data() + p * width;
            double dot = 0;
            for (size_t i = 0; i < width; ++i) dot += u[i] * v[i];
            for (size_t i = 0; i < width; ++i) v[i] -= dot * u[i];
          }
        }
        double norm = 0;
        for (size_t i = 0; i < width; ++i) norm += v[i] * v[i];
        norm = std::sqrt(norm);
        if (norm > 1e-150 && std::isfinite(norm)) {
          for (size_t i = 0; i < width; ++i) v[i] /= norm;
          break;
        }
        // A direction the covariance annihilated (rank below `dims`): any other one will do.
        for (size_t i = 0; i < width; ++i) v[i] = rng.Uniform(-1.0, 1.0);
        if (attempt > 8) return false;
      }
    }
    return true;
  };
  if (!orthonormalise(&basis)) return {};
  std::vector<double> next(dims * width);
  for (int round = 0; round < 30; ++round) {
    std::fill(next.begin(), next.end(), 0.0);
    for (size_t c = 0; c < dims; ++c) {
      const double* v = basis.data() + c * width;
      double* out = next.data() + c * width;
      for (size_t a = 0; a < width; ++a) {
        const double* line = covariance.data() + a * width;
        double sum = 0;
        for (size_t b = 0; b < width; ++b) sum += line[b] * v[b];
        out[a] = sum;
      }
    }
    if (!orthonormalise(&next)) return {};
    basis.swap(next);
  }
  return basis;
}

int KnnCache::FitLowerBound() {
  int fitted = 0;
  for (Store& store : stores_) {
    if (store.groups == 0 || options_.principal_dims == 0) continue;
    const size_t dims = std::min(static_cast<size_t>(options_.principal_dims), store.width / 2);
    size_t count = 0;
    for (const std::vector<float>& rows : store.rows) count += rows.size() / store.width;
    if (dims == 0 || count < 2 * dims) continue;
    std::vector<double> basis = PrincipalDirections(store, dims);
    if (basis.empty()) continue;
    store.basis = std::move(basis);
    store.groups = dims;
    for (size_t label = 0; label < store.rows.size(); ++label) {
      const std::vector<float>& rows = store.rows[label];
      std::vector<float>& sums = store.sums[label];
      sums.assign(rows.size() / store.width * dims, 0.0f);
      for (size_t start = 0, at = 0; start < rows.size(); start += store.width, at += dims) {
        GroupSums(store, rows.data() + start, sums.data() + at);
      }
    }
    ++fitted;
  }
  return fitted;
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
  double norm = 0;
  for (const float value : features) norm += static_cast<double>(value) * value;
  store.max_norm = std::max(store.max_norm, std::sqrt(norm));
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
