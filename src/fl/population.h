// The device side of a simulated FL population: who is online, how fast each device is, and
// which of the sampled participants report back in time.
//
// Availability: each client is a two-state (online/offline) Markov chain with stationary online
// probability `availability` and a mean online session of `session_rounds` rounds; availability
// 1 keeps everyone online. Speed: a per-client factor exp(N(0, speed_sigma^2)) (log-normal device
// heterogeneity, fixed per client). Selection (FedScale's over-commitment): from the candidates,
// ceil(target * overcommit) are sampled uniformly; each one's completion time is
// work / speed * U(0.8, 1.2); the `target` fastest are kept and the rest are stragglers, dropped.
// The round lasts as long as the slowest kept participant.
#ifndef JIGSAW_FL_POPULATION_H_
#define JIGSAW_FL_POPULATION_H_

#include <cstdint>
#include <vector>

#include "core/rng.h"

namespace jigsaw {

struct PopulationOptions {
  double availability = 1.0;
  double session_rounds = 10.0;
  double speed_sigma = 0.5;
  double overcommit = 1.3;
};

struct Selection {
  std::vector<int> kept;     // in order of completion
  std::vector<int> dropped;  // stragglers
  double round_time = 0.0;   // simulated seconds, slowest kept participant
};

class ClientPopulation {
 public:
  // Throws UsageError for availability outside (0, 1], overcommit < 1 or negative sigma.
  ClientPopulation(int clients, const PopulationOptions& options, uint64_t seed);

  int size() const { return static_cast<int>(speed_.size()); }
  double speed(int client) const { return speed_[client]; }
  bool online(int client) const { return online_[client]; }

  // Moves every client's online state one round forward.
  void Advance();
  std::vector<int> Online() const;

  // `work[i]` is the simulated compute of candidates[i] (e.g. its local samples).
  Selection Select(const std::vector<int>& candidates, const std::vector<double>& work, int target);

 private:
  PopulationOptions options_;
  Rng rng_;
  std::vector<double> speed_;
  std::vector<bool> online_;
};

}  // namespace jigsaw

#endif  // JIGSAW_FL_POPULATION_H_
