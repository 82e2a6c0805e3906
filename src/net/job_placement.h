// Which host ranks each job of a shared fabric gets (`jigsaw net --placement`), for every kind of
// job that names ranks: ASTRA-sim workloads (workload.h) and Chakra traces (chakra_workload.h).
//
// The hosts are split into `jobs` equal parts of hosts / jobs ranks (the rest stay idle):
//   interleave  job j gets ranks j, j + J, j + 2J, ... (J = jobs);
//   block       consecutive ranks, job 0 first;
//   random      the ranks in a seeded random order (a stream derived from the seed), then in
//               blocks: jobs straddle racks, unaligned with their rings.
#ifndef JIGSAW_NET_JOB_PLACEMENT_H_
#define JIGSAW_NET_JOB_PLACEMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "net/enum_table.h"

namespace jigsaw::net {

enum class JobPlacement : uint8_t { kInterleave, kBlock, kRandom };

inline constexpr EnumName<JobPlacement> kJobPlacements[] = {
    {JobPlacement::kInterleave, "interleave"},
    {JobPlacement::kBlock, "block"},
    {JobPlacement::kRandom, "random", "seeded, unaligned with racks"},
};

// Throws UsageError naming --placement and the accepted values.
JobPlacement ParseJobPlacement(const std::string& text);

// hosts[j][r]: the host of rank r of job j (hosts / jobs ranks per job; none if jobs > hosts).
std::vector<std::vector<uint32_t>> PlaceJobs(uint32_t hosts, uint32_t jobs, JobPlacement placement,
                                             uint64_t seed);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_JOB_PLACEMENT_H_
