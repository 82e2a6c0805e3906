// A bounded queue of decoded requests in front of one inference thread that runs them on the
// backend in arrival order. TrySubmit never blocks: it returns an empty future when `capacity`
// requests already wait (the caller answers 503). A backend exception reaches the future.
// The destructor finishes what was queued, then joins the thread.
#ifndef JIGSAW_SERVE_INFERENCE_QUEUE_H_
#define JIGSAW_SERVE_INFERENCE_QUEUE_H_

#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "serve/backend.h"

namespace jigsaw {

class InferenceQueue {
 public:
  InferenceQueue(InferenceBackend& backend, int capacity);
  ~InferenceQueue();
  InferenceQueue(const InferenceQueue&) = delete;
  InferenceQueue& operator=(const InferenceQueue&) = delete;

  std::optional<std::future<InferResult>> TrySubmit(InferRequest request);

 private:
  struct Job {
    InferRequest request;
    std::promise<InferResult> result;
  };
  void Run();

  InferenceBackend& backend_;
  const size_t capacity_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_INFERENCE_QUEUE_H_
