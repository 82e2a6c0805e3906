// GPU memory a training job needs, by model and batch size (MB on a 16 GB V100), as profiled by
// Shockwave (utils.get_metric "mem"): the input to memory-aware packing.
#ifndef JIGSAW_MODEL_GPU_MEMORY_H_
#define JIGSAW_MODEL_GPU_MEMORY_H_

#include <string>

namespace jigsaw {

// Memory in MB of one worker of `model` at `batch_size`; 0 when not profiled.
double ProfiledGpuMemoryMb(const std::string& model, int batch_size);

}  // namespace jigsaw

#endif  // JIGSAW_MODEL_GPU_MEMORY_H_
