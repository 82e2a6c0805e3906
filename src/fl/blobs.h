// FedScale's Auxo playground population: clients are points drawn from Gaussian blobs (centres
// uniform in [-10, 10]^dims, like scikit-learn's make_blobs), and a client's "update signature"
// is its point. RunBlobDiscovery replays the playground: every epoch `per_round` clients are
// sampled uniformly; each cohort's sampled affiliates (at least 5) update the cohort table with
// their raw points (as the playground does: no centering or normalising). The result compares the
// greedy cohort of every client with its blob.
#ifndef JIGSAW_FL_BLOBS_H_
#define JIGSAW_FL_BLOBS_H_

#include <cstdint>
#include <vector>

#include "fl/cluster_math.h"
#include "fl/cohort_table.h"

namespace jigsaw {

struct BlobPopulation {
  Rows points;
  std::vector<int> blob;
};

// Centres are redrawn until every pair is at least min_separation apart (0: any placement).
BlobPopulation MakeBlobs(int clients, int blobs, double stddev, int dims, double min_separation,
                         uint64_t seed);

struct BlobDiscoveryResult {
  int cohorts = 0;
  std::vector<int> assignment;  // greedy cohort per client
  double ari = 0.0;
  double purity = 0.0;
  std::vector<int> split_epochs;  // epochs at which a cohort split
};

BlobDiscoveryResult RunBlobDiscovery(const BlobPopulation& population, const CohortOptions& options,
                                     int epochs, int per_round, uint64_t seed);

}  // namespace jigsaw

#endif  // JIGSAW_FL_BLOBS_H_
