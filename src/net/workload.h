// Training workloads in the ASTRA-sim 1.0 layer format and their execution on the simulator.
//
// File format (../shared/data/workloads/astra/FORMAT-upstream.md): line 1 the parallelism
// (DATA, MICRO, MODEL, HYBRID_*; extra tokens ignored), line 2 the layer count, then one line per
// layer with 12 blank-separated fields: name, reserved, then for the forward pass, the input
// gradient and the weight gradient each "<compute cycles> <NONE|ALLREDUCE|ALLGATHER|REDUCESCATTER|
// ALLTOALL> <bytes>", and last the update delay in cycles.
//
// Execution (a simplification of ASTRA-sim's data-parallel loop, applied to every parallelism):
// each iteration runs the forward pass over layers 0..L-1 (layer i first waits until its weight
// gradient from the previous iteration is reduced and applied), then the backward pass over
// L-1..0 (input-gradient compute, weight-gradient compute, then the weight-gradient collective is
// issued without blocking). Forward and input-gradient collectives block. A job's collectives run
// FIFO, at most max_active at once, and span all of the job's hosts.
#ifndef JIGSAW_NET_WORKLOAD_H_
#define JIGSAW_NET_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "net/collective.h"
#include "net/network.h"

namespace jigsaw::net {

struct CommSpec {
  bool present = false;
  CollectiveType type = CollectiveType::kAllReduce;
  uint64_t bytes = 0;
};

struct Layer {
  std::string name;
  uint64_t forward_cycles = 0;
  CommSpec forward_comm;
  uint64_t input_grad_cycles = 0;
  CommSpec input_grad_comm;
  uint64_t weight_grad_cycles = 0;
  CommSpec weight_grad_comm;
  uint64_t update_cycles = 0;
};

struct Workload {
  std::string name;
  std::string parallelism;
  std::vector<Layer> layers;
};

Workload ReadAstraWorkload(const std::string& path);
Workload ParseAstraWorkload(const std::string& name, const std::string& text);

struct JobSpec {
  Workload workload;
  std::vector<uint32_t> hosts;
  std::vector<int> dims;  // empty = 1-D ring
  int chunks = 4;
  int iterations = 1;
  double cycle_ns = 1.0;  // ASTRA-sim 1.0 cycles are 1 GHz
  int max_active = 1;
};

struct CollectiveRecord {
  int iteration;
  std::string layer;
  std::string pass;  // "fwd", "ig" or "wg"
  CollectiveType type;
  uint64_t bytes;
  Time issued;
  Time started;
  Time finished;
};

struct JobResult {
  std::string workload;
  uint32_t hosts = 0;
  std::vector<Time> iteration_times;
  Time finished = -1;
  std::vector<CollectiveRecord> collectives;
};

// Runs all jobs concurrently on `network` until they finish (or until `stop`); flows get the tag
// job index in their collective record order (see JobResult).
std::vector<JobResult> RunJobs(Network* network, const std::vector<JobSpec>& jobs,
                               Time stop = kNever);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_WORKLOAD_H_
