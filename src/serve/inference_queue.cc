#include "serve/inference_queue.h"

namespace jigsaw {

InferenceQueue::InferenceQueue(InferenceBackend& backend, int capacity)
    : backend_(backend), capacity_(static_cast<size_t>(std::max(1, capacity))) {
  thread_ = std::thread([this] { Run(); });
}

InferenceQueue::~InferenceQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::optional<std::future<InferResult>> InferenceQueue::TrySubmit(InferRequest request) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_ || jobs_.size() >= capacity_) return std::nullopt;
  jobs_.push_back(Job{std::move(request), {}});
  std::future<InferResult> future = jobs_.back().result.get_future();
  wake_.notify_one();
  return future;
}

void InferenceQueue::Run() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    try {
      job.result.set_value(backend_.Infer(job.request));
    } catch (...) {
      job.result.set_exception(std::current_exception());
    }
  }
}

}  // namespace jigsaw
