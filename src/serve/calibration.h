// Calibrating a cache's hit rule for a target agreement with the base model.
//
// Every cache kind reduces its hit decision at a layer to a score and a bound: hit iff
// score <= bound (Freeze: the k neighbours' mean distance; GATI: 1 - max softmax; BranchyNet:
// the softmax entropy). On a calibration split, each lookup that could hit gives a point (its
// score, whether its answer agrees with the base model's). CalibrateBound returns the largest
// bound whose hits agree on at least `target` of them, with at least `min_hits` hits; nullopt when
// no bound does (the layer then gets no cache). Ties are taken together: a bound never splits
// points of equal score.
#ifndef JIGSAW_SERVE_CALIBRATION_H_
#define JIGSAW_SERVE_CALIBRATION_H_

#include <optional>
#include <vector>

namespace jigsaw {

struct CalibrationPoint {
  double score = 0;
  bool agrees = false;
};

struct CalibratedBound {
  double bound = 0;
  int hits = 0;          // calibration points at or under the bound
  double agreement = 0;  // fraction of them that agree
};

std::optional<CalibratedBound> CalibrateBound(std::vector<CalibrationPoint> points, double target,
                                              int min_hits);

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_CALIBRATION_H_
