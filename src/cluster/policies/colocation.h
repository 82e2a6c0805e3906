// Pieces shared by the co-locating round planners (packing, jigsaw).
#ifndef JIGSAW_CLUSTER_POLICIES_COLOCATION_H_
#define JIGSAW_CLUSTER_POLICIES_COLOCATION_H_

#include <string>
#include <vector>

#include "cluster/policy.h"
#include "model/throughput_table.h"

namespace jigsaw {

// Run time / time since arrival (0 before any time has passed).
double ServedShare(const PolicyJob& job);

// The least-served order (max-min fair in time): smaller ServedShare first (passed in, as callers
// compute it once per job), then earlier arrival, then lower id. False for equal keys.
bool ServedBefore(double served_a, const PolicyJob& a, double served_b, const PolicyJob& b);

// Indices of `jobs` in the least-served order (equal keys keep index order).
std::vector<size_t> LeastServedOrder(const std::vector<PolicyJob>& jobs);

// Measured memory (MB) of one worker of the job at its current batch size; 0 if unknown.
double WorkerMemoryMb(const PolicyJob& job);

// Speeds of host and guest sharing the same GPUs, as fractions of their isolated throughputs:
// the co-located throughputs of `table`'s entry for the pair at the current batch sizes divided
// by the same table's isolated throughputs (same GPU count only). `table` must be one whose
// co-location and isolated entries were measured together (Gavel's): Shockwave's tables copy
// Gavel's co-location entries but re-measured the isolated ones, by 0.37x to 10x.
bool SameGangPairRates(const ThroughputTable& table, const std::string& worker_type,
                       const PolicyJob& host, const PolicyJob& guest, double* host_rate,
                       double* guest_rate);

// Co-location entries of `table` whose co-located throughput exceeds the same table's isolated
// one by over 1% for either job (a sign that the two come from different measurements), and
// how many entries were checked.
struct ColocationConsistency {
  int checked = 0;
  int faster_than_alone = 0;
};
ColocationConsistency CheckColocationEntries(const ThroughputTable& table,
                                             const std::string& worker_type);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_COLOCATION_H_
