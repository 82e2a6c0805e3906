// One rank of an SPB data-parallel training job, given its rendezvous store (a TCPStore for real
// jobs, a c10d::HashStore shared by threads in tests). Every rank must call it with the same
// options. Rank 0 writes the outputs described in runtime.h. Throws on any failure (a peer that
// dies or stalls surfaces as a c10::Error from Gloo after at most options.timeout_s).
#ifndef JIGSAW_RUNTIME_TRAIN_WORKER_H_
#define JIGSAW_RUNTIME_TRAIN_WORKER_H_

#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "runtime/runtime.h"

namespace jigsaw {

// `host`: the address peers reach this rank's Gloo device at ("" = this machine's hostname).
void TrainRank(const TrainOptions& options, int rank, int world,
               const c10::intrusive_ptr<c10d::Store>& store, const std::string& host);

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_TRAIN_WORKER_H_
