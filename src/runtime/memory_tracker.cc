#include "runtime/memory_tracker.h"

#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>
#include <torch/version.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <unordered_map>

// LibTorch 2.3 made Allocator::allocate non-const and added copy_data (Debian's is 1.13; a CUDA
// build for `--device cuda` uses a newer one).
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
#define JIGSAW_ALLOCATE_CONST
#define JIGSAW_ALLOCATOR_HAS_COPY_DATA 1
#else
#define JIGSAW_ALLOCATE_CONST const
#define JIGSAW_ALLOCATOR_HAS_COPY_DATA 0
#endif

namespace jigsaw {
namespace {

thread_local bool t_separate = false;
thread_local bool t_counted = false;
std::atomic<bool> g_only_counted_threads{false};

// Whether an allocation by this thread belongs to the separate account.
bool SeparateHere() {
  return t_separate || (g_only_counted_threads.load(std::memory_order_relaxed) && !t_counted);
}

class CountingCpuAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t bytes) JIGSAW_ALLOCATE_CONST override {
    void* data = c10::alloc_cpu(bytes);
    const bool separate = SeparateHere();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      sizes_[data] = {bytes, separate};
      if (separate) {
        separate_ += static_cast<int64_t>(bytes);
        separate_peak_ = std::max(separate_peak_, separate_);
      } else {
        live_ += static_cast<int64_t>(bytes);
        peak_ = std::max(peak_, live_);
      }
    }
    return {data, data, &Free, c10::Device(c10::DeviceType::CPU)};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &Free; }
#if JIGSAW_ALLOCATOR_HAS_COPY_DATA
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    std::memcpy(dest, src, count);
  }
#endif

  int64_t live() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_;
  }
  int64_t peak() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return peak_;
  }
  void ResetPeak() {
    std::lock_guard<std::mutex> lock(mutex_);
    peak_ = live_;
    separate_peak_ = separate_;
  }
  int64_t separate() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return separate_;
  }
  int64_t separate_peak() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return separate_peak_;
  }

 private:
  static void Free(void* data);

  mutable std::mutex mutex_;
  mutable std::unordered_map<void*, std::pair<size_t, bool>> sizes_;
  mutable int64_t live_ = 0;
  mutable int64_t peak_ = 0;
  mutable int64_t separate_ = 0;
  mutable int64_t separate_peak_ = 0;
};

CountingCpuAllocator* g_allocator = nullptr;

void CountingCpuAllocator::Free(void* data) {
  if (data == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(g_allocator->mutex_);
    auto it = g_allocator->sizes_.find(data);
    if (it != g_allocator->sizes_.end()) {
      const int64_t bytes = static_cast<int64_t>(it->second.first);
      (it->second.second ? g_allocator->separate_ : g_allocator->live_) -= bytes;
      g_allocator->sizes_.erase(it);
    }
  }
  c10::free_cpu(data);
}

}  // namespace

void InstallTensorMemoryTracker() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_allocator = new CountingCpuAllocator();  // lives as long as the process
    c10::SetCPUAllocator(g_allocator, /*priority=*/100);
  });
}

void CountOnlyThisThread() {
  t_counted = true;
  g_only_counted_threads.store(true, std::memory_order_relaxed);
}

bool TensorMemoryTrackerInstalled() { return g_allocator != nullptr; }
int64_t TensorBytes() { return g_allocator ? g_allocator->live() : 0; }
int64_t PeakTensorBytes() { return g_allocator ? g_allocator->peak() : 0; }
void ResetPeakTensorBytes() {
  if (g_allocator) g_allocator->ResetPeak();
}
int64_t SeparateTensorBytes() { return g_allocator ? g_allocator->separate() : 0; }
int64_t PeakSeparateTensorBytes() { return g_allocator ? g_allocator->separate_peak() : 0; }

SeparateTensorAccount::SeparateTensorAccount() : previous_(t_separate) { t_separate = true; }
SeparateTensorAccount::~SeparateTensorAccount() { t_separate = previous_; }

}  // namespace jigsaw
