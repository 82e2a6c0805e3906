#include "fl/update_guard.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace jigsaw {
namespace {

// The lower median of the positive values (0 when there are none).
double LowerMedianOfPositive(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !(v > 0); }),
               values.end());
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  return values[(values.size() - 1) / 2];
}

}  // namespace

ScreenedUpdates ScreenUpdates(const torch::Tensor& global, const std::vector<LocalUpdate>& updates,
                              const std::vector<int>& clients, int cohort, double max_norm_ratio,
                              double previous_median_norm) {
  if (clients.size() != updates.size()) {
    throw std::invalid_argument("ScreenUpdates: one client per update expected");
  }
  torch::NoGradGuard no_grad;
  const torch::Tensor global64 = global.to(torch::kFloat64);
  std::vector<double> norms(updates.size());
  std::vector<bool> finite(updates.size());
  std::vector<double> finite_norms;
  for (size_t i = 0; i < updates.size(); ++i) {
    // In double: a float sum of squares overflows for weights that are merely large.
    norms[i] = (updates[i].weights.to(torch::kFloat64) - global64).norm().item<double>();
    finite[i] = std::isfinite(norms[i]) && std::isfinite(updates[i].loss);
    if (finite[i]) finite_norms.push_back(norms[i]);
  }
  const double median = LowerMedianOfPositive(finite_norms);
  double reference = 0.0;
  if (max_norm_ratio > 0) {
    const size_t moved =
        std::count_if(finite_norms.begin(), finite_norms.end(), [](double v) { return v > 0; });
    if (moved > 1) reference = median;
    if (previous_median_norm > 0 && (reference == 0 || previous_median_norm < reference)) {
      reference = previous_median_norm;
    }
  }
  ScreenedUpdates result;
  std::vector<double> kept_norms;
  for (size_t i = 0; i < updates.size(); ++i) {
    const bool exploded = finite[i] && reference > 0 && norms[i] > max_norm_ratio * reference;
    if (finite[i] && !exploded) {
      result.kept.push_back(static_cast<int>(i));
      kept_norms.push_back(norms[i]);
      continue;
    }
    RejectedUpdate rejected;
    rejected.cohort = cohort;
    rejected.client = clients[i];
    rejected.loss = updates[i].loss;
    rejected.norm = norms[i];
    rejected.reference_norm = reference;
    result.rejected.push_back(rejected);
  }
  result.kept_median_norm = LowerMedianOfPositive(kept_norms);
  return result;
}

}  // namespace jigsaw
