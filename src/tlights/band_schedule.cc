#include "tlights/band_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace jigsaw::tlights {

Policy ParsePolicy(const std::string& text, const std::string& option) {
  for (const PolicyEntry& entry : kPolicies) {
    if (text == entry.name) return entry.policy;
  }
  throw UsageError(option + " '" + text + "': expected " + PolicyNames());
}

const char* PolicyName(Policy policy) {
  for (const PolicyEntry& entry : kPolicies) {
    if (entry.policy == policy) return entry.name;
  }
  return "?";
}

std::string PolicyNames() {
  std::string names;
  const size_t count = std::size(kPolicies);
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) names += i + 1 == count ? " or " : ", ";
    names += kPolicies[i].name;
  }
  return names;
}

std::vector<int> PriorityBands(int jobs, int rotation) {
  std::vector<int> bands(static_cast<size_t>(std::max(jobs, 0)));
  if (jobs <= 0) return bands;
  const int per_band = (jobs + kBands - 1) / kBands;
  const int shift = ((rotation % jobs) + jobs) % jobs;
  for (int i = 0; i < jobs; ++i) bands[static_cast<size_t>(i)] = ((i + shift) % jobs) / per_band;
  return bands;
}

BandSchedule::BandSchedule(Policy policy, int jobs, double interval_s)
    : policy_(policy), jobs_(std::max(jobs, 0)), interval_s_(interval_s) {
  if (policy_ == Policy::kRotate && !(interval_s_ > 0)) {
    throw UsageError("the rotation interval must be positive");
  }
}

int BandSchedule::RotationAt(double elapsed_s) const {
  if (policy_ != Policy::kRotate || !(elapsed_s > 0)) return 0;
  const double rotations = std::floor(elapsed_s / interval_s_);
  return rotations >= std::numeric_limits<int>::max() ? std::numeric_limits<int>::max()
                                                      : static_cast<int>(rotations);
}

double BandSchedule::RotationStart(int rotation) const {
  if (policy_ != Policy::kRotate) return std::numeric_limits<double>::infinity();
  return static_cast<double>(rotation) * interval_s_;
}

std::vector<int> BandSchedule::Bands(int rotation) const {
  if (policy_ == Policy::kFifo) return {};
  return PriorityBands(jobs_, policy_ == Policy::kRotate ? rotation : 0);
}

std::vector<int> BandSchedule::ChangedJobs(int rotation) const {
  std::vector<int> changed;
  if (policy_ != Policy::kRotate) return changed;
  const std::vector<int> before = PriorityBands(jobs_, rotation - 1);
  const std::vector<int> after = PriorityBands(jobs_, rotation);
  for (int j = 0; j < jobs_; ++j) {
    if (before[static_cast<size_t>(j)] != after[static_cast<size_t>(j)]) changed.push_back(j);
  }
  return changed;
}

}  // namespace jigsaw::tlights
