#include "fl/update_guard.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace jigsaw {

ScreenedUpdates ScreenUpdates(const torch::Tensor& global, const std::vector<LocalUpdate>& updates,
                              const std::vector<int>& clients, int cohort, double max_norm_ratio) {
  if (clients.size() != updates.size()) {
    throw std::invalid_argument("ScreenUpdates: one client per update expected");
  }
  torch::NoGradGuard no_grad;
  std::vector<double> norms(updates.size());
  std::vector<double> moved;  // finite, non-zero distances
  for (size_t i = 0; i < updates.size(); ++i) {
    // In double: a float sum of squares overflows for weights that are merely large.
    norms[i] =
        (updates[i].weights.to(torch::kFloat64) - global.to(torch::kFloat64)).norm().item<double>();
    if (std::isfinite(norms[i]) && std::isfinite(updates[i].loss) && norms[i] > 0) {
      moved.push_back(norms[i]);
    }
  }
  double median = 0.0;
  if (!moved.empty()) {
    std::sort(moved.begin(), moved.end());
    median = moved[(moved.size() - 1) / 2];
  }
  ScreenedUpdates result;
  for (size_t i = 0; i < updates.size(); ++i) {
    const bool finite = std::isfinite(norms[i]) && std::isfinite(updates[i].loss);
    const bool exploded =
        finite && max_norm_ratio > 0 && moved.size() > 1 && norms[i] > max_norm_ratio * median;
    if (finite && !exploded) {
      result.kept.push_back(static_cast<int>(i));
      continue;
    }
    RejectedUpdate rejected;
    rejected.cohort = cohort;
    rejected.client = clients[i];
    rejected.loss = updates[i].loss;
    rejected.norm = norms[i];
    rejected.median_norm = median;
    result.rejected.push_back(rejected);
  }
  return result;
}

}  // namespace jigsaw
