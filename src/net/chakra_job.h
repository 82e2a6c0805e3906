// One Chakra job: the traces of all its ranks (PREFIX.0.et .. PREFIX.<N-1>.et, chakra_reader.h)
// checked against each other, ready for the simulator (chakra_workload.h).
//
// LoadChakraJob finds the rank files: ranks 0, 1, 2, ... until one is missing; a file for a
// higher rank beside them (a gap) is an error. Cross-rank checks, each an InputError naming the
// file, the node and what was expected:
//   * every rank has the same collectives (COMM_COLL_NODE, in node-id order) with the same
//     comm_type and comm_size: collective k of every rank forms one collective of the job;
//   * comm_src / comm_dst name a rank of the job; a send's comm_src, when given, is its own rank
//     and a receive's comm_dst its own;
//   * sends and receives pair up: as many sends from rank a to rank b with tag t as receives on
//     b from a with tag t;
//   * comm_size at most kMaxCollectiveBytes, duration_micros at most kMaxChakraMicros;
//   * a collective or send carries comm_size, a collective comm_type; a compute node with
//     num_ops and no duration_micros needs a compute rate (npu_tflops > 0).
#ifndef JIGSAW_NET_CHAKRA_JOB_H_
#define JIGSAW_NET_CHAKRA_JOB_H_

#include <cstdint>
#include <string>
#include <vector>

#include "net/chakra_reader.h"

namespace jigsaw::net {

inline constexpr int kMaxChakraRanks = 65536;
inline constexpr uint64_t kMaxChakraMicros = 1'000'000'000'000;  // 10^6 s, the horizon

struct ChakraJob {
  std::string prefix;
  std::vector<ChakraTrace> ranks;
  // Per rank, the node indices of its collectives in node-id order (collective k = [k]).
  std::vector<std::vector<size_t>> collectives;
};

// "PREFIX.<rank>.et".
std::string ChakraRankFile(const std::string& prefix, int rank);

// Reads and checks every rank's trace; npu_tflops is the compute rate for nodes that give only
// num_ops (0: none given).
ChakraJob LoadChakraJob(const std::string& prefix, double npu_tflops);
// The cross-rank checks above on already parsed traces (tests build them in memory).
ChakraJob MakeChakraJob(const std::string& prefix, std::vector<ChakraTrace> ranks,
                        double npu_tflops);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_CHAKRA_JOB_H_
