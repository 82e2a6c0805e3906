// Placing aggregation tasks (shards) on aggregators: bin packing by CPU demand.
//
// A shard's demand is the CPU it needs, in cores: aggregation CPU-seconds per iteration x
// iterations per second, measured by the aggregators (registration gives only a first estimate).
// An aggregator is a bin of `capacity` = cores x (1 - headroom); the headroom absorbs bursts and
// measurement noise.
//
// FirstFitDecreasing sorts by demand (largest first; ties by index, so the result is
// deterministic) and puts each shard into the first bin it fits, opening a bin when none does.
// Invariants (tests/paramsvc/packing_test.cc): every item is in exactly one bin; no bin's load
// exceeds capacity unless it holds a single item that alone exceeds it; at most one bin is at
// most half full, hence bins <= ceil(2 x total / capacity). Bound: FFD uses at most
// 11/9 OPT + 6/9 bins (Dosa 2007), i.e. about 22% more cores than an optimal packing.
#ifndef JIGSAW_PARAMSVC_PACKING_H_
#define JIGSAW_PARAMSVC_PACKING_H_

#include <cstdint>
#include <vector>

namespace jigsaw::paramsvc {

// Bin index of each item (0-based, bins numbered in the order they were opened).
std::vector<int> FirstFitDecreasing(const std::vector<double>& demands, double capacity);
// Number of bins in an assignment.
int BinCount(const std::vector<int>& assignment);
// The first bin (in the given order) where `demand` fits under capacity, or -1.
int FirstFit(const std::vector<double>& bin_loads, double demand, double capacity);
// How many shards a job's parameters are cut into: enough that none exceeds max_shard_floats
// and that each one's estimated demand is at most half a bin (so shards of different jobs
// pack), at most kMaxShardsPerJob and at most one per parameter.
inline constexpr uint64_t kMaxShardsPerJob = 1024;
uint64_t ShardCount(uint64_t parameters, double demand, uint64_t max_shard_floats, double capacity);
// The smallest number of bins that holds the items (exhaustive; for tests, at most 12 items).
int OptimalBinCount(const std::vector<double>& demands, double capacity);

}  // namespace jigsaw::paramsvc

#endif  // JIGSAW_PARAMSVC_PACKING_H_
