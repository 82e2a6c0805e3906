// Where each rank of `jigsaw train` computes (`--device`, `--stage-through-host`).
//
//   cpu      every rank on the CPU; collectives run on the training tensors themselves, or
//            through host copies with --stage-through-host (the GPU's path, for tests)
//   cuda     rank k on cuda:(k mod the visible GPUs): with more ranks than GPUs several worker
//            processes share one GPU
//   cuda:N   every rank on GPU N
// A rank on a GPU always exchanges through host copies (host_staging.h): Gloo moves host memory.
#ifndef JIGSAW_RUNTIME_TRAINING_DEVICE_H_
#define JIGSAW_RUNTIME_TRAINING_DEVICE_H_

#include <torch/torch.h>

#include <string>

#include "runtime/host_staging.h"
#include "runtime/runtime.h"

namespace jigsaw {

// --device as a torch::Device; UsageError naming the option unless it names the CPU or a CUDA
// device this LibTorch sees.
torch::Device TrainingDevice(const TrainOptions& options);

// The device of `rank` (see above).
torch::Device RankDevice(const TrainOptions& options, int rank);

// How `rank`'s collectives reach Gloo on `device`.
HostStaging RankStaging(const TrainOptions& options, const torch::Device& device);

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_TRAINING_DEVICE_H_
