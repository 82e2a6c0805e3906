// Chakra jobs (chakra_job.h) executed on the packet simulator, several sharing one Network.
//
// Per rank, as ASTRA-sim 2.0's workload layer runs a trace: a node becomes ready once every
// ctrl_dep and data_dep finished; ready nodes are issued in node-id order when their resource is
// free: one compute node at a time (one more for is_cpu_op compute), one collective or send at a
// time, receives without limit. What each node does:
//   COMP_NODE       a delay: duration_micros, else num_ops / (npu_tflops x 10^12) s, else none;
//   COMM_COLL_NODE  ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL: collective k of the job
//                   (collective.h: ring, all-to-all direct, `chunks` pipelines, `dims`) starts
//                   once every rank issued its collective k and finishes on every rank when the
//                   whole collective is done; BARRIER: the same with no traffic; the others
//                   (BROADCAST, REDUCE, GATHER, SCATTER, REDUCE_SCATTER_BLOCK) are not modelled:
//                   replayed as a delay of duration_micros, and counted;
//   COMM_SEND_NODE  one message (queue pair) of comm_size bytes to comm_dst, done when delivered;
//   COMM_RECV_NODE  done when the matching send (same source, destination and comm_tag, in order)
//                   was delivered;
//   MEM_LOAD_NODE, MEM_STORE_NODE, METADATA_NODE  not modelled: a delay of duration_micros, and
//                   counted.
// An iteration ends when every rank finished every node; with iterations > 1 the traces run again
// from there.
#ifndef JIGSAW_NET_CHAKRA_WORKLOAD_H_
#define JIGSAW_NET_CHAKRA_WORKLOAD_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "net/chakra_job.h"
#include "net/network.h"

namespace jigsaw::net {

struct ChakraJobSpec {
  const ChakraJob* job = nullptr;
  std::vector<uint32_t> hosts;  // rank -> host rank of the Network
  std::vector<int> dims;        // of every collective (empty: one ring)
  int chunks = 4;
  int iterations = 1;
  double npu_tflops = 0;
};

// One collective (src_rank = dst_rank = -1) or one send, per iteration.
struct ChakraCommRecord {
  int iteration = 0;
  uint64_t node_id = 0;  // rank 0's node for a collective, the sender's for a send
  std::string name;
  std::string type;  // "ALL_REDUCE", ..., "SEND"
  int src_rank = -1;
  int dst_rank = -1;
  uint64_t bytes = 0;
  Time issued = -1;   // the first rank issued it
  Time started = -1;  // every rank issued it (a send: issued)
  Time finished = -1;
};

struct ChakraJobResult {
  std::string prefix;
  uint32_t ranks = 0;
  std::vector<Time> iteration_times;
  Time finished = -1;
  std::vector<ChakraCommRecord> comms;
  uint64_t nodes = 0;                             // per iteration, all ranks
  uint64_t nodes_done = 0;                        // all iterations
  std::map<std::string, uint64_t> nodes_by_type;  // per iteration
  std::map<std::string, uint64_t> not_modelled;   // nodes replayed as delays, by kind
  std::map<std::string, uint64_t> ignored;        // read and not modelled (chakra_reader.h)
};

// Progress while the run goes (for watching a long run): every `interval` of simulated time
// (0: never) one CSV row per job "time_us,events,job,nodes_done,nodes_total,comms_done" is
// appended to the file `path` (created with that header, truncated first) and flushed.
struct ChakraProgress {
  Time interval = 0;
  std::string path;
};

// Runs the jobs until they finish or `stop`. Throws UsageError if a job has more ranks than hosts
// or a rank count its dims do not fit.
std::vector<ChakraJobResult> RunChakraJobs(Network* network, const std::vector<ChakraJobSpec>& jobs,
                                           Time stop = kNever, const ChakraProgress& progress = {});

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_CHAKRA_WORKLOAD_H_
