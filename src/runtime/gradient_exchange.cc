#include "runtime/gradient_exchange.h"

#include <algorithm>

#include "runtime/memory_tracker.h"

namespace jigsaw {

BalancedGradientExchange::BalancedGradientExchange(c10d::ProcessGroupGloo* alltoall_group,
                                                   c10d::ProcessGroupGloo* gather_group, int rank,
                                                   int world, HostStaging staging)
    : alltoall_group_(alltoall_group),
      gather_group_(gather_group),
      rank_(rank),
      world_(world),
      staging_(staging) {}

bool BalancedGradientExchange::Contributes(size_t bucket) const {
  const std::vector<int>& c = buckets_[bucket].contributors;
  return std::binary_search(c.begin(), c.end(), rank_);
}

void BalancedGradientExchange::Begin(const std::vector<ExchangeBucket>& buckets,
                                     const std::vector<double>& divisors,
                                     BlockTrainingState* state) {
  buckets_ = buckets;
  divisors_ = divisors;
  state_ = state;
  pending_.assign(buckets.size(), Pending{});
  next_alltoall_ = 0;
  next_gather_ = 0;
  bytes_sent_ = 0;
  bytes_received_ = 0;
  for (const ExchangeBucket& bucket : buckets_) {
    bytes_sent_ += BalancedBytesSent(bucket, rank_, world_);
    bytes_received_ += BalancedBytesReceived(bucket, rank_, world_);
  }
}

void BalancedGradientExchange::IssueAlltoall(size_t i) {
  SeparateTensorAccount exchange_buffers;
  Pending& p = pending_[i];
  const ExchangeBucket& bucket = buckets_[i];
  for (int b : bucket.blocks) p.elements += state_->elements(b);
  p.shard_elements = ShardElements(p.elements, world_);
  if (world_ == 1) return;
  const int64_t c = p.shard_elements;
  std::vector<int64_t> input_counts(world_, 0);
  std::vector<int64_t> output_counts(world_, 0);
  for (int k : bucket.contributors) output_counts[k] = c;
  if (Contributes(i)) {
    std::vector<torch::Tensor> parts;
    for (int b : bucket.blocks) parts.push_back(state_->gradient(b));
    p.send = staging_.Pack(parts, c * world_ - p.elements);
    std::fill(input_counts.begin(), input_counts.end(), c);
  } else {
    p.send = torch::empty({0}, torch::kFloat32);
  }
  p.received =
      torch::empty({static_cast<int64_t>(bucket.contributors.size()) * c}, torch::kFloat32);
  p.alltoall = alltoall_group_->alltoall_base(p.received, p.send, output_counts, input_counts);
}

void BalancedGradientExchange::IssueGather(size_t i) {
  SeparateTensorAccount exchange_buffers;
  Pending& p = pending_[i];
  const int64_t c = p.shard_elements;
  const int64_t s = static_cast<int64_t>(buckets_[i].contributors.size());
  p.shard = p.received.view({s, c}).sum(0).div_(divisors_[i]);
  p.send = torch::Tensor();
  p.received = torch::Tensor();
  for (int k = 0; k < world_; ++k) p.gathered.push_back(torch::empty({c}, torch::kFloat32));
  std::vector<std::vector<torch::Tensor>> outputs = {p.gathered};
  std::vector<torch::Tensor> inputs = {p.shard};
  p.gather = gather_group_->allgather(outputs, inputs);
  p.gathered = outputs[0];
}

void BalancedGradientExchange::IssueReady(int lowest_done_block) {
  while (next_alltoall_ < buckets_.size()) {
    const bool ready =
        !Contributes(next_alltoall_) || lowest_done_block <= buckets_[next_alltoall_].blocks.back();
    if (!ready) break;
    IssueAlltoall(next_alltoall_++);
  }
}

void BalancedGradientExchange::StartFinishedGathers(bool wait) {
  while (next_gather_ < next_alltoall_) {
    Pending& p = pending_[next_gather_];
    if (world_ > 1) {
      if (!wait && !p.alltoall->isCompleted()) break;
      p.alltoall->wait();
      IssueGather(next_gather_);
    }
    ++next_gather_;
  }
}

void BalancedGradientExchange::BlockDone(int block) {
  if (world_ == 1) return;
  IssueReady(block);
  StartFinishedGathers(/*wait=*/false);
}

void BalancedGradientExchange::Store(size_t i) {
  SeparateTensorAccount exchange_buffers;
  Pending& p = pending_[i];
  const ExchangeBucket& bucket = buckets_[i];
  if (world_ == 1) {
    for (int b : bucket.blocks) state_->gradient(b).div_(divisors_[i]);
    return;
  }
  p.gather->wait();
  std::vector<torch::Tensor> parts;
  for (int b : bucket.blocks) parts.push_back(state_->gradient(b));
  HostStaging::Unpack(torch::cat(p.gathered), parts);
  p = Pending{};
}

void BalancedGradientExchange::Finish() {
  IssueReady(-1);
  StartFinishedGathers(/*wait=*/true);
  for (size_t i = 0; i < buckets_.size(); ++i) Store(i);
  state_ = nullptr;
}

}  // namespace jigsaw
