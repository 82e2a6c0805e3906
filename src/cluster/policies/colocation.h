// Pieces shared by the co-locating round planners (packing, jigsaw).
#ifndef JIGSAW_CLUSTER_POLICIES_COLOCATION_H_
#define JIGSAW_CLUSTER_POLICIES_COLOCATION_H_

#include <string>
#include <vector>

#include "cluster/policy.h"
#include "model/throughput_table.h"

namespace jigsaw {

constexpr double kGpuMemoryMb = 16 * 1024;  // V100 16 GB, as in Shockwave's configs
constexpr double kMinColocationGain = 0.1;  // combined normalised speed must beat 1 by this
constexpr double kMinHostRate = 0.5;        // a host keeps at least half its speed

// Least served first: run time / time since arrival, then arrival, then id (max-min fair in time).
std::vector<size_t> LeastServedOrder(const std::vector<PolicyJob>& jobs);

// Measured memory (MB) of one worker of the job at its current batch size; 0 if unknown.
double WorkerMemoryMb(const PolicyJob& job);

// Speeds of host and guest sharing the same GPUs, as fractions of their isolated throughputs,
// from the table's co-location entries at the current batch sizes (same GPU count only).
bool SameGangPairRates(const ThroughputTable& table, const std::string& worker_type,
                       const PolicyJob& host, const PolicyJob& guest, double* host_rate,
                       double* guest_rate);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_COLOCATION_H_
