// Exact accounting of LibTorch's CPU tensor memory, for the per-iteration memory figures.
//
// InstallTensorMemoryTracker() makes every later CPU tensor allocation of this process go through a
// counting allocator (c10's own alloc_cpu/free_cpu underneath, so behaviour is unchanged); call it
// once, before the model is built. TensorBytes() is what live tensors hold now; PeakTensorBytes()
// the maximum since the last ResetPeakTensorBytes(). Tensors allocated by a thread while it holds
// a SeparateTensorAccount are counted apart (SeparateTensorBytes, PeakSeparateTensorBytes) and
// left out of the main figures: the gradient exchange's buffers, so that the main figures are a
// step's activation and backward memory. Once a thread has called CountOnlyThisThread(), tensors
// allocated by every other thread (Gloo's worker threads, which flatten and gather a collective's
// tensors while the training thread runs the backward) are counted apart as well. Thread-safe.
// Memory that libraries allocate outside LibTorch's allocator (oneDNN scratch space, Gloo's
// transport buffers) is not counted.
#ifndef JIGSAW_RUNTIME_MEMORY_TRACKER_H_
#define JIGSAW_RUNTIME_MEMORY_TRACKER_H_

#include <cstdint>

namespace jigsaw {

void InstallTensorMemoryTracker();
// The calling thread becomes the only one whose allocations (outside a SeparateTensorAccount)
// count in TensorBytes/PeakTensorBytes.
void CountOnlyThisThread();
bool TensorMemoryTrackerInstalled();
int64_t TensorBytes();
int64_t PeakTensorBytes();
void ResetPeakTensorBytes();
int64_t SeparateTensorBytes();
int64_t PeakSeparateTensorBytes();

class SeparateTensorAccount {
 public:
  SeparateTensorAccount();
  ~SeparateTensorAccount();
  SeparateTensorAccount(const SeparateTensorAccount&) = delete;
  SeparateTensorAccount& operator=(const SeparateTensorAccount&) = delete;

 private:
  bool previous_;
};

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_MEMORY_TRACKER_H_
