// How training's collectives reach Gloo, which moves host memory only.
//
// Every collective of a training job (the gradient exchange's buckets, the initial parameter
// broadcast, the batch-norm statistics average) gathers its payload from training tensors into
// one flat float tensor with Pack, runs on it, and writes the result back with Unpack.
//
//   direct        (a model on the CPU, the default): Pack returns a lone part as it is (a view, no
//                 copy) and concatenates several; the collective works on that tensor.
//   through host  (every model on a GPU; on the CPU with `--stage-through-host`): Pack always
//                 copies the parts into a fresh host buffer, and Unpack copies the result back
//                 into the parts on their device. This is what lets several worker processes
//                 share one GPU, or spread over cuda:0..k: each worker exchanges host copies of
//                 its buckets, with the same SPB semantics (contributors, scale rules, overlap).
//
// The copies change no value, so on the CPU both modes give bitwise-identical training (tests:
// RuntimeSpbWorker.StagedExchangeIsBitwiseTheDirectOne and
// RuntimeTrainCli.StagingThroughHostTrainsBitwiseLikeTheDirectExchange), which is how CI exercises
// the GPU's exchange path without a GPU. A copy from
// a GPU waits for the kernels that produce its source (same stream), so a bucket is staged only
// once the backward of its blocks has finished.
#ifndef JIGSAW_RUNTIME_HOST_STAGING_H_
#define JIGSAW_RUNTIME_HOST_STAGING_H_

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace jigsaw {

class HostStaging {
 public:
  explicit HostStaging(bool through_host = false) : through_host_(through_host) {}

  bool through_host() const { return through_host_; }

  // The parts (float32, any shape, any device) flattened back to back, then `padding` zeros, as
  // one contiguous float32 host tensor. Direct mode may return a view of a lone part.
  torch::Tensor Pack(const std::vector<torch::Tensor>& parts, int64_t padding = 0) const;

  // Copies consecutive slices of the host tensor `flat` into `parts` (in place, on their device).
  // `flat` holds at least the parts' total elements.
  static void Unpack(const torch::Tensor& flat, const std::vector<torch::Tensor>& parts);

 private:
  bool through_host_;
};

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_HOST_STAGING_H_
