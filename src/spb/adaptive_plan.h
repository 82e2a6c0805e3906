// The adaptive SPB plan (`--spb adaptive`): full backpropagation for a warm-up, then phases whose
// per-block contributor counts follow a measured convergence signal of each block. Torch-free:
// the runtime measures the signal and applies the depths; the decisions are made here.
//
// Signal. Every `window` iterations the runtime measures each block's velocity: the relative
// change of its weights over the window, ||w_now - w_then|| / ||w_then||. The first window after
// the warm-up is each block's reference. A block's plasticity is its velocity against its
// reference, divided by the median of that ratio over the unfrozen blocks:
//   p_b = (v_b / v_b,ref) / median_unfrozen(v / v_ref)
// where v_b is first divided by s_b/N (its contributors during the window) when the gradient
// scale shrinks a block's step with its contributors (`steps_scale_with_contributors`).
// Every block slows down as the learning rate decays and the model converges; the median removes
// what they share, so p_b < 1 means block b slowed down more than the typical block: it converged
// earlier, as lower layers tend to (SVCCA, FreezeOut, AutoFreeze). A median rather than one
// reference block, because layers without batch norm (the linear head) slow down differently
// from the scale-invariant convolutions of a batch-norm network, whose weights keep moving at an
// equilibrium under weight decay. The weights are identical on every replica, so the signal is.
// Decision (every window; blocks are 0 = input side .. L-1 = output side):
//   * freezing: only the lowest not-yet-frozen block b may freeze, one per decision. It does when,
//     for `patience` consecutive windows, the mean plasticity of blocks b .. b+span-1 (not past
//     the top block) stayed below `freeze_below` (they slowed down more than the typical block;
//     one block's velocity is noisy, a run of blocks' is not), and b is not among the top
//     `min_trained_blocks`. Frozen blocks stay frozen (monotone, as FreezeOut/AutoFreeze), so the
//     frozen blocks are always a prefix;
//   * the other blocks get s_b contributors: N with structure `freeze`; otherwise N when
//     p_b >= full_above, else ceil(N (p_b - freeze_below) / (full_above - freeze_below)) in
//     [1, N]; then s_b = max(s_b, s_{b-1}) so the contributor sets are nested (each worker trains a
//     suffix) and no block gets fewer contributors than a less plastic block below it; the top
//     block always has N.
// Coherence signal (`signal` = kCoherence, structure freeze only): the runtime passes, per block,
// the coherence of its weights' path over the window: ||w_now - w_then|| / (sum of the lengths
// of the steps it took), 1 while every step goes the same way (still learning), down to about
// 1/sqrt(steps) once the steps are a random walk around a settled point (converged; the measure
// is free of the learning rate and of the block's size, so it needs no reference window and no
// median). Block b is settled in a window when the mean coherence of blocks b .. b+span-1 (not
// past the top block) is below `freeze_below`; the blocks from the lowest unfrozen one upwards
// that have all been settled for `patience` consecutive windows freeze together (so the frozen
// blocks stay a prefix), except the top `min_trained_blocks`; every other block keeps N
// contributors. The decision can come at the first window after the warm-up.
// Depths: the worker at position q (0..N-1) trains block b iff s_b >= N - q. Position q of worker
// k is k for `freeze` and `staircase`, (k + iteration) mod N for `rotating` (every worker takes the
// deep role in turn, so per-worker work over the run is the average).
#ifndef JIGSAW_SPB_ADAPTIVE_PLAN_H_
#define JIGSAW_SPB_ADAPTIVE_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

namespace jigsaw {

enum class AdaptiveStructure { kFreeze, kStaircase, kRotating };
enum class AdaptiveSignal { kPlasticity, kCoherence };

AdaptiveStructure ParseAdaptiveStructure(const std::string& text);  // throws UsageError
const char* AdaptiveStructureName(AdaptiveStructure structure);
AdaptiveSignal ParseAdaptiveSignal(const std::string& text);  // throws UsageError
// `text` plasticity, coherence or auto: coherence with structure freeze (the configuration that
// measures best on LeNet, docs/runtime.md "Adaptive defaults"), plasticity with the others.
AdaptiveSignal ResolveAdaptiveSignal(const std::string& text, AdaptiveStructure structure);
// The warm-up in iterations: `epochs` x `iterations_per_epoch` when epochs >= 0, else `fraction`
// (in [0, 1]) x `total_iterations`, rounded to the nearest iteration.
int64_t AdaptiveWarmupIterations(double epochs, double fraction, int64_t iterations_per_epoch,
                                 int64_t total_iterations);

struct AdaptiveOptions {
  int64_t warmup_iterations = 0;
  int64_t window = 100;
  double freeze_below = 0.95;
  double full_above = 1.2;
  int patience = 2;
  int span = 3;
  int min_trained_blocks = 1;
  AdaptiveStructure structure = AdaptiveStructure::kFreeze;
  AdaptiveSignal signal = AdaptiveSignal::kPlasticity;
  // True when a block's expected step shrinks with its contributors (the `world` and `lr`
  // gradient scales: s_b/N of full's): its velocity is then divided by s_b/N before the
  // plasticity is taken, or a block given fewer contributors would look converged because it
  // was given fewer contributors, and freeze for it.
  bool steps_scale_with_contributors = false;
};

// Throws UsageError naming the option when a value is out of range.
void ValidateAdaptiveOptions(const AdaptiveOptions& options);

struct AdaptiveDecision {
  int64_t iteration = 0;
  std::vector<double> plasticity;  // per block, the signal: plasticity or coherence (0 if frozen)
  std::vector<int> contributors;   // per block, after the decision
  int frozen_blocks = 0;
  std::string reason;
};

// What a checkpoint must keep of a controller to resume it exactly.
struct AdaptiveControllerState {
  std::vector<int> contributors;
  std::vector<double> reference;
  std::vector<int> windows_below;
};

class AdaptiveController {
 public:
  AdaptiveController(const AdaptiveOptions& options, int blocks, int workers);

  // Whether the runtime must measure the signal after `iteration` (0-based, counted over the run):
  // the end of the warm-up (to record the probe) and every `window` iterations after it.
  bool IsProbeIteration(int64_t iteration) const;
  // True at the end of the warm-up: the probe is recorded, no decision is made.
  bool IsWarmupEnd(int64_t iteration) const;

  // Feeds change_b (the relative weight change, or with kCoherence the coherence; entries of
  // frozen blocks are ignored) measured over the window ending after `iteration`, and decides
  // the next phase.
  AdaptiveDecision Observe(int64_t iteration, const std::vector<double>& change);

  // Replaces the contributor counts (on workers that receive rank 0's decision).
  void SetContributors(const std::vector<int>& contributors);

  const std::vector<int>& contributors() const { return contributors_; }
  int frozen_blocks() const;
  AdaptiveControllerState SaveState() const;
  // Throws std::invalid_argument when the state does not fit this controller's block count.
  void RestoreState(const AdaptiveControllerState& state);

  // Every worker's depth at `iteration` under the current counts.
  std::vector<int> Depths(int64_t iteration) const;

 private:
  AdaptiveDecision ObserveCoherence(int64_t iteration, const std::vector<double>& coherence);

  AdaptiveOptions options_;
  int blocks_;
  int workers_;
  std::vector<int> contributors_;
  std::vector<double> reference_;
  std::vector<int> windows_below_;
};

// Depths of N workers for per-block contributor counts (nested, non-decreasing with the block
// index) and worker positions as above.
std::vector<int> DepthsForContributors(const std::vector<int>& contributors, int workers,
                                       AdaptiveStructure structure, int64_t iteration);

}  // namespace jigsaw

#endif  // JIGSAW_SPB_ADAPTIVE_PLAN_H_
