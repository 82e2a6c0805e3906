// The balanced gradient exchange (spb/balanced_exchange.h) over Gloo, overlapped with backward.
//
// Two process groups over all ranks carry it: one runs the buckets' all-to-alls, the other their
// all-gathers (and nothing else during an exchange); each runs its collectives on its own thread
// in issue order, and every rank issues both kinds in bucket order, so the schedule is the same on
// every rank and cannot deadlock, while bucket k's all-gather proceeds under bucket k+1's
// all-to-all and under the remaining backward.
//
// Use per iteration: Begin(buckets), then BlockDone(b) after the backward of each block this rank
// trains (descending), then Finish(). BlockDone issues, without blocking, every bucket whose
// gradients are final on this rank (a bucket this rank does not contribute to is final at once)
// and starts the all-gather of every finished all-to-all; Finish issues the rest and waits. With
// overlap off, call Finish() alone after the whole backward. Afterwards every active block's
// gradient buffer in `state` holds sum over contributors / divisor, identical on every rank.
// Gloo failures (a dead or stalled peer) surface as exceptions from BlockDone/Finish.
//
// The gradients may live on any device: each bucket goes to Gloo through `staging`
// (host_staging.h), as host copies for a model on a GPU, and comes back the same way.
#ifndef JIGSAW_RUNTIME_GRADIENT_EXCHANGE_H_
#define JIGSAW_RUNTIME_GRADIENT_EXCHANGE_H_

#include <torch/torch.h>

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <vector>

#include "runtime/block_state.h"
#include "runtime/host_staging.h"
#include "spb/balanced_exchange.h"

namespace jigsaw {

class BalancedGradientExchange {
 public:
  BalancedGradientExchange(c10d::ProcessGroupGloo* alltoall_group,
                           c10d::ProcessGroupGloo* gather_group, int rank, int world,
                           HostStaging staging = HostStaging());

  // `divisors[i]` scales bucket i's sum. `state` must stay alive until Finish().
  void Begin(const std::vector<ExchangeBucket>& buckets, const std::vector<double>& divisors,
             BlockTrainingState* state);
  void BlockDone(int block);
  void Finish();

  // Estimated bytes of this rank in the current (or last) iteration.
  double bytes_sent() const { return bytes_sent_; }
  double bytes_received() const { return bytes_received_; }

 private:
  struct Pending {
    torch::Tensor send;
    torch::Tensor received;
    torch::Tensor shard;
    std::vector<torch::Tensor> gathered;
    c10::intrusive_ptr<c10d::Work> alltoall;
    c10::intrusive_ptr<c10d::Work> gather;
    int64_t elements = 0;
    int64_t shard_elements = 0;
  };

  bool Contributes(size_t bucket) const;
  void IssueAlltoall(size_t bucket);
  void IssueGather(size_t bucket);
  void IssueReady(int lowest_done_block);
  void StartFinishedGathers(bool wait);
  void Store(size_t bucket);

  c10d::ProcessGroupGloo* alltoall_group_;
  c10d::ProcessGroupGloo* gather_group_;
  int rank_;
  int world_;
  HostStaging staging_;
  std::vector<ExchangeBucket> buckets_;
  std::vector<double> divisors_;
  BlockTrainingState* state_ = nullptr;
  std::vector<Pending> pending_;
  size_t next_alltoall_ = 0;
  size_t next_gather_ = 0;
  double bytes_sent_ = 0;
  double bytes_received_ = 0;
};

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_GRADIENT_EXCHANGE_H_
