#include "spb/adaptive_plan.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/error.h"
#include "core/output.h"

namespace jigsaw {

AdaptiveStructure ParseAdaptiveStructure(const std::string& text) {
  if (text == "freeze") return AdaptiveStructure::kFreeze;
  if (text == "staircase") return AdaptiveStructure::kStaircase;
  if (text == "rotating") return AdaptiveStructure::kRotating;
  throw UsageError("--spb-structure '" + text + "': expected freeze, staircase or rotating");
}

const char* AdaptiveStructureName(AdaptiveStructure structure) {
  switch (structure) {
    case AdaptiveStructure::kFreeze:
      return "freeze";
    case AdaptiveStructure::kStaircase:
      return "staircase";
    case AdaptiveStructure::kRotating:
      return "rotating";
  }
  return "?";
}

AdaptiveSignal ParseAdaptiveSignal(const std::string& text) {
  if (text == "plasticity") return AdaptiveSignal::kPlasticity;
  if (text == "coherence") return AdaptiveSignal::kCoherence;
  throw UsageError("--spb-signal '" + text + "': expected plasticity or coherence");
}

AdaptiveSignal ResolveAdaptiveSignal(const std::string& text, AdaptiveStructure structure) {
  if (text == "auto") {
    return structure == AdaptiveStructure::kFreeze ? AdaptiveSignal::kCoherence
                                                   : AdaptiveSignal::kPlasticity;
  }
  if (text == "plasticity" || text == "coherence") return ParseAdaptiveSignal(text);
  throw UsageError("--spb-signal '" + text + "': expected auto, plasticity or coherence");
}

int64_t AdaptiveWarmupIterations(double epochs, double fraction, int64_t iterations_per_epoch,
                                 int64_t total_iterations) {
  const double iterations = epochs >= 0 ? epochs * static_cast<double>(iterations_per_epoch)
                                        : fraction * static_cast<double>(total_iterations);
  return static_cast<int64_t>(std::llround(iterations));
}

void ValidateAdaptiveOptions(const AdaptiveOptions& o) {
  if (o.warmup_iterations < 0) throw UsageError("--spb-warmup must be >= 0");
  if (o.window < 1) throw UsageError("--spb-window must be >= 1 iteration");
  if (!(o.freeze_below >= 0 && o.freeze_below < o.full_above && std::isfinite(o.full_above))) {
    throw UsageError(
        "--spb-freeze-below and --spb-full-above: expected 0 <= freeze-below < "
        "full-above, finite");
  }
  if (o.patience < 1) throw UsageError("--spb-patience must be >= 1");
  if (o.span < 1) throw UsageError("--spb-span must be >= 1");
  if (o.min_trained_blocks < 1) throw UsageError("--spb-min-trained-blocks must be >= 1");
  if (o.signal == AdaptiveSignal::kCoherence && o.structure != AdaptiveStructure::kFreeze) {
    throw UsageError("--spb-signal coherence needs --spb-structure freeze");
  }
}

AdaptiveController::AdaptiveController(const AdaptiveOptions& options, int blocks, int workers)
    : options_(options),
      blocks_(blocks),
      workers_(workers),
      contributors_(blocks, workers),
      windows_below_(blocks, 0) {
  ValidateAdaptiveOptions(options);
}

bool AdaptiveController::IsWarmupEnd(int64_t iteration) const {
  return iteration + 1 == options_.warmup_iterations ||
         (options_.warmup_iterations == 0 && iteration + 1 == options_.window);
}

bool AdaptiveController::IsProbeIteration(int64_t iteration) const {
  if (IsWarmupEnd(iteration)) return true;
  const int64_t start =
      options_.warmup_iterations > 0 ? options_.warmup_iterations : options_.window;
  return iteration + 1 > start && (iteration + 1 - start) % options_.window == 0;
}

int AdaptiveController::frozen_blocks() const {
  int frozen = 0;
  while (frozen < blocks_ && contributors_[frozen] == 0) ++frozen;
  return frozen;
}

AdaptiveDecision AdaptiveController::ObserveCoherence(int64_t iteration,
                                                      const std::vector<double>& coherence) {
  AdaptiveDecision decision;
  decision.iteration = iteration;
  decision.plasticity.assign(blocks_, 0);
  const int frozen_before = frozen_blocks();
  for (int b = frozen_before; b < blocks_; ++b) decision.plasticity[b] = coherence[b];
  // Every block that may freeze counts its settled windows; the longest run of blocks from the
  // lowest unfrozen one upwards that all reached `patience` freezes at once.
  const int top = blocks_ - 1;
  const int last_candidate = blocks_ - options_.min_trained_blocks - 1;
  for (int b = frozen_before; b <= last_candidate; ++b) {
    const int end = std::max(b + 1, std::min(top, b + options_.span));
    double mean = 0;
    for (int i = b; i < end; ++i) mean += coherence[i];
    mean /= end - b;
    windows_below_[b] = mean < options_.freeze_below ? windows_below_[b] + 1 : 0;
  }
  int frozen = frozen_before;
  while (frozen <= last_candidate && windows_below_[frozen] >= options_.patience) ++frozen;
  std::vector<int> counts(blocks_, 0);
  for (int b = frozen; b < blocks_; ++b) counts[b] = workers_;
  contributors_ = counts;
  decision.contributors = counts;
  decision.frozen_blocks = frozen;
  if (frozen > frozen_before) {
    decision.reason = "froze blocks " + std::to_string(frozen_before) + "-" +
                      std::to_string(frozen - 1) + ": coherence (mean over " +
                      std::to_string(options_.span) + " blocks) below " +
                      FormatFixed(options_.freeze_below, 2) + " for " +
                      std::to_string(options_.patience) + " windows";
  } else if (frozen_before <= last_candidate) {
    decision.reason = "no new freeze: block " + std::to_string(frozen_before) + " settled for " +
                      std::to_string(windows_below_[frozen_before]) + " of " +
                      std::to_string(options_.patience) + " windows";
  } else {
    decision.reason = "no new freeze: only the top blocks are trained";
  }
  return decision;
}

AdaptiveDecision AdaptiveController::Observe(int64_t iteration, const std::vector<double>& change) {
  if (options_.signal == AdaptiveSignal::kCoherence) return ObserveCoherence(iteration, change);
  AdaptiveDecision decision;
  decision.iteration = iteration;
  decision.plasticity.assign(blocks_, 0);
  const int frozen_before = frozen_blocks();
  const bool first = reference_.empty();
  if (first) reference_.assign(blocks_, 0);
  for (int b = frozen_before; b < blocks_; ++b) {
    if (first || reference_[b] <= 0) reference_[b] = change[b];
  }
  // Each block's velocity against its own at the reference window, divided by the median of
  // that ratio over the unfrozen blocks: what is left is how much faster the block slowed down
  // than the typical block, free of the learning-rate schedule and of the overall convergence
  // every block shares (a median, not one reference block: layers without batch norm, such as
  // the head, slow down differently from scale-invariant ones).
  const int top = blocks_ - 1;
  std::vector<double> ratios;
  for (int b = frozen_before; b < blocks_; ++b) {
    double velocity = change[b];
    if (options_.steps_scale_with_contributors && contributors_[b] > 0) {
      velocity *= static_cast<double>(workers_) / contributors_[b];
    }
    ratios.push_back(reference_[b] > 0 ? velocity / reference_[b] : 1.0);
  }
  std::vector<double> sorted = ratios;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  const double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  for (int b = frozen_before; b < blocks_; ++b) {
    const double ratio = ratios[b - frozen_before];
    decision.plasticity[b] = median > 0 ? ratio / median : ratio;
  }
  // Only the lowest unfrozen block can be the next to freeze. It is a candidate when the blocks
  // from it upwards (`span` of them, below the top) slowed down more than the typical block on
  // average: one block's velocity is noisy, a stage's is not.
  for (int b = frozen_before + 1; b < blocks_; ++b) windows_below_[b] = 0;
  if (!first && frozen_before < top) {
    const int b = frozen_before;
    const int end = std::min(top, b + options_.span);
    double sum = 0;
    for (int i = b; i < end; ++i) sum += decision.plasticity[i];
    const bool below = sum / (end - b) < options_.freeze_below;
    windows_below_[b] = below ? windows_below_[b] + 1 : 0;
  }
  int frozen = frozen_before;
  if (frozen < blocks_ - options_.min_trained_blocks &&
      windows_below_[frozen] >= options_.patience) {
    ++frozen;
  }
  std::vector<int> counts(blocks_, 0);
  const double span = options_.full_above - options_.freeze_below;
  for (int b = frozen; b < blocks_; ++b) {
    const double p = decision.plasticity[b];
    int s = workers_;
    if (options_.structure != AdaptiveStructure::kFreeze && p < options_.full_above) {
      s = static_cast<int>(std::ceil(workers_ * (p - options_.freeze_below) / span - 1e-9));
      s = std::clamp(s, 1, workers_);
    }
    counts[b] = b > frozen ? std::max(s, counts[b - 1]) : s;
  }
  counts[blocks_ - 1] = workers_;
  for (int b = frozen; b < blocks_; ++b) counts[b] = std::max(counts[b], 1);
  contributors_ = counts;
  decision.contributors = counts;
  decision.frozen_blocks = frozen;
  if (first) {
    decision.reason = "reference window: plasticity 1 for every block";
  } else if (frozen > frozen_before) {
    decision.reason = "froze block " + std::to_string(frozen_before) + ": mean plasticity of " +
                      std::to_string(std::min(blocks_ - 1 - frozen_before, options_.span)) +
                      " blocks below " + FormatFixed(options_.freeze_below, 2) + " for " +
                      std::to_string(options_.patience) + " windows";
  } else {
    decision.reason = "no new freeze";
  }
  return decision;
}

void AdaptiveController::SetContributors(const std::vector<int>& contributors) {
  contributors_ = contributors;
}

AdaptiveControllerState AdaptiveController::SaveState() const {
  return {contributors_, reference_, windows_below_};
}

void AdaptiveController::RestoreState(const AdaptiveControllerState& state) {
  const size_t blocks = static_cast<size_t>(blocks_);
  if (state.contributors.size() != blocks || state.windows_below.size() != blocks ||
      (!state.reference.empty() && state.reference.size() != blocks)) {
    throw std::invalid_argument("adaptive plan state for another model");
  }
  contributors_ = state.contributors;
  reference_ = state.reference;
  windows_below_ = state.windows_below;
}

std::vector<int> AdaptiveController::Depths(int64_t iteration) const {
  return DepthsForContributors(contributors_, workers_, options_.structure, iteration);
}

std::vector<int> DepthsForContributors(const std::vector<int>& contributors, int workers,
                                       AdaptiveStructure structure, int64_t iteration) {
  std::vector<int> depths(workers, 0);
  for (int k = 0; k < workers; ++k) {
    const int position =
        structure == AdaptiveStructure::kRotating ? static_cast<int>((k + iteration) % workers) : k;
    for (int s : contributors) {
      if (s > 0 && s >= workers - position) ++depths[k];
    }
  }
  return depths;
}

}  // namespace jigsaw
