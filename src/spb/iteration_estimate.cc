#include "spb/iteration_estimate.h"

#include <algorithm>

#include "core/error.h"

namespace jigsaw {
namespace {

double BlocksBytes(const ModelProfile& profile, const std::vector<bool>& which) {
  double bytes = 0;
  for (size_t b = 0; b < profile.blocks.size(); ++b) {
    if (which[b]) bytes += static_cast<double>(profile.blocks[b].parameter_bytes);
  }
  return bytes;
}

// Bytes of the tensors autograd keeps for a worker of `depth` at the profiled batch.
double RetainedActivationBytes(const ModelProfile& profile, int depth) {
  const int blocks = static_cast<int>(profile.blocks.size());
  if (depth <= 0) return 0;
  double input_bytes = 4.0 * profile.batch;
  for (int d : profile.input_shape) input_bytes *= d;
  double bytes = static_cast<double>(profile.blocks[blocks - 1].activation_bytes);  // logits
  for (int b = blocks - depth; b < blocks; ++b) {
    bytes += b == 0 ? input_bytes : static_cast<double>(profile.blocks[b - 1].activation_bytes);
  }
  return bytes;
}

}  // namespace

SpbIterationEstimate EstimateSpbIteration(const ModelProfile& profile, const CommModel& comm,
                                          int workers, const SpbPlan& plan, int batch) {
  if (workers < 1 || batch < 1) throw UsageError("workers and batch must be >= 1");
  const int blocks = static_cast<int>(profile.blocks.size());
  const double scale = static_cast<double>(batch) / profile.batch;
  double forward_s = 0;
  for (const BlockProfile& b : profile.blocks) forward_s += b.forward_s;
  forward_s *= scale;
  const double overhead_s = (profile.batch_s + profile.loss_s) * scale;
  std::vector<bool> all(blocks, true);
  const double model_bytes = BlocksBytes(profile, all);

  const bool steps = !profile.steps.empty();
  SpbIterationEstimate estimate;
  estimate.workers.assign(workers, SpbWorkerEstimate());
  const int period = PlanPeriod(plan, workers);
  for (int t = 0; t < period; ++t) {
    const std::vector<int> depths = WorkerDepths(plan, blocks, workers, t);
    const std::vector<std::vector<int>> contributors = BlockContributors(depths, blocks);
    const std::vector<Collective> collectives = PlanCollectives(contributors, workers);
    std::vector<bool> updated(blocks);
    for (int b = 0; b < blocks; ++b) updated[b] = !contributors[b].empty();
    const double updated_bytes = BlocksBytes(profile, updated);
    std::vector<double> collective_s;
    double all_comm_s = 0;
    for (const Collective& c : collectives) {
      double payload = 0;
      for (int b : c.blocks) payload += static_cast<double>(profile.blocks[b].parameter_bytes);
      collective_s.push_back(comm.Seconds(c.kind, static_cast<int>(c.members.size()), payload,
                                          /*back_to_back=*/!collective_s.empty()));
      all_comm_s += collective_s.back();
    }
    // With measured steps, the deepest worker (the slowest) shares the machine with the others
    // until the second-slowest finishes, then runs alone (processor sharing): its compute is
    // T2 + (1 - T2 / contended) x alone, T2 = the second-slowest worker's contended compute.
    // Several workers at the deepest depth: the measured slowest of N instead.
    std::vector<double> contended(workers);
    for (int k = 0; k < workers; ++k) {
      contended[k] = steps ? profile.steps.depths[depths[k]].mean_compute_s * scale : 0;
    }
    const int deepest = *std::max_element(depths.begin(), depths.end());
    const int at_deepest = static_cast<int>(std::count(depths.begin(), depths.end(), deepest));
    double second = 0;
    for (int k = 0; k < workers; ++k) {
      if (depths[k] != deepest) second = std::max(second, contended[k]);
    }
    double slowest = 0;
    for (int k = 0; k < workers; ++k) {
      double worker_forward_s = forward_s;
      double backward_s = PredictBackwardS(profile, depths[k], batch);
      double compute_s = overhead_s + forward_s + backward_s;
      if (steps) {  // measured whole steps replace the per-block sums
        const DepthStepProfile& step = profile.steps.depths[depths[k]];
        worker_forward_s = step.forward_s * scale;
        backward_s = step.backward_s * scale;
        compute_s = contended[k];
        if (depths[k] == deepest && at_deepest >= 2) {
          compute_s = step.slowest_compute_s * scale;
        } else if (depths[k] == deepest && workers >= 2 && contended[k] > 0) {
          const double left = std::max(0.0, 1 - second / contended[k]);
          compute_s = second + left * step.alone_compute_s * scale;
        }
      }
      slowest = std::max(slowest, compute_s);
      double comm_s = 0;
      for (size_t i = 0; i < collectives.size(); ++i) {
        const std::vector<int>& m = collectives[i].members;
        if (std::binary_search(m.begin(), m.end(), k)) comm_s += collective_s[i];
      }
      const double activations = RetainedActivationBytes(profile, depths[k]) * scale;
      SpbWorkerEstimate& w = estimate.workers[k];
      w.depth += depths[k];
      w.forward_s += worker_forward_s;
      w.backward_s += backward_s;
      w.compute_s += compute_s;
      w.comm_s += comm_s;
      w.bytes_sent += PredictBytesSent(profile, collectives, k);
      w.parameter_bytes += model_bytes;
      w.gradient_bytes += updated_bytes;
      w.optimizer_bytes += updated_bytes;
      w.activation_bytes += activations;
      w.memory_bytes += 2 * updated_bytes + model_bytes + activations;
    }
    const double optimizer_s =
        model_bytes > 0 ? profile.optimizer_s * updated_bytes / model_bytes : 0;
    estimate.slowest_compute_s += slowest;
    estimate.comm_s += all_comm_s;
    estimate.optimizer_s += optimizer_s;
    estimate.iteration_s += slowest + all_comm_s + optimizer_s;
  }
  const double inv = 1.0 / period;
  estimate.slowest_compute_s *= inv;
  estimate.comm_s *= inv;
  estimate.optimizer_s *= inv;
  estimate.iteration_s *= inv;
  for (SpbWorkerEstimate& w : estimate.workers) {
    for (double* v : {&w.depth, &w.forward_s, &w.backward_s, &w.compute_s, &w.comm_s, &w.bytes_sent,
                      &w.parameter_bytes, &w.gradient_bytes, &w.optimizer_bytes,
                      &w.activation_bytes, &w.memory_bytes}) {
      *v *= inv;
    }
  }
  return estimate;
}

}  // namespace jigsaw
