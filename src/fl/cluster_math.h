// Small clustering helpers for cohort discovery and its evaluation (no external libraries).
//
// Rows are equal-length float vectors. TwoMeans is Lloyd's k-means with k = 2, seeded k-means++
// initialisation and the best of `restarts` runs by inertia (FedScale uses scikit-learn's
// MiniBatchKMeans; full Lloyd is exact for the few dozen signatures of a round). Labels are 0/1;
// fewer than 2 rows label everything 0. NearestRows returns the indices of the k rows closest to
// `query` (Euclidean; the query row itself included if present), nearest first.
// AdjustedRandIndex (Hubert and Arabie) and Purity compare a clustering with ground truth; labels
// are arbitrary integers. ARI of two single-cluster labellings is defined as 1.
#ifndef JIGSAW_FL_CLUSTER_MATH_H_
#define JIGSAW_FL_CLUSTER_MATH_H_

#include <cstdint>
#include <vector>

namespace jigsaw {

using Rows = std::vector<std::vector<float>>;

double SquaredDistance(const std::vector<float>& a, const std::vector<float>& b);

std::vector<int> TwoMeans(const Rows& rows, uint64_t seed, int restarts = 4);

std::vector<int> NearestRows(const Rows& rows, const std::vector<float>& query, int k);

// Subtracts the column mean from every row (returned) and, separately, the same rows scaled to
// unit L2 norm (zero rows stay zero).
Rows CenterRows(const Rows& rows);

// How clearly two labelled groups of rows (label 0 or 1; other labels ignored) are apart: the
// distance between their centroids divided by the pooled standard deviation of the rows projected
// onto the line through the centroids. About 2.7 for the two halves of one Gaussian cut through
// its centre, larger for separate clusters. 0 when a group has fewer than 2 rows; 1e9 when the
// groups are apart but have no spread.
double ProjectedSeparation(const Rows& rows, const std::vector<int>& labels);
Rows NormalizeRows(const Rows& rows);

double AdjustedRandIndex(const std::vector<int>& a, const std::vector<int>& b);
// Share of items whose cluster's most common true label is their own.
double Purity(const std::vector<int>& clusters, const std::vector<int>& truth);

}  // namespace jigsaw

#endif  // JIGSAW_FL_CLUSTER_MATH_H_
