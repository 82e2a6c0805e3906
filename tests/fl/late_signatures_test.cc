// Auxo's late signatures (FlOptions::late_signatures) in the round loop, with a scripted trainer:
// every client's update moves the last tenth of the weights by +1 or -1 by ground-truth group.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "fl/simulation.h"
#include "random_population.h"

namespace jigsaw {
namespace {

constexpr int kClients = 24;

FederatedData TwoGroups() {
  FederatedData data = RandomImagePopulation(std::vector<int>(kClients, 2), 5, true);
  for (int c = 0; c < kClients; ++c) data.clients[c].group = c % 2;
  return data;
}

// 8 kept of 12 sampled per round, device speeds spread widely: the slowest clients are dropped as
// stragglers whenever they are sampled.
FlOptions Options(bool late) {
  FlOptions options;
  options.model = "mlp";
  options.rounds = 12;
  options.participants = 8;
  options.population.availability = 1.0;
  options.population.overcommit = 1.5;
  options.population.speed_sigma = 1.5;
  options.auxo = true;
  options.auxo_start_round = 1;
  options.cohort.split_epochs = {3};
  options.cohort.epsilon = 0.0;
  options.cohort.min_participants = 3;
  options.eval_every = 12;
  options.max_update_ratio = 0.0;
  options.late_signatures = late;
  options.seed = 3;
  return options;
}

CohortTrainer Scripted(const FederatedData& data, std::vector<int>* trained_clients) {
  return [&data, trained_clients](FlModel&, int, const torch::Tensor& global,
                                  const std::vector<int>& clients) {
    CohortUpdates result;
    const int64_t n = global.numel();
    for (int c : clients) {
      LocalUpdate update;
      update.weights = global.clone();
      const float step = data.clients[c].group == 0 ? 1.0f : -1.0f;
      update.weights.narrow(0, n - n / 10, n / 10).sub_(step);
      update.samples = 2;
      update.loss = 1.0;
      result.trained.push_back(c);
      result.updates.push_back(update);
      if (trained_clients != nullptr) trained_clients->push_back(c);
    }
    return result;
  };
}

// Without late signatures the always-dropped slow clients never reach the table: after the split
// they have no train count anywhere and are labelled by their random affiliation. With them every
// client is placed in its group's cohort.
TEST(LateSignatures, PlaceClientsThatAreAlwaysStragglers) {
  const FederatedData data = TwoGroups();
  std::vector<int> trained_without;
  const FlResult without = RunFlRounds(data, Options(false), Scripted(data, &trained_without), {});
  const FlResult with = RunFlRounds(data, Options(true), Scripted(data, nullptr), {});
  ASSERT_EQ(without.cohorts, 2);
  ASSERT_EQ(with.cohorts, 2);
  int never_kept = 0;
  for (int c = 0; c < kClients; ++c) {
    never_kept += std::count(trained_without.begin(), trained_without.end(), c) == 0;
  }
  EXPECT_GT(never_kept, 0);
  EXPECT_LT(without.ari, 1.0);
  EXPECT_EQ(with.ari, 1.0);
  EXPECT_EQ(with.purity, 1.0);
  for (int c = 0; c < kClients; ++c) {
    EXPECT_EQ(with.cohort_of_client[c] == with.cohort_of_client[0], c % 2 == 0) << c;
  }
  int late = 0;
  for (const RoundRecord& r : with.rounds) {
    EXPECT_EQ(r.late_signatures, r.dropped) << r.round;  // every straggler's update is finite
    late += r.late_signatures;
  }
  EXPECT_GT(late, 0);
  for (const RoundRecord& r : without.rounds) EXPECT_EQ(r.late_signatures, 0);
}

// The stragglers' updates inform only the table: with one cohort throughout, the run with late
// signatures averages exactly the same updates as the one without.
TEST(LateSignatures, NeverReachTheAverage) {
  const FederatedData data = TwoGroups();
  FlOptions with_options = Options(true);
  FlOptions without_options = Options(false);
  for (FlOptions* o : {&with_options, &without_options}) {
    o->cohort.split_epochs.clear();
    o->cohort.min_cohort_clients = kClients + 1;  // never splits
  }
  const FlResult with = RunFlRounds(data, with_options, Scripted(data, nullptr), {});
  const FlResult without = RunFlRounds(data, without_options, Scripted(data, nullptr), {});
  ASSERT_EQ(with.cohorts, 1);
  int late = 0;
  for (size_t r = 0; r < with.rounds.size(); ++r) {
    EXPECT_EQ(with.rounds[r].participants, without.rounds[r].participants);
    EXPECT_EQ(with.rounds[r].dropped, without.rounds[r].dropped);
    late += with.rounds[r].late_signatures;
  }
  EXPECT_GT(late, 0);
  EXPECT_EQ(with.weight_change, without.weight_change);
  EXPECT_EQ(with.client_accuracy, without.client_accuracy);
}

// Guard-rejected updates with finite weights join the table's rows; non-finite ones do not.
TEST(LateSignatures, IncludeFiniteRejectedUpdatesOnly) {
  const FederatedData data = TwoGroups();
  FlOptions options = Options(true);
  options.rounds = 1;
  options.eval_every = 1;
  options.population.overcommit = 1.0;  // no stragglers
  options.max_update_ratio = 10.0;
  const CohortTrainer scripted = Scripted(data, nullptr);
  const CohortTrainer trainer = [&](FlModel& model, int round, const torch::Tensor& global,
                                    const std::vector<int>& clients) {
    CohortUpdates result = scripted(model, round, global, clients);
    result.updates[0].weights.mul_(1000.0f);  // far: rejected, finite
    result.updates[1].weights.fill_(std::numeric_limits<float>::quiet_NaN());
    return result;
  };
  const FlResult result = RunFlRounds(data, options, trainer, {});
  ASSERT_EQ(result.rounds.size(), 1u);
  EXPECT_EQ(result.rounds[0].rejected.size(), 2u);
  EXPECT_EQ(result.rounds[0].participants, 6);
  EXPECT_EQ(result.rounds[0].late_signatures, 1);
}

}  // namespace
}  // namespace jigsaw
