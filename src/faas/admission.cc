#include "faas/admission.h"

#include <algorithm>
#include <numeric>

namespace jigsaw::faas {

std::vector<double> AdmissionFractions(const std::vector<double>& rate_per_s,
                                       const std::vector<double>& work_s, double capacity_cores,
                                       double target) {
  std::vector<double> admit(rate_per_s.size(), 1.0);
  double offered = 0;
  for (size_t d = 0; d < rate_per_s.size(); ++d) offered += rate_per_s[d] * work_s[d];
  if (offered <= capacity_cores) return admit;
  std::vector<size_t> order(rate_per_s.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return work_s[a] > work_s[b]; });
  const double goal = target * capacity_cores;
  for (size_t d : order) {
    if (offered <= goal) break;
    const double demand = rate_per_s[d] * work_s[d];
    if (demand <= 0) continue;
    if (offered - demand >= goal) {
      admit[d] = 0;
      offered -= demand;
    } else {
      admit[d] = 1 - (offered - goal) / demand;
      offered = goal;
    }
  }
  return admit;
}

}  // namespace jigsaw::faas
