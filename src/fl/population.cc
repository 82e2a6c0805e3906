#include "fl/population.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"

namespace jigsaw {

ClientPopulation::ClientPopulation(int clients, const PopulationOptions& options, uint64_t seed)
    : options_(options), rng_(seed) {
  if (clients < 1) throw UsageError("an FL population needs at least one client");
  if (!(options.availability > 0.0 && options.availability <= 1.0)) {
    throw UsageError("--availability must be in (0, 1]");
  }
  if (!(options.overcommit >= 1.0 && options.overcommit <= 10.0)) {
    throw UsageError("--overcommit must be in [1, 10]");
  }
  if (!(options.speed_sigma >= 0.0 && options.speed_sigma <= 5.0)) {
    throw UsageError("--speed-sigma must be in [0, 5]");
  }
  if (!(options.session_rounds >= 1.0)) throw UsageError("--session-rounds must be >= 1");
  for (int c = 0; c < clients; ++c) {
    // Box-Muller normal for the log-speed.
    const double u1 = 1.0 - rng_.Uniform();
    const double u2 = rng_.Uniform();
    const double normal = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    speed_.push_back(std::exp(options.speed_sigma * normal));
    online_.push_back(rng_.Uniform() < options.availability);
  }
}

void ClientPopulation::Advance() {
  if (options_.availability >= 1.0) return;
  const double go_offline = 1.0 / options_.session_rounds;
  // Stationary online share p needs go_online = go_offline * p / (1 - p).
  const double go_online =
      std::min(1.0, go_offline * options_.availability / (1.0 - options_.availability));
  for (size_t c = 0; c < online_.size(); ++c) {
    const double u = rng_.Uniform();
    online_[c] = online_[c] ? u >= go_offline : u < go_online;
  }
}

std::vector<int> ClientPopulation::Online() const {
  std::vector<int> result;
  for (size_t c = 0; c < online_.size(); ++c) {
    if (online_[c]) result.push_back(static_cast<int>(c));
  }
  return result;
}

Selection ClientPopulation::Select(const std::vector<int>& candidates,
                                   const std::vector<double>& work, int target) {
  Selection selection;
  if (target <= 0 || candidates.empty()) return selection;
  std::vector<size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), 0);
  const size_t sampled =
      std::min(order.size(), static_cast<size_t>(std::ceil(target * options_.overcommit - 1e-9)));
  for (size_t i = 0; i < sampled; ++i) {  // partial Fisher-Yates: the first `sampled` are random
    std::swap(order[i], order[i + rng_.UniformInt(order.size() - i)]);
  }
  std::vector<std::pair<double, int>> finish;
  for (size_t i = 0; i < sampled; ++i) {
    const int client = candidates[order[i]];
    const double time = work[order[i]] / speed_[client] * rng_.Uniform(0.8, 1.2);
    finish.emplace_back(time, client);
  }
  std::sort(finish.begin(), finish.end());
  for (size_t i = 0; i < finish.size(); ++i) {
    if (static_cast<int>(i) < target) {
      selection.kept.push_back(finish[i].second);
      selection.round_time = finish[i].first;
    } else {
      selection.dropped.push_back(finish[i].second);
    }
  }
  return selection;
}

}  // namespace jigsaw
