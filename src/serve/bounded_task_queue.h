// A bounded task queue for cpp-httplib servers (header-only, torch-free: shared by the serve
// and faas HTTP servers).
#ifndef JIGSAW_SERVE_BOUNDED_TASK_QUEUE_H_
#define JIGSAW_SERVE_BOUNDED_TASK_QUEUE_H_

#include <httplib.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace jigsaw {

// httplib's ThreadPool queues accepted connections without bound; this one makes the accept loop
// wait once `pending` connections are queued, leaving the rest to the kernel's listen backlog.
class BoundedTaskQueue : public httplib::TaskQueue {
 public:
  BoundedTaskQueue(int threads, int pending) : pending_(static_cast<size_t>(std::max(1, pending))) {
    for (int i = 0; i < std::max(1, threads); ++i) {
      threads_.emplace_back([this] { Work(); });
    }
  }
  ~BoundedTaskQueue() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [this] { return jobs_.size() < pending_ || stopping_; });
    jobs_.push_back(std::move(fn));
    work_.notify_one();
  }

  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_ && threads_.empty()) return;
      stopping_ = true;
    }
    work_.notify_all();
    room_.notify_all();
    for (std::thread& thread : threads_) thread.join();
    threads_.clear();
  }

 private:
  void Work() {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        work_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        fn = std::move(jobs_.front());
        jobs_.pop_front();
      }
      room_.notify_one();
      fn();
    }
  }

  const size_t pending_;
  std::mutex mutex_;
  std::condition_variable work_;
  std::condition_variable room_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_BOUNDED_TASK_QUEUE_H_
