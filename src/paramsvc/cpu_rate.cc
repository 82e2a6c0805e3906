#include "paramsvc/cpu_rate.h"

#include <algorithm>

namespace jigsaw::paramsvc {

bool CpuRateMeter::Sample(double wall_s, double cpu_s, double min_window_s) {
  if (!has_baseline_) {
    has_baseline_ = true;
    wall_s_ = wall_s, cpu_s_ = cpu_s;
    return false;
  }
  const double window = wall_s - wall_s_;
  if (!(window >= min_window_s) || window <= 0) return false;
  rate_ = std::max(0.0, cpu_s - cpu_s_) / window;
  wall_s_ = wall_s, cpu_s_ = cpu_s;
  return true;
}

}  // namespace jigsaw::paramsvc
