// The Parameter Service's pool-size decisions, with hysteresis.
//
// Observe is fed the pool's utilization (aggregation CPU in use / cores reserved, 0..n) once per
// load report. It answers kAdd after `sustain` reports in a row above `high` (and the pool is
// below max), kRemove after `sustain` reports in a row below `low` (and the pool is above min,
// and the remaining aggregators would stay below `high`: removing must not trigger an add), and
// kKeep otherwise. After a decision the streaks restart, so decisions are at least `sustain`
// reports apart. Every answer carries its reason in words (the coordinator logs it).
#ifndef JIGSAW_PARAMSVC_ELASTICITY_H_
#define JIGSAW_PARAMSVC_ELASTICITY_H_

#include <string>

namespace jigsaw::paramsvc {

struct ElasticityOptions {
  double high = 0.8;
  double low = 0.3;
  int sustain = 3;
  int min_aggregators = 1;
  int max_aggregators = 16;
};

struct ElasticityDecision {
  enum Kind { kKeep, kAdd, kRemove } kind = kKeep;
  std::string reason;
};

class ElasticityController {
 public:
  // Throws std::invalid_argument unless 0 <= low < high, sustain >= 1, 1 <= min <= max.
  explicit ElasticityController(const ElasticityOptions& options);

  ElasticityDecision Observe(double utilization, int aggregators);

 private:
  ElasticityOptions options_;
  int above_ = 0;
  int below_ = 0;
};

}  // namespace jigsaw::paramsvc

#endif  // JIGSAW_PARAMSVC_ELASTICITY_H_
