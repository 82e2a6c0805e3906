// The pieces of one SPB data-parallel worker that touch LibTorch and Gloo.
//
// GlooGroups: one c10d::ProcessGroupGloo per communication group (a set of world ranks) this
// worker belongs to, each rendezvousing under its own PrefixStore. Every worker must construct it
// with the same group list (construction is collective), e.g. PlanGroups() plus the world group.
// Operations time out after `timeout`, so a dead peer surfaces as an exception, never a hang.
//
// RunSpbStep: forward with the first L-depth blocks under torch::NoGradGuard (no graph, their
// activations freed as soon as the next block has consumed them), then the last `depth` blocks
// with autograd, each one's input detached into a leaf; then backward block by block from the
// loss down, accumulating into the parameters' existing .grad (or creating it), and calling
// on_block_done(b) as soon as block b's parameter gradients are final, so that their exchange can
// overlap the rest of the backward. The lowest trained block computes no input gradient. Each
// block's kept tensors are released as soon as its backward is done. With `frozen_chunk` > 0 the
// frozen prefix runs on micro-batches of that many samples (it keeps nothing for backward, so
// only its output is held for the whole batch): its transient memory, e.g. a convolution's
// im2col workspace, shrinks with the micro-batch. Not for a prefix with batch norm, whose batch
// statistics depend on the split (it then runs on the whole batch); results are otherwise equal
// up to floating-point summation order.
//
// ComputeSpbGradients: ClearGradients, then RunSpbStep without a callback. Afterwards parameter
// gradients are defined exactly on the last `depth` blocks.
//
// (The frozen prefix's savings are real: SpbStepResult::retained_bytes measures them.)
//
// ExchangeGradients: runs this worker's part of an iteration's collectives (spb_plan.h): averages
// each block's gradient over its contributors and hands the average to the non-contributors, so
// that afterwards every worker holds the same gradient for every block that had a contributor and
// no gradient for the others. Returns the estimated bytes this worker sent.
#ifndef JIGSAW_RUNTIME_SPB_WORKER_H_
#define JIGSAW_RUNTIME_SPB_WORKER_H_

#include <torch/torch.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "runtime/image_data.h"
#include "runtime/models.h"
#include "spb/spb_plan.h"

namespace jigsaw {

class GlooGroups {
 public:
  // `host`: the address peers reach this worker at ("" = resolve this machine's hostname).
  // `name` keeps the store keys of several GlooGroups over the same store apart.
  GlooGroups(const c10::intrusive_ptr<c10d::Store>& store, int rank,
             const std::vector<std::vector<int>>& groups, const std::string& host,
             std::chrono::milliseconds timeout, const std::string& name = "group");

  int rank() const { return rank_; }
  // The group with exactly these members; this worker must be one of them.
  c10d::ProcessGroupGloo& Get(const std::vector<int>& members);
  c10d::ProcessGroupGloo* Find(const std::vector<int>& members);

 private:
  int rank_;
  std::map<std::vector<int>, c10::intrusive_ptr<c10d::ProcessGroupGloo>> groups_;
};

struct SpbStepResult {
  double loss = 0;
  double forward_s = 0;
  double backward_s = 0;
  // Heap bytes the forward pass left allocated (measured with mallinfo2): what autograd keeps
  // for the backward pass plus the loss; frozen blocks contribute nothing.
  double retained_bytes = 0;
};

using BlockDoneCallback = std::function<void(int block)>;

// Resets every parameter gradient to undefined (so untouched blocks are skipped by the optimizer).
void ClearGradients(BlockModel& model);

torch::Tensor SpbForward(BlockModel& model, const torch::Tensor& input, int depth);

SpbStepResult RunSpbStep(BlockModel& model, const torch::Tensor& input, const torch::Tensor& labels,
                         int depth, const BlockDoneCallback& on_block_done, int frozen_chunk = 0);

SpbStepResult ComputeSpbGradients(BlockModel& model, const torch::Tensor& input,
                                  const torch::Tensor& labels, int depth);

double ExchangeGradients(BlockModel& model, const std::vector<Collective>& collectives,
                         GlooGroups& groups);

// Normalised float images (N x C x H x W, per-channel normalisation of `set`) and int64 labels of
// the samples at `indices`; NormalizeImages does the same for pixels already gathered (N samples
// in ImageSet's layout).
torch::Tensor BatchImages(const ImageSet& set, const std::vector<int64_t>& indices);
torch::Tensor NormalizeImages(const ImageSet& set, const std::vector<uint8_t>& pixels, int64_t n);
torch::Tensor BatchLabels(const ImageSet& set, const std::vector<int64_t>& indices);

// Parameter bytes of each block (float32).
std::vector<int64_t> BlockParameterBytes(BlockModel& model);

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_SPB_WORKER_H_
