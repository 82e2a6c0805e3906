// Non-IID partitions of a centrally labelled data set (Fashion-MNIST) into federated clients.
//
// DirichletPartition: label skew. For every class, its samples are shuffled and cut among the
// clients in proportions drawn from Dirichlet(alpha, ..., alpha); small alpha = few classes per
// client. Every sample goes to exactly one client.
// PermutationGroups: `groups` ground-truth groups of equal size (client c is in group c % groups).
// Each client gets `per_client` IID training samples (disjoint across clients while the pool
// lasts, then drawn again) and `test_per_client` test samples; group g relabels class y as
// perm_g[y], with perm_0 the identity and the others distinct random permutations. The groups
// therefore disagree on labels, so one global model cannot fit them all.
// Both throw UsageError for impossible arguments.
#ifndef JIGSAW_FL_PARTITION_H_
#define JIGSAW_FL_PARTITION_H_

#include <cstdint>
#include <vector>

#include "core/rng.h"

namespace jigsaw {

// Gamma(shape, 1) and Dirichlet samples from the project's seeded Rng.
double SampleGamma(double shape, Rng& rng);
std::vector<double> SampleDirichlet(int n, double alpha, Rng& rng);

// Per client, the indices of its samples.
std::vector<std::vector<int>> DirichletPartition(const std::vector<int>& labels, int classes,
                                                 int clients, double alpha, uint64_t seed);

struct GroupedClients {
  std::vector<std::vector<int>> train_index;
  std::vector<std::vector<int>> train_label;
  std::vector<std::vector<int>> test_index;
  std::vector<std::vector<int>> test_label;
  std::vector<int> group;
  std::vector<std::vector<int>> permutation;  // per group
};

GroupedClients PermutationGroups(const std::vector<int>& train_labels,
                                 const std::vector<int>& test_labels, int classes, int clients,
                                 int groups, int per_client, int test_per_client, uint64_t seed);

}  // namespace jigsaw

#endif  // JIGSAW_FL_PARTITION_H_
