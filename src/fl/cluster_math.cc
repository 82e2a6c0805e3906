#include "fl/cluster_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/rng.h"

namespace jigsaw {

double SquaredDistance(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    sum += d * d;
  }
  return sum;
}

std::vector<int> TwoMeans(const Rows& rows, uint64_t seed, int restarts) {
  const size_t n = rows.size();
  std::vector<int> best(n, 0);
  if (n < 2) return best;
  const size_t dims = rows[0].size();
  double best_inertia = std::numeric_limits<double>::infinity();
  Rng rng(seed);
  for (int attempt = 0; attempt < std::max(1, restarts); ++attempt) {
    // k-means++: first centre uniform, second by squared distance.
    std::vector<std::vector<double>> centre(2, std::vector<double>(dims));
    const size_t first = rng.UniformInt(n);
    std::vector<double> weight(n);
    for (size_t i = 0; i < n; ++i) weight[i] = SquaredDistance(rows[i], rows[first]);
    const bool all_equal =
        std::all_of(weight.begin(), weight.end(), [](double w) { return w == 0; });
    const size_t second = all_equal ? (first + 1) % n : rng.WeightedIndex(weight);
    for (size_t d = 0; d < dims; ++d) {
      centre[0][d] = rows[first][d];
      centre[1][d] = rows[second][d];
    }
    std::vector<int> label(n, -1);
    double inertia = 0.0;
    for (int iteration = 0; iteration < 100; ++iteration) {
      bool changed = false;
      inertia = 0.0;
      for (size_t i = 0; i < n; ++i) {
        double dist[2] = {0.0, 0.0};
        for (int k = 0; k < 2; ++k) {
          for (size_t d = 0; d < dims; ++d) {
            const double diff = rows[i][d] - centre[k][d];
            dist[k] += diff * diff;
          }
        }
        const int nearest = dist[1] < dist[0] ? 1 : 0;
        inertia += dist[nearest];
        if (label[i] != nearest) changed = true;
        label[i] = nearest;
      }
      if (!changed) break;
      for (int k = 0; k < 2; ++k) {
        std::vector<double> sum(dims, 0.0);
        int count = 0;
        for (size_t i = 0; i < n; ++i) {
          if (label[i] != k) continue;
          ++count;
          for (size_t d = 0; d < dims; ++d) sum[d] += rows[i][d];
        }
        if (count > 0) {
          for (size_t d = 0; d < dims; ++d) centre[k][d] = sum[d] / count;
        }
      }
    }
    if (inertia < best_inertia) {
      best_inertia = inertia;
      best = label;
    }
  }
  return best;
}

std::vector<int> NearestRows(const Rows& rows, const std::vector<float>& query, int k) {
  std::vector<std::pair<double, int>> dist;
  for (size_t i = 0; i < rows.size(); ++i) {
    dist.emplace_back(SquaredDistance(rows[i], query), static_cast<int>(i));
  }
  const size_t keep = std::min(dist.size(), static_cast<size_t>(std::max(0, k)));
  std::partial_sort(dist.begin(), dist.begin() + keep, dist.end());
  std::vector<int> result;
  for (size_t i = 0; i < keep; ++i) result.push_back(dist[i].second);
  return result;
}

Rows CenterRows(const Rows& rows) {
  if (rows.empty()) return rows;
  std::vector<double> mean(rows[0].size(), 0.0);
  for (const auto& row : rows) {
    for (size_t d = 0; d < row.size(); ++d) mean[d] += row[d];
  }
  for (double& m : mean) m /= rows.size();
  Rows result = rows;
  for (auto& row : result) {
    for (size_t d = 0; d < row.size(); ++d) row[d] = static_cast<float>(row[d] - mean[d]);
  }
  return result;
}

Rows NormalizeRows(const Rows& rows) {
  Rows result = rows;
  for (auto& row : result) {
    double norm = 0.0;
    for (float v : row) norm += static_cast<double>(v) * v;
    norm = std::sqrt(norm);
    if (norm > 0.0) {
      for (float& v : row) v = static_cast<float>(v / norm);
    }
  }
  return result;
}

namespace {

double Choose2(double n) { return n * (n - 1.0) / 2.0; }

}  // namespace

double AdjustedRandIndex(const std::vector<int>& a, const std::vector<int>& b) {
  std::map<std::pair<int, int>, double> joint;
  std::map<int, double> rows, cols;
  for (size_t i = 0; i < a.size(); ++i) {
    joint[{a[i], b[i]}] += 1;
    rows[a[i]] += 1;
    cols[b[i]] += 1;
  }
  double index = 0, sum_rows = 0, sum_cols = 0;
  for (const auto& [key, n] : joint) index += Choose2(n);
  for (const auto& [key, n] : rows) sum_rows += Choose2(n);
  for (const auto& [key, n] : cols) sum_cols += Choose2(n);
  const double total = Choose2(static_cast<double>(a.size()));
  if (total == 0) return 1.0;
  const double expected = sum_rows * sum_cols / total;
  const double max_index = 0.5 * (sum_rows + sum_cols);
  if (max_index == expected) return 1.0;
  return (index - expected) / (max_index - expected);
}

double Purity(const std::vector<int>& clusters, const std::vector<int>& truth) {
  if (clusters.empty()) return 1.0;
  std::map<int, std::map<int, int>> counts;
  for (size_t i = 0; i < clusters.size(); ++i) ++counts[clusters[i]][truth[i]];
  int majority = 0;
  for (const auto& [cluster, by_truth] : counts) {
    int best = 0;
    for (const auto& [label, n] : by_truth) best = std::max(best, n);
    majority += best;
  }
  return static_cast<double>(majority) / clusters.size();
}

double ProjectedSeparation(const Rows& rows, const std::vector<int>& labels) {
  if (rows.empty() || rows.size() != labels.size()) return 0.0;
  const size_t dims = rows[0].size();
  std::vector<double> centroid[2] = {std::vector<double>(dims, 0.0),
                                     std::vector<double>(dims, 0.0)};
  int count[2] = {0, 0};
  for (size_t i = 0; i < rows.size(); ++i) {
    if (labels[i] != 0 && labels[i] != 1) continue;
    ++count[labels[i]];
    for (size_t d = 0; d < dims; ++d) centroid[labels[i]][d] += rows[i][d];
  }
  if (count[0] < 2 || count[1] < 2) return 0.0;
  std::vector<double> axis(dims);
  double distance = 0.0;
  for (size_t d = 0; d < dims; ++d) {
    centroid[0][d] /= count[0];
    centroid[1][d] /= count[1];
    axis[d] = centroid[1][d] - centroid[0][d];
    distance += axis[d] * axis[d];
  }
  distance = std::sqrt(distance);
  if (distance == 0.0) return 0.0;
  for (double& a : axis) a /= distance;
  double mean[2] = {0.0, 0.0}, square[2] = {0.0, 0.0};
  for (size_t i = 0; i < rows.size(); ++i) {
    if (labels[i] != 0 && labels[i] != 1) continue;
    double projection = 0.0;
    for (size_t d = 0; d < dims; ++d) projection += (rows[i][d] - centroid[labels[i]][d]) * axis[d];
    mean[labels[i]] += projection;
    square[labels[i]] += projection * projection;
  }
  double pooled = 0.0;
  for (int side = 0; side < 2; ++side) {
    const double m = mean[side] / count[side];
    pooled += (square[side] / count[side] - m * m) / 2.0;
  }
  if (pooled <= 0.0) return 1e9;
  return distance / std::sqrt(pooled);
}

}  // namespace jigsaw
