// What structured partial backpropagation does to a job, as the scheduler sees it: for each SPB
// plan a job on N GPUs could use, its iteration time, per-GPU compute busy fraction, per-worker
// memory and bytes sent, all relative to full backprop on the same N GPUs.
//
// For job types known only by their Gavel throughputs (no `jigsaw profile` output) this is the
// documented fallback model (docs/jigsaw.md): L = 8 equal blocks, backward = 2 x forward; worker
// k of a staircase backpropagates the last ceil(L(k+1)/N) blocks, so its GPU computes
// (1 + 2 d_k / L) / 3 of a full iteration; the slowest worker still runs full depth, so the
// iteration time does not drop (compute-bound); activations are the batch-proportional part of
// Shockwave's measured memory (slope of memory over batch size); bytes follow the SPB collective
// schedule over equal-size blocks. Statistical efficiency is not modelled here: it must come from
// measured runs (data/spb_statistical_efficiency.json) and is supplied by the caller.
#ifndef JIGSAW_CLUSTER_SPB_OPTIONS_H_
#define JIGSAW_CLUSTER_SPB_OPTIONS_H_

#include <string>
#include <vector>

namespace jigsaw {

struct SpbOption {
  std::string plan = "full";
  double iteration_time = 1.0;  // relative to full backprop
  // Per worker, ascending by depth: the fraction of an iteration its GPU computes, and its
  // memory relative to a full-backprop worker.
  std::vector<double> worker_busy;
  std::vector<double> worker_memory;
  double bytes = 1.0;  // mean bytes sent per worker, relative to full
  // Progress per iteration relative to full backprop (measured; 1 for full) and where the
  // numbers came from ("fallback", "profile FILE"; the efficiency's "file:line").
  double statistical_efficiency = 1.0;
  std::string source = "fallback";
  std::string efficiency_source = "reference";
};

// The fallback's two unmeasured assumptions (each a `jigsaw sim` option with a sensitivity row).
struct FallbackSpbShape {
  int blocks = 8;               // equal blocks
  double backward_ratio = 2.0;  // a block's backward time / its forward time
};

// Options for a job of `model` at `batch_size` on `workers` GPUs: always "full" first, then
// "staircase" when workers > 1 (rotating has the same averages). Empty for unknown models.
// A worker of depth d computes (1 + r d / L) / (1 + r) of a full iteration (r the backward
// ratio, L the blocks).
std::vector<SpbOption> FallbackSpbOptions(const std::string& model, int batch_size, int workers,
                                          const FallbackSpbShape& shape = {});

// Parameter bytes (float32) of the Gavel/Shockwave job types whose architecture fixes them:
// ResNet-18 (CIFAR-10, 11.17 M parameters), ResNet-50 (ImageNet, 25.56 M), CycleGAN (two
// ResNet-9 generators and two PatchGAN discriminators, 28.29 M). 0 for the others, whose
// parameter counts depend on vocabulary and embedding settings the traces do not give.
double FallbackParameterBytes(const std::string& model);

// Fraction of a worker's measured memory that is batch-proportional (activations), from the
// least-squares slope of Shockwave's memory profile over batch sizes; 0 if unknown.
double ActivationMemoryShare(const std::string& model, int batch_size);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_SPB_OPTIONS_H_
