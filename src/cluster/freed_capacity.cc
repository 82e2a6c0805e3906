#include "cluster/freed_capacity.h"

#include <algorithm>

#include "core/error.h"
#include "core/limits.h"

namespace jigsaw {

const std::vector<std::pair<FreedInterference, std::string>>& FreedInterferenceNames() {
  static const std::vector<std::pair<FreedInterference, std::string>> kNames = {
      {FreedInterference::kGavel, "gavel"}, {FreedInterference::kTimeSlice, "timeslice"}};
  return kNames;
}

FreedInterference ParseFreedInterference(const std::string& option, const std::string& text) {
  std::string valid;
  for (const auto& [value, name] : FreedInterferenceNames()) {
    if (name == text) return value;
    valid += (valid.empty() ? "" : ", ") + name;
  }
  throw UsageError(option + " must be one of " + valid + ", got '" + text + "'");
}

std::string FreedInterferenceName(FreedInterference value) {
  for (const auto& [v, name] : FreedInterferenceNames()) {
    if (v == value) return name;
  }
  return "?";
}

void FreedCapacityModel::Validate() const {
  RequireOptionInRange("--jigsaw-freed-interference-scale", interference_scale, 0, 10);
}

FreedCapacityRates FreedCapacityCoRun(double host_alone_speed, double host_efficiency, double x_h,
                                      double x_g, const FreedCapacityModel& model) {
  if (model.interference == FreedInterference::kTimeSlice) x_h = x_g = 0.5;
  const double k = model.interference_scale;
  x_h = std::clamp(1.0 - k * (1.0 - x_h), 0.0, 1.0);
  x_g = std::clamp(1.0 - k * (1.0 - x_g), 0.0, 1.0);
  FreedCapacityRates rates;
  const double s = host_alone_speed;
  if (!(x_h > 0) || !(s > 0)) return rates;  // the host cannot run beside the guest
  const double tau_min = std::min(1.0, 1.0 / (x_h * s));
  const bool flat_out = host_efficiency * x_h * s + x_g > 1.0;
  rates.co_run_share = flat_out ? 1.0 : tau_min;
  rates.host_speed = rates.co_run_share * x_h * s;
  rates.guest_speed = (1.0 - rates.co_run_share) + rates.co_run_share * x_g;
  return rates;
}

}  // namespace jigsaw
