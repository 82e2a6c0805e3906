#include "fl/partition.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"

namespace jigsaw {
namespace {

constexpr double kPi = 3.14159265358979323846;

double StandardNormal(Rng& rng) {
  const double u1 = 1.0 - rng.Uniform();  // (0, 1]
  const double u2 = rng.Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

template <typename T>
void Shuffle(std::vector<T>& values, Rng& rng) {
  for (size_t i = values.size(); i > 1; --i) std::swap(values[i - 1], values[rng.UniformInt(i)]);
}

}  // namespace

// Marsaglia and Tsang; shape < 1 through Gamma(shape + 1) * U^(1/shape).
double SampleGamma(double shape, Rng& rng) {
  if (shape < 1.0) {
    const double u = 1.0 - rng.Uniform();
    return SampleGamma(shape + 1.0, rng) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    double x, v;
    do {
      x = StandardNormal(rng);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = 1.0 - rng.Uniform();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

std::vector<double> SampleDirichlet(int n, double alpha, Rng& rng) {
  std::vector<double> values(n);
  double sum = 0.0;
  for (double& v : values) sum += (v = SampleGamma(alpha, rng));
  if (sum <= 0.0) {  // every draw underflowed (tiny alpha): all mass on one coordinate
    values.assign(n, 0.0);
    values[rng.UniformInt(n)] = 1.0;
    return values;
  }
  for (double& v : values) v /= sum;
  return values;
}

std::vector<std::vector<int>> DirichletPartition(const std::vector<int>& labels, int classes,
                                                 int clients, double alpha, uint64_t seed) {
  if (clients < 1 || classes < 1 || !(alpha > 0.0)) {
    throw UsageError("Dirichlet partition: need clients >= 1, classes >= 1 and alpha > 0");
  }
  Rng rng(seed);
  std::vector<std::vector<int>> by_class(classes);
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] >= 0 && labels[i] < classes) by_class[labels[i]].push_back(static_cast<int>(i));
  }
  std::vector<std::vector<int>> result(clients);
  for (auto& samples : by_class) {
    Shuffle(samples, rng);
    const std::vector<double> share = SampleDirichlet(clients, alpha, rng);
    double cumulative = 0.0;
    size_t begin = 0;
    for (int c = 0; c < clients; ++c) {
      cumulative += share[c];
      const size_t end =
          c + 1 == clients
              ? samples.size()
              : std::min(samples.size(),
                         static_cast<size_t>(std::llround(cumulative * samples.size())));
      for (size_t i = begin; i < end; ++i) result[c].push_back(samples[i]);
      begin = std::max(begin, end);
    }
  }
  return result;
}

GroupedClients PermutationGroups(const std::vector<int>& train_labels,
                                 const std::vector<int>& test_labels, int classes, int clients,
                                 int groups, int per_client, int test_per_client, uint64_t seed) {
  if (groups < 1 || clients < groups || per_client < 1 || test_per_client < 1 || classes < 2 ||
      train_labels.empty() || test_labels.empty()) {
    throw UsageError(
        "permutation groups: need 1 <= groups <= clients, samples per client >= 1 and data");
  }
  Rng rng(seed);
  GroupedClients result;
  result.permutation.resize(groups);
  for (int g = 0; g < groups; ++g) {
    std::vector<int>& perm = result.permutation[g];
    perm.resize(classes);
    std::iota(perm.begin(), perm.end(), 0);
    // Group 0 keeps the labels; the others get distinct random permutations.
    while (g > 0 && std::find(result.permutation.begin(), result.permutation.begin() + g, perm) !=
                        result.permutation.begin() + g) {
      Shuffle(perm, rng);
    }
  }
  std::vector<int> train_order(train_labels.size());
  std::iota(train_order.begin(), train_order.end(), 0);
  Shuffle(train_order, rng);
  std::vector<int> test_order(test_labels.size());
  std::iota(test_order.begin(), test_order.end(), 0);
  Shuffle(test_order, rng);
  size_t next_train = 0;
  size_t next_test = 0;
  result.train_index.resize(clients);
  result.train_label.resize(clients);
  result.test_index.resize(clients);
  result.test_label.resize(clients);
  for (int c = 0; c < clients; ++c) {
    const int g = c % groups;
    result.group.push_back(g);
    for (int s = 0; s < per_client; ++s) {
      const int i = train_order[next_train++ % train_order.size()];
      result.train_index[c].push_back(i);
      result.train_label[c].push_back(result.permutation[g][train_labels[i]]);
    }
    for (int s = 0; s < test_per_client; ++s) {
      const int i = test_order[next_test++ % test_order.size()];
      result.test_index[c].push_back(i);
      result.test_label[c].push_back(result.permutation[g][test_labels[i]]);
    }
  }
  return result;
}

}  // namespace jigsaw
