#include "fl/blobs.h"

#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/rng.h"

namespace jigsaw {

BlobPopulation MakeBlobs(int clients, int blobs, double stddev, int dims, double min_separation,
                         uint64_t seed) {
  if (clients < 1 || blobs < 1 || dims < 1 || !(stddev >= 0)) {
    throw UsageError("blobs: need clients, blobs, dims >= 1 and stddev >= 0");
  }
  Rng rng(seed);
  std::vector<std::vector<double>> centre;
  for (int attempt = 0; static_cast<int>(centre.size()) < blobs; ++attempt) {
    if (attempt > 100000) throw UsageError("blobs: cannot place the centres that far apart");
    std::vector<double> c(dims);
    for (double& x : c) x = rng.Uniform(-10.0, 10.0);
    bool apart = true;
    for (const auto& other : centre) {
      double d2 = 0.0;
      for (int d = 0; d < dims; ++d) d2 += (c[d] - other[d]) * (c[d] - other[d]);
      apart &= d2 >= min_separation * min_separation;
    }
    if (apart) centre.push_back(std::move(c));
  }
  BlobPopulation population;
  for (int i = 0; i < clients; ++i) {
    const int b = i % blobs;
    std::vector<float> point(dims);
    for (int d = 0; d < dims; ++d) {
      const double u1 = 1.0 - rng.Uniform();
      const double u2 = rng.Uniform();
      const double normal = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
      point[d] = static_cast<float>(centre[b][d] + stddev * normal);
    }
    population.points.push_back(std::move(point));
    population.blob.push_back(b);
  }
  return population;
}

BlobDiscoveryResult RunBlobDiscovery(const BlobPopulation& population, const CohortOptions& options,
                                     int epochs, int per_round, uint64_t seed) {
  const int n = static_cast<int>(population.points.size());
  CohortTable table(n, options);
  Rng rng(seed);
  BlobDiscoveryResult result;
  std::vector<int> order(n);
  for (int epoch = 0; epoch < epochs; ++epoch) {
    std::iota(order.begin(), order.end(), 0);
    const int sampled = std::min(per_round, n);
    for (int i = 0; i < sampled; ++i) std::swap(order[i], order[i + rng.UniformInt(n - i)]);
    for (int cohort = 0; cohort < table.num_cohorts(); ++cohort) {
      std::vector<int> members;
      Rows rows;
      for (int i = 0; i < sampled; ++i) {
        if (table.affiliation(order[i]) != cohort) continue;
        members.push_back(order[i]);
        rows.push_back(population.points[order[i]]);
      }
      if (static_cast<int>(members.size()) < options.min_participants) continue;
      if (table.Update(cohort, members, rows, rows) >= 0) {
        result.split_epochs.push_back(epoch);
      }
    }
  }
  result.cohorts = table.num_cohorts();
  result.assignment = table.Assignments();
  result.ari = AdjustedRandIndex(result.assignment, population.blob);
  result.purity = Purity(result.assignment, population.blob);
  return result;
}

}  // namespace jigsaw
