#include "fl/update_guard.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "fl/random_population.h"
#include "fl/simulation.h"

namespace jigsaw {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

LocalUpdate Update(std::vector<float> weights, int samples, double loss = 0.5) {
  LocalUpdate update;
  update.weights = torch::tensor(weights);
  update.samples = samples;
  update.loss = loss;
  return update;
}

TEST(UpdateGuard, NaNUpdateIsDroppedAndTheRestAveragedExactly) {
  const torch::Tensor global = torch::zeros({2});
  const std::vector<LocalUpdate> updates = {Update({1, 2}, 1), Update({3, 4}, 3),
                                            Update({kNaN, 0}, 4)};
  const ScreenedUpdates screened = ScreenUpdates(global, updates, {7, 8, 9}, 2, 10.0);
  EXPECT_EQ(screened.kept, (std::vector<int>{0, 1}));
  ASSERT_EQ(screened.rejected.size(), 1u);
  EXPECT_EQ(screened.rejected[0].client, 9);
  EXPECT_EQ(screened.rejected[0].cohort, 2);
  EXPECT_TRUE(std::isnan(screened.rejected[0].norm));
  EXPECT_EQ(screened.rejected[0].reference_norm, std::sqrt(5.0));  // lower median of sqrt 5, 5
  EXPECT_EQ(screened.kept_median_norm, std::sqrt(5.0));
  const torch::Tensor average = FedAvg({updates[0], updates[1]});
  EXPECT_EQ(average[0].item<float>(), 2.5f);  // (1 * 1 + 3 * 3) / 4
  EXPECT_EQ(average[1].item<float>(), 3.5f);  // (1 * 2 + 3 * 4) / 4
}

TEST(UpdateGuard, ExplodingUpdateIsDroppedAgainstTheLowerMedian) {
  const torch::Tensor global = torch::tensor({1.0f, 1.0f});
  // Distances 5, 1, 2 and 1000; lower median 2.
  const std::vector<LocalUpdate> updates = {Update({4, 5}, 1), Update({1, 2}, 1), Update({1, 3}, 1),
                                            Update({601, 801}, 1, 3e6)};
  const ScreenedUpdates screened = ScreenUpdates(global, updates, {0, 1, 2, 3}, 0, 10.0);
  EXPECT_EQ(screened.kept, (std::vector<int>{0, 1, 2}));
  ASSERT_EQ(screened.rejected.size(), 1u);
  EXPECT_EQ(screened.rejected[0].client, 3);
  EXPECT_EQ(screened.rejected[0].norm, 1000.0);
  EXPECT_EQ(screened.rejected[0].reference_norm, 2.0);
  EXPECT_EQ(screened.rejected[0].loss, 3e6);
  EXPECT_EQ(screened.kept_median_norm, 2.0);  // of 5, 1, 2
  // Ratio 600: 1000 <= 600 * 2, kept; ratio 0: only finiteness counts.
  EXPECT_EQ(ScreenUpdates(global, updates, {0, 1, 2, 3}, 0, 600.0).kept.size(), 4u);
  EXPECT_EQ(ScreenUpdates(global, updates, {0, 1, 2, 3}, 0, 0.0).kept.size(), 4u);
}

TEST(UpdateGuard, ARoundThatBlewUpWholeIsRejectedAgainstThePreviousMedian) {
  const torch::Tensor global = torch::zeros({2});
  // Every client's distance is 1000 or 2000: this round's median (1000) alone would keep them.
  const std::vector<LocalUpdate> updates = {Update({600, 800}, 1), Update({0, 2000}, 1)};
  EXPECT_EQ(ScreenUpdates(global, updates, {4, 5}, 1, 10.0).kept.size(), 2u);
  const ScreenedUpdates screened = ScreenUpdates(global, updates, {4, 5}, 1, 10.0, 3.0);
  EXPECT_TRUE(screened.kept.empty());
  ASSERT_EQ(screened.rejected.size(), 2u);
  EXPECT_EQ(screened.rejected[1].client, 5);
  EXPECT_EQ(screened.rejected[1].norm, 2000.0);
  EXPECT_EQ(screened.rejected[1].reference_norm, 3.0);
  EXPECT_EQ(screened.kept_median_norm, 0.0);
  // A previous median larger than this round's does not loosen the test; a single update is
  // tested against the previous median only.
  EXPECT_EQ(ScreenUpdates(global, updates, {4, 5}, 1, 1.5, 1e9).kept, (std::vector<int>{0}));
  EXPECT_EQ(ScreenUpdates(global, {updates[1]}, {5}, 1, 10.0, 199.0).kept.size(), 0u);
  EXPECT_EQ(ScreenUpdates(global, {updates[1]}, {5}, 1, 10.0, 200.0).kept.size(), 1u);
  EXPECT_EQ(ScreenUpdates(global, {updates[1]}, {5}, 1, 0.0, 1.0).kept.size(), 1u);
}

TEST(UpdateGuard, NonFiniteLossOrInfiniteWeightsAreDropped) {
  const torch::Tensor global = torch::zeros({2});
  const std::vector<LocalUpdate> updates = {
      Update({1, 0}, 1), Update({0, 1}, 1, std::numeric_limits<double>::infinity()),
      Update({kInf, 0}, 1), Update({0, 2}, 1, std::nan(""))};
  const ScreenedUpdates screened = ScreenUpdates(global, updates, {0, 1, 2, 3}, 0, 0.0);
  EXPECT_EQ(screened.kept, (std::vector<int>{0}));
  ASSERT_EQ(screened.rejected.size(), 3u);
  EXPECT_EQ(screened.rejected[0].client, 1);
  EXPECT_EQ(screened.rejected[1].client, 2);
  EXPECT_TRUE(std::isinf(screened.rejected[1].norm));
  EXPECT_EQ(screened.rejected[2].client, 3);
}

TEST(UpdateGuard, LargeButFiniteWeightsDoNotOverflowTheDistance) {
  // 3e20^2 overflows a float sum of squares; in double the distance is exact.
  const torch::Tensor global = torch::zeros({2});
  const std::vector<LocalUpdate> updates = {Update({3e20f, 4e20f}, 1), Update({6e20f, 8e20f}, 1)};
  const ScreenedUpdates screened = ScreenUpdates(global, updates, {0, 1}, 0, 10.0);
  EXPECT_EQ(screened.kept, (std::vector<int>{0, 1}));
  EXPECT_NEAR(ScreenUpdates(global, updates, {0, 1}, 0, 1.5).rejected.at(0).norm, 1e21, 1e15);
}

TEST(UpdateGuard, UnchangedModelsDoNotSetTheMedian) {
  // Clients without samples return the model: a median of 0 would reject every real update.
  const torch::Tensor global = torch::tensor({1.0f, 1.0f});
  const std::vector<LocalUpdate> updates = {Update({1, 1}, 0), Update({1, 1}, 0), Update({4, 5}, 1),
                                            Update({2, 1}, 1)};
  const ScreenedUpdates screened = ScreenUpdates(global, updates, {0, 1, 2, 3}, 0, 2.0);
  EXPECT_EQ(screened.kept, (std::vector<int>{0, 1, 3}));  // median 1 (of 1, 5): 5 > 2 * 1
}

// In the round loop a rejected update is a straggler's: the run equals one in which that update
// never came back (same final weights), it is counted as dropped and listed, and the model stays
// finite.
TEST(UpdateGuard, RoundLoopTreatsARejectedUpdateLikeALostOne) {
  const FederatedData data = RandomImagePopulation({8, 8, 8, 8}, 11, true);
  FlOptions options;
  options.model = "mlp";
  options.rounds = 3;
  options.participants = 4;
  options.local.local_steps = 2;
  options.local.batch = 4;
  options.population.availability = 1.0;
  options.population.overcommit = 1.0;
  options.eval_every = 3;
  const auto trainer = [&](bool poison) {
    return [&, poison](FlModel& model, int round, const torch::Tensor& global,
                       const std::vector<int>& clients) {
      CohortUpdates result;
      for (int c : clients) {
        if (round == 2 && c == 2 && !poison) {
          result.lost.push_back(c);
          continue;
        }
        LocalUpdate update = TrainLocally(model, global, data, data.clients[c], options.local,
                                          LocalTrainingSeed(options.seed, round, c));
        if (round == 2 && c == 2) update.weights[0].fill_(kNaN);
        result.trained.push_back(c);
        result.updates.push_back(update);
      }
      return result;
    };
  };
  const FlResult poisoned = RunFlRounds(data, options, trainer(true), {});
  const FlResult lost = RunFlRounds(data, options, trainer(false), {});
  ASSERT_EQ(poisoned.rounds.size(), 3u);
  ASSERT_EQ(poisoned.rounds[1].rejected.size(), 1u);
  EXPECT_EQ(poisoned.rounds[1].rejected[0].client, 2);
  EXPECT_EQ(poisoned.rounds[1].participants, 3);
  EXPECT_EQ(poisoned.rounds[1].dropped, 1);
  EXPECT_TRUE(poisoned.rounds[0].rejected.empty());
  EXPECT_TRUE(poisoned.rounds[2].rejected.empty());
  EXPECT_TRUE(std::isfinite(poisoned.rounds[1].train_loss));
  EXPECT_EQ(poisoned.rounds[1].train_loss, lost.rounds[1].train_loss);
  EXPECT_TRUE(std::isfinite(poisoned.weight_change));
  EXPECT_GT(poisoned.weight_change, 0.0);
  EXPECT_EQ(poisoned.weight_change, lost.weight_change);
  EXPECT_EQ(poisoned.client_accuracy, lost.client_accuracy);
}

}  // namespace
}  // namespace jigsaw
