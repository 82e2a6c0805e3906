#include "ps/aggregator.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace jigsaw::ps {

SyncSgdAggregator::SyncSgdAggregator(int workers, float lr, float momentum)
    : workers_(workers),
      lr_(lr),
      momentum_(momentum),
      pushed_(static_cast<size_t>(std::max(workers, 1))),
      early_(static_cast<size_t>(std::max(workers, 1))) {
  if (workers < 1) throw std::invalid_argument("a job needs at least one worker");
}

void SyncSgdAggregator::SetParameters(std::vector<float> parameters) {
  AggregatorState state;
  state.initialized = true;
  state.velocity.assign(parameters.size(), 0.0f);
  state.parameters = std::move(parameters);
  Restore(std::move(state));
}

void SyncSgdAggregator::Restore(AggregatorState state) {
  if (state.velocity.size() != state.parameters.size()) {
    throw std::invalid_argument("shard state: velocity and parameters differ in size");
  }
  parameters_ = std::move(state.parameters);
  velocity_ = std::move(state.velocity);
  version_ = state.version;
  initialized_ = state.initialized;
  sum_.assign(parameters_.size(), 0.0f);
  std::fill(pushed_.begin(), pushed_.end(), false);
  for (auto& slice : early_) slice.clear();
  received_ = 0;
  next_rank_ = 0;
}

AggregatorState SyncSgdAggregator::Export() const {
  if (received_ != 0) throw std::invalid_argument("shard state exported in the middle of a step");
  return AggregatorState{initialized_, version_, parameters_, velocity_};
}

bool SyncSgdAggregator::Push(int rank, uint64_t step, const std::vector<float>& gradient) {
  if (!initialized_) throw std::invalid_argument("push before the parameters were initialized");
  if (rank < 0 || rank >= workers_) {
    throw std::invalid_argument("rank " + std::to_string(rank) + " out of range for " +
                                std::to_string(workers_) + " workers");
  }
  if (step != version_) {
    throw std::invalid_argument("worker " + std::to_string(rank) + " pushed step " +
                                std::to_string(step) + " but the current step is " +
                                std::to_string(version_));
  }
  if (gradient.size() != parameters_.size()) {
    throw std::invalid_argument("worker " + std::to_string(rank) + " pushed " +
                                std::to_string(gradient.size()) + " values, the model has " +
                                std::to_string(parameters_.size()));
  }
  if (pushed_[rank]) {
    throw std::invalid_argument("worker " + std::to_string(rank) + " pushed step " +
                                std::to_string(step) + " twice");
  }
  pushed_[rank] = true;
  ++received_;
  if (rank != next_rank_) {
    early_[rank] = gradient;
  } else {
    for (size_t i = 0; i < gradient.size(); ++i) sum_[i] += gradient[i];
    ++next_rank_;
  }
  while (next_rank_ < workers_ && pushed_[next_rank_]) {
    std::vector<float>& slice = early_[next_rank_];
    for (size_t i = 0; i < slice.size(); ++i) sum_[i] += slice[i];
    slice.clear();  // keeps its capacity for the next step
    ++next_rank_;
  }
  if (received_ < workers_) return false;

  const float scale = 1.0f / static_cast<float>(workers_);
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const float g = sum_[i] * scale;
    velocity_[i] = momentum_ * velocity_[i] + g;
    parameters_[i] -= lr_ * velocity_[i];
  }
  std::fill(sum_.begin(), sum_.end(), 0.0f);
  std::fill(pushed_.begin(), pushed_.end(), false);
  received_ = 0;
  next_rank_ = 0;
  ++version_;
  return true;
}

}  // namespace jigsaw::ps
