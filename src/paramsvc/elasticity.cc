#include "paramsvc/elasticity.h"

#include <stdexcept>

#include "core/output.h"

namespace jigsaw::paramsvc {

ElasticityController::ElasticityController(const ElasticityOptions& options) : options_(options) {
  if (!(options.low >= 0 && options.low < options.high)) {
    throw std::invalid_argument("elasticity marks: need 0 <= low < high");
  }
  if (options.sustain < 1) throw std::invalid_argument("elasticity: sustain must be >= 1");
  if (options.min_aggregators < 1 || options.min_aggregators > options.max_aggregators) {
    throw std::invalid_argument("elasticity: need 1 <= min aggregators <= max aggregators");
  }
}

ElasticityDecision ElasticityController::Observe(double utilization, int aggregators) {
  const std::string util = FormatFixed(utilization, 2);
  above_ = utilization > options_.high ? above_ + 1 : 0;
  below_ = utilization < options_.low ? below_ + 1 : 0;
  ElasticityDecision decision;
  if (above_ >= options_.sustain) {
    if (aggregators < options_.max_aggregators) {
      decision.kind = ElasticityDecision::kAdd;
      decision.reason = "utilization " + util + " above the high mark " +
                        FormatFixed(options_.high, 2) + " for " + std::to_string(above_) +
                        " reports";
      above_ = below_ = 0;
    } else {
      decision.reason = "utilization " + util + " above the high mark, but the pool is at its " +
                        "maximum of " + std::to_string(options_.max_aggregators);
    }
    return decision;
  }
  if (below_ >= options_.sustain) {
    if (aggregators <= options_.min_aggregators) {
      decision.reason = "utilization " + util + " below the low mark, but the pool is at its " +
                        "minimum of " + std::to_string(options_.min_aggregators);
      return decision;
    }
    const double after = utilization * aggregators / (aggregators - 1);
    if (after >= options_.high) {
      decision.reason = "utilization " + util + " below the low mark, but without one " +
                        "aggregator it would be " + FormatFixed(after, 2) +
                        " (above the high mark)";
      return decision;
    }
    decision.kind = ElasticityDecision::kRemove;
    decision.reason = "utilization " + util + " below the low mark " +
                      FormatFixed(options_.low, 2) + " for " + std::to_string(below_) +
                      " reports (" + FormatFixed(after, 2) + " after draining one)";
    above_ = below_ = 0;
    return decision;
  }
  decision.reason = "utilization " + util + " within the marks";
  return decision;
}

}  // namespace jigsaw::paramsvc
