// Predicted cost of one synchronous data-parallel SPB iteration, from a block profile and a
// communication model (both in `jigsaw profile` output, docs/runtime.md). The simulator's entry
// point for "GPU count and SPB plan -> iteration time, memory, network bytes". Torch-free.
//
// For worker k of depth d_k at batch b (profile times scaled linearly by b / profile.batch):
//   compute_s[k]  = batch_s + forward_s + loss_s + backward_s[k]
//     forward_s   = sum of every block's forward_s (all blocks run forward; the frozen prefix
//                   without autograd, which the profile's with-autograd time slightly overstates)
//     backward_s  = PredictBackwardS(d_k)
//   comm_s[k]     = sum of CommModel::Seconds over the collectives k is a member of
//   bytes_sent[k] = PredictBytesSent (the ring/broadcast estimate of spb_plan.h)
// With a measured "steps" section (jigsaw profile --step-workers N) the per-block sums above are
// replaced by the steps measured through the training code path (batch preparation, forward,
// loss and backward) with N concurrent local processes: forward_s / backward_s = the step's
// means at d_k; compute_s[k] = mean_compute_s at d_k, except for the deepest worker: if two or
// more workers share the deepest depth, slowest_compute_s (the measured slowest of N, which
// exceeds the mean); if it is alone at the deepest depth, processor sharing: it runs contended
// until the second-slowest worker finishes (T2, that worker's mean_compute_s) and alone after
// that: T2 + max(0, 1 - T2 / mean_compute_s[deepest]) x alone_compute_s[deepest]. This is the
// accurate mode when N local workers share the machine's cores; the per-block sums describe one
// worker alone on its device (and underestimate a training step on this CPU machine).
// Iteration time (the same for every worker, they are synchronous):
//   iteration_s = max_k compute_s[k] + sum of CommModel::Seconds over ALL the iteration's
//                 collectives + optimizer_s x (updated parameter bytes / all parameter bytes)
// Why: no worker can leave the exchange before the slowest worker has entered it (every block
// with a contributor reaches every worker, through the allreduce or the broadcast), the runtime
// issues the collectives one after another in one global order and does not overlap them with
// the backward pass, and the optimizer steps the updated blocks after the exchange. Summing every
// collective is exact for 2 workers and conservative for more (collectives over disjoint member
// sets could overlap). Batch preparation, the loss and the optimizer are included because the
// runtime's iter_s includes them.
//
// Memory per worker (bytes, float32, at batch b):
//   parameter_bytes  = every block's parameters (each replica holds the whole model)
//   gradient_bytes   = parameters of the blocks that are updated this iteration (after the
//                      exchange every worker holds their gradient, contributors or not)
//   optimizer_bytes  = one momentum buffer per updated parameter (SGD with momentum)
//   activation_bytes = the tensors kept for the backward pass of the trainable suffix: the input
//                      of each of the last d blocks (block 0's input is the data batch) plus the
//                      logits; a lower bound (a block's internal intermediates are not profiled)
//   memory_bytes     = their sum.
// Plans that change over iterations (rotating) are averaged over one plan period.
#ifndef JIGSAW_SPB_ITERATION_ESTIMATE_H_
#define JIGSAW_SPB_ITERATION_ESTIMATE_H_

#include <vector>

#include "spb/cost_model.h"
#include "spb/spb_plan.h"

namespace jigsaw {

struct SpbWorkerEstimate {
  double depth = 0;  // mean over the plan period
  double forward_s = 0;
  double backward_s = 0;
  double compute_s = 0;  // batch_s + forward_s + loss_s + backward_s
  double comm_s = 0;
  double bytes_sent = 0;
  double parameter_bytes = 0;
  double gradient_bytes = 0;
  double optimizer_bytes = 0;
  double activation_bytes = 0;
  double memory_bytes = 0;
};

struct SpbIterationEstimate {
  double iteration_s = 0;  // mean over the plan period
  double slowest_compute_s = 0;
  double comm_s = 0;  // all collectives of an iteration, serialized
  double optimizer_s = 0;
  std::vector<SpbWorkerEstimate> workers;
};

// Throws UsageError if the plan does not fit the profile's blocks and `workers`, or if workers > 1
// and `comm` has no fit of a kind the plan needs (std::logic_error from CommModel::Seconds).
SpbIterationEstimate EstimateSpbIteration(const ModelProfile& profile, const CommModel& comm,
                                          int workers, const SpbPlan& plan, int batch);

}  // namespace jigsaw

#endif  // JIGSAW_SPB_ITERATION_ESTIMATE_H_
