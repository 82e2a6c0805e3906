#include "fl/local_training.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fl/random_population.h"
#include "fl/simulation.h"

namespace jigsaw {
namespace {

// 4 clients x 8 random images with random labels.
FederatedData RandomPopulation() { return RandomImagePopulation({8, 8, 8, 8}, 11, true); }

// One local step on each client's full (equal-size) data, averaged, is one step of centralised
// SGD on the union: w - lr * mean of the clients' mean-loss gradients.
TEST(LocalTraining, FedAvgOfOneIidStepEqualsCentralisedSgd) {
  const FederatedData data = RandomPopulation();
  FlModel model("mlp", 28, 28, 10, 3);
  const torch::Tensor global = model.GetWeights();
  LocalTrainOptions options;
  options.local_steps = 1;
  options.batch = 8;
  options.lr = 0.1;
  std::vector<LocalUpdate> updates;
  for (const ClientData& client : data.clients) {
    updates.push_back(TrainLocally(model, global, data, client, options, 5));
  }
  const torch::Tensor federated = FedAvg(updates);
  ClientData everyone;
  for (const ClientData& client : data.clients) {
    everyone.train_index.insert(everyone.train_index.end(), client.train_index.begin(),
                                client.train_index.end());
    everyone.train_label.insert(everyone.train_label.end(), client.train_label.begin(),
                                client.train_label.end());
  }
  options.batch = 32;
  const torch::Tensor central = TrainLocally(model, global, data, everyone, options, 5).weights;
  EXPECT_GT((federated - global).abs().max().item<float>(), 1e-4);  // it did move
  EXPECT_LT((federated - central).abs().max().item<float>(), 1e-5);
}

TEST(LocalTraining, FedProxPullsTowardsTheGlobalModel) {
  const FederatedData data = RandomPopulation();
  FlModel model("mlp", 28, 28, 10, 3);
  const torch::Tensor global = model.GetWeights();
  LocalTrainOptions options;
  options.local_steps = 20;
  options.batch = 8;
  options.lr = 0.1;
  const torch::Tensor plain =
      TrainLocally(model, global, data, data.clients[0], options, 5).weights;
  options.prox_mu = 1.0;
  const torch::Tensor prox = TrainLocally(model, global, data, data.clients[0], options, 5).weights;
  EXPECT_LT((prox - global).norm().item<float>(), (plain - global).norm().item<float>());
}

// The flat gradient of the mean cross-entropy over all of `client`'s training samples at `weights`.
torch::Tensor FullBatchGradient(FlModel& model, const torch::Tensor& weights,
                                const FederatedData& data, const ClientData& client) {
  model.SetWeights(weights);
  model.module()->zero_grad();
  const torch::Tensor loss = torch::nn::functional::cross_entropy(
      model.module()->forward(PoolImages(data, true, client.train_index)),
      torch::tensor(client.train_label, torch::kInt64));
  loss.backward();
  std::vector<torch::Tensor> parts;
  for (const auto& p : model.module()->parameters()) parts.push_back(p.grad().reshape({-1}));
  return torch::cat(parts).clone();
}

// Three full-batch steps (batch = the client's 8 samples, so every step sees the same mean
// gradient g(w)) equal PyTorch's SGD written out by hand, with the velocity starting at 0:
//   d_t = g(w_t) + wd * w_t,  v_t = momentum * v_{t-1} + d_t,  w_{t+1} = w_t - lr * v_t.
TEST(LocalTraining, MomentumAndWeightDecayStepsEqualTheHandComputation) {
  const FederatedData data = RandomPopulation();
  FlModel model("mlp", 28, 28, 10, 3);
  const torch::Tensor global = model.GetWeights();
  LocalTrainOptions options;
  options.local_steps = 3;
  options.batch = 8;
  options.lr = 0.1;
  options.momentum = 0.9;
  options.weight_decay = 0.05;
  const ClientData& client = data.clients[1];
  const torch::Tensor trained = TrainLocally(model, global, data, client, options, 7).weights;
  torch::Tensor w = global.clone();
  torch::Tensor v = torch::zeros_like(w);
  for (int step = 0; step < 3; ++step) {
    const torch::Tensor d = FullBatchGradient(model, w, data, client) + 0.05 * w;
    v = 0.9 * v + d;
    w = w - 0.1 * v;
  }
  EXPECT_LT((trained - w).abs().max().item<float>(), 1e-6);
  // Momentum and weight decay did change the result: plain SGD ends elsewhere.
  options.momentum = 0.0;
  options.weight_decay = 0.0;
  const torch::Tensor plain = TrainLocally(model, global, data, client, options, 7).weights;
  EXPECT_GT((trained - plain).abs().max().item<float>(), 1e-3);
}

// One step: momentum has nothing to add yet (v = d), weight decay shrinks by lr * wd * w.
TEST(LocalTraining, OneStepWithWeightDecayIsPlainSgdMinusLrTimesDecayTimesWeights) {
  const FederatedData data = RandomPopulation();
  FlModel model("mlp", 28, 28, 10, 3);
  const torch::Tensor global = model.GetWeights();
  LocalTrainOptions options;
  options.local_steps = 1;
  options.batch = 8;
  options.lr = 0.1;
  const torch::Tensor plain =
      TrainLocally(model, global, data, data.clients[2], options, 3).weights;
  options.momentum = 0.9;
  options.weight_decay = 0.01;
  const torch::Tensor decayed =
      TrainLocally(model, global, data, data.clients[2], options, 3).weights;
  EXPECT_LT((decayed - (plain - 0.1 * 0.01 * global)).abs().max().item<float>(), 1e-7);
}

// FedScale's schedule: lr for rounds 1-10, x0.98 from round 11, x0.98^2 from round 21, ...;
// once decayed never below min_lr; decay 1 keeps the lr.
TEST(LocalTraining, LearningRateDecaysEveryNRoundsDownToTheMinimum) {
  LocalTrainOptions options;
  options.lr = 0.05;
  EXPECT_EQ(LearningRateOfRound(options, 1), 0.05);
  EXPECT_EQ(LearningRateOfRound(options, 1000), 0.05);
  options.lr_decay = 0.98;
  options.lr_decay_rounds = 10;
  EXPECT_EQ(LearningRateOfRound(options, 1), 0.05);
  EXPECT_EQ(LearningRateOfRound(options, 10), 0.05);
  EXPECT_DOUBLE_EQ(LearningRateOfRound(options, 11), 0.049);
  EXPECT_DOUBLE_EQ(LearningRateOfRound(options, 20), 0.049);
  EXPECT_DOUBLE_EQ(LearningRateOfRound(options, 21), 0.04802);
  EXPECT_NEAR(LearningRateOfRound(options, 1000), 0.05 * std::pow(0.98, 99), 1e-15);
  EXPECT_NEAR(LearningRateOfRound(options, 1000), 0.0067663, 1e-7);  // 4.7x lower
  options.lr_decay = 0.5;
  options.lr_decay_rounds = 1;
  options.min_lr = 0.01;
  EXPECT_DOUBLE_EQ(LearningRateOfRound(options, 2), 0.025);
  EXPECT_DOUBLE_EQ(LearningRateOfRound(options, 3), 0.0125);
  EXPECT_DOUBLE_EQ(LearningRateOfRound(options, 4), 0.01);  // 0.00625, held at min_lr
  EXPECT_DOUBLE_EQ(LearningRateOfRound(options, 50), 0.01);
  const LocalTrainOptions round3 = RoundTrainOptions(options, 3);
  EXPECT_DOUBLE_EQ(round3.lr, 0.0125);
  EXPECT_EQ(round3.local_steps, options.local_steps);
}

TEST(LocalTraining, WeightsRoundTripAndEvaluation) {
  const FederatedData data = RandomPopulation();
  FlModel model("lenet", 28, 28, 10, 3);
  const torch::Tensor w = model.GetWeights();
  EXPECT_EQ(w.numel(), model.num_weights());
  model.SetWeights(w * 2);
  EXPECT_TRUE(torch::allclose(model.GetWeights(), w * 2));
  EXPECT_THROW(model.SetWeights(w.narrow(0, 0, 10)), std::invalid_argument);
  // Training hard on one client's 8 samples memorises them.
  LocalTrainOptions options;
  options.local_steps = 200;
  options.batch = 8;
  options.lr = 0.05;
  const torch::Tensor trained = TrainLocally(model, w, data, data.clients[0], options, 1).weights;
  EXPECT_EQ(CountCorrect(model, trained, data, data.clients[0]), 8);
  const std::vector<float> signature = SignatureOf(w, trained);
  EXPECT_EQ(signature.size(), static_cast<size_t>(w.numel() / 10));
}

TEST(Simulation, AccuracySummaryWorstTenPercentAndSpread) {
  std::vector<double> accuracy;
  for (int i = 0; i < 20; ++i) accuracy.push_back(i < 2 ? 0.0 : 1.0);
  double mean, worst, stddev;
  AccuracySummary(accuracy, &mean, &worst, &stddev);
  EXPECT_DOUBLE_EQ(mean, 0.9);
  EXPECT_DOUBLE_EQ(worst, 0.0);
  EXPECT_NEAR(stddev, 0.3, 1e-12);
}

// A tiny end-to-end run: two permutation groups that disagree on every label; the run completes,
// evaluates every client and reports ARI against the groups.
TEST(Simulation, AuxoRunEvaluatesEveryClientOnItsCohortModel) {
  FederatedData data = RandomPopulation();
  for (int c = 0; c < 4; ++c) data.clients[c].group = c % 2;
  FlOptions options;
  options.model = "mlp";
  options.rounds = 6;
  options.participants = 4;
  options.local.local_steps = 2;
  options.local.batch = 4;
  options.auxo = true;
  options.cohort.min_participants = 2;
  options.cohort.split_epochs = {3};
  options.eval_every = 3;
  int calls = 0;
  const FlResult result = RunFlSimulation(data, options, [&](const RoundRecord&) { ++calls; });
  EXPECT_EQ(calls, 6);
  EXPECT_EQ(result.cohorts, 2);
  EXPECT_EQ(result.client_accuracy.size(), 4u);
  EXPECT_TRUE(result.rounds[2].evaluated);
  EXPECT_FALSE(result.rounds[3].evaluated);
  EXPECT_GE(result.ari, -1.0);
  EXPECT_LE(result.ari, 1.0);
}

}  // namespace
}  // namespace jigsaw
