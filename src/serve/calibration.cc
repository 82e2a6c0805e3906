#include "serve/calibration.h"

#include <algorithm>

namespace jigsaw {

std::optional<CalibratedBound> CalibrateBound(std::vector<CalibrationPoint> points, double target,
                                              int min_hits) {
  std::sort(points.begin(), points.end(),
            [](const CalibrationPoint& a, const CalibrationPoint& b) { return a.score < b.score; });
  std::optional<CalibratedBound> best;
  int agreeing = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    agreeing += points[i].agrees ? 1 : 0;
    if (i + 1 < points.size() && points[i + 1].score == points[i].score) continue;
    const int hits = static_cast<int>(i + 1);
    const double agreement = static_cast<double>(agreeing) / hits;
    if (hits >= min_hits && agreement >= target) {
      best = CalibratedBound{points[i].score, hits, agreement};
    }
  }
  return best;
}

}  // namespace jigsaw
