// Per-block profiles of a model (the JSON that `jigsaw profile` writes and the simulator reads;
// format in docs/runtime.md) and the cost model that predicts an SPB iteration from them.
//
// Prediction for a worker of depth d at batch size b (profile measured at batch p; times scale
// linearly by b/p, a first-order approximation):
//   backward_s = backward_weight_s of block L-d + sum over blocks L-d+1 .. L-1 of backward_s
// (the lowest trainable block needs no input gradient: its input is a frozen activation or the
// data; the others need both, measured together so shared work such as a ReLU's backward is
// counted once), and
// bytes sent = the EstimatedBytesSent of the iteration's collectives over the blocks'
// parameter bytes. Torch-free.
#ifndef JIGSAW_SPB_COST_MODEL_H_
#define JIGSAW_SPB_COST_MODEL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/output.h"
#include "spb/spb_plan.h"

namespace jigsaw {

struct BlockProfile {
  std::string name;
  double forward_s = 0;
  double backward_s = 0;         // weight and input gradients together
  double backward_weight_s = 0;  // parameter gradients only
  double backward_input_s = 0;   // input gradient only
  int64_t activation_bytes = 0;  // the block's output for the profiled batch
  int64_t parameter_bytes = 0;
};

// Fitted time of one collective kind over `members` ranks: seconds = latency_s +
// sent_bytes / bandwidth_bytes_per_s, where sent_bytes is EstimatedBytesSent per member (so the
// fit is over what each member puts on the wire, ring allreduce 2(n-1)/n x B, broadcast
// (n-1)/n x B). `samples` are the measured (payload bytes B, median seconds) points it was fitted
// to.
struct CollectiveFit {
  Collective::Kind kind = Collective::Kind::kAllreduce;
  int members = 2;
  // false: the collective follows compute (the first of an iteration: the ranks' idle transport
  // threads must wake up); true: it follows another collective (the rest of an iteration).
  bool back_to_back = false;
  double latency_s = 0;
  double bandwidth_bytes_per_s = 0;
  std::vector<std::pair<double, double>> samples;
};

// The communication model of a machine (the "comm" section of a v2 profile). Empty = unknown.
struct CommModel {
  std::string method;  // how the fits were measured, for reports
  std::vector<CollectiveFit> fits;

  bool empty() const { return fits.empty(); }
  // Predicted seconds of a collective of `kind` over `members` ranks on `payload_bytes` of
  // gradients: among the fits of that kind (those with the same back_to_back if any), the one
  // with that member count, else the nearest measured member count (ties: the larger). Throws
  // std::logic_error if the model has no fit of `kind`.
  double Seconds(Collective::Kind kind, int members, double payload_bytes,
                 bool back_to_back = false) const;
};

// Least-squares fit of seconds = latency + x / bandwidth over (payload bytes, seconds) samples,
// x = EstimatedBytesSent per member. Latency is clamped to >= 0 (then the fit goes through the
// origin); if the slope is not positive (time does not grow with size within the noise) the fit
// is the mean time with bandwidth 1e15 B/s. Needs >= 2 distinct sizes.
CollectiveFit FitCollective(Collective::Kind kind, int members,
                            const std::vector<std::pair<double, double>>& samples);

// Whole-iteration compute measured through the training code path at one depth (v2 "steps"):
// batch preparation + forward (all blocks, loss included) + backward, at the profiled batch.
struct DepthStepProfile {
  int depth = 0;
  // Mean over repeats of the span from the first concurrent replica starting its step to the
  // last one finishing (the slowest, plus the ranks' uneven start after the previous exchange).
  double slowest_compute_s = 0;
  double mean_compute_s = 0;   // mean over repeats and replicas
  double alone_compute_s = 0;  // mean over repeats, one process alone on the machine
  double forward_s = 0;        // mean over repeats and replicas
  double backward_s = 0;
};

// The "steps" section: measured with `workers` replicas running concurrently on this machine.
struct StepProfile {
  int workers = 0;
  int repeats = 0;
  std::vector<DepthStepProfile> depths;  // depth 0 .. L, in order; empty = not measured

  bool empty() const { return depths.empty(); }
};

struct ModelProfile {
  std::string model;
  int batch = 0;
  std::vector<int> input_shape;  // C, H, W
  int threads = 1;
  std::vector<BlockProfile> blocks;
  // Per-iteration work outside the blocks, at `batch` (v2; 0 when read from a v1 profile):
  double batch_s = 0;      // building the batch tensors (images and labels) from the data set
  double loss_s = 0;       // cross-entropy forward and backward on the logits
  double optimizer_s = 0;  // SGD-with-momentum step over every parameter of the model
  CommModel comm;          // v2 "comm" section; empty if the profile has none
  StepProfile steps;       // v2 "steps" section; empty if the profile has none
};

Json ProfileToJson(const ModelProfile& profile);
// Writes format v2 ("jigsaw-block-profile-v2"). Reads v1 and v2; throws InputError naming the
// file and the missing or malformed field.
ModelProfile ReadProfile(const std::string& path);

double PredictBackwardS(const ModelProfile& profile, int depth, int batch);
double PredictBytesSent(const ModelProfile& profile, const std::vector<Collective>& collectives,
                        int rank);

}  // namespace jigsaw

#endif  // JIGSAW_SPB_COST_MODEL_H_
