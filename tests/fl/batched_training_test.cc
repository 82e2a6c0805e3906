#include "fl/batched_training.h"

#include <gtest/gtest.h>

#include "fl/random_population.h"
#include "fl/simulation.h"

namespace jigsaw {
namespace {

// Clients with 12, 12, 5 (smaller than the batch: its own group), 0 and 12 random 28x28 images.
FederatedData MixedPopulation(bool test_on_train = false) {
  return RandomImagePopulation({12, 12, 5, 0, 12}, 17, test_on_train);
}

// Every client of `data`; client c trains with seed first_seed + c.
void AllClients(const FederatedData& data, uint64_t first_seed,
                std::vector<const ClientData*>* clients, std::vector<uint64_t>* seeds) {
  for (size_t c = 0; c < data.clients.size(); ++c) {
    clients->push_back(&data.clients[c]);
    seeds->push_back(first_seed + c);
  }
}

// Batched and one-after-the-other local training give each client the same weights, loss and
// sample count. Tolerance: 1e-5 absolute per weight after 6 steps (float summation order in the
// batched matrix products differs from the per-client kernels).
void ExpectBatchedEqualsSequential(const std::string& model_name, double prox_mu,
                                   double momentum = 0.0, double weight_decay = 0.0) {
  const FederatedData data = MixedPopulation();
  FlModel model(model_name, 28, 28, 10, 3);
  const torch::Tensor global = model.GetWeights();
  LocalTrainOptions options;
  options.local_steps = 6;
  options.batch = 8;
  options.lr = 0.1;
  options.prox_mu = prox_mu;
  options.momentum = momentum;
  options.weight_decay = weight_decay;
  std::vector<const ClientData*> clients;
  std::vector<uint64_t> seeds;
  AllClients(data, 100, &clients, &seeds);
  const std::vector<LocalUpdate> batched =
      TrainLocallyBatched(model, global, data, clients, options, seeds);
  ASSERT_EQ(batched.size(), clients.size());
  for (size_t c = 0; c < clients.size(); ++c) {
    SCOPED_TRACE(model_name + " client " + std::to_string(c));
    const LocalUpdate sequential =
        TrainLocally(model, global, data, *clients[c], options, seeds[c]);
    EXPECT_EQ(batched[c].samples, sequential.samples);
    ASSERT_EQ(batched[c].weights.sizes(), sequential.weights.sizes());
    if (sequential.samples > 0) {
      EXPECT_GT((sequential.weights - global).abs().max().item<float>(), 1e-3);  // it trained
    }
    EXPECT_LT((batched[c].weights - sequential.weights).abs().max().item<float>(), 1e-5);
    EXPECT_NEAR(batched[c].loss, sequential.loss, 1e-5);
  }
  // Different clients (data and seeds) end with different weights: no cross-talk hidden by
  // identical results.
  EXPECT_GT((batched[0].weights - batched[1].weights).abs().max().item<float>(), 1e-4);
}

TEST(BatchedTraining, LenetMatchesSequentialPerClient) {
  ExpectBatchedEqualsSequential("lenet", 0);
}

TEST(BatchedTraining, MlpMatchesSequentialPerClient) { ExpectBatchedEqualsSequential("mlp", 0); }

TEST(BatchedTraining, FedProxLenetMatchesSequentialPerClient) {
  ExpectBatchedEqualsSequential("lenet", 0.5);
}

TEST(BatchedTraining, MomentumAndWeightDecayMatchSequentialPerClient) {
  ExpectBatchedEqualsSequential("lenet", 0, 0.9, 5e-4);
  ExpectBatchedEqualsSequential("mlp", 0.5, 0.9, 0.01);
}

// The whole round loop (FedAvg of the batched updates, 3 rounds, 4 of 5 clients per round) ends
// with the same model (up to compounded rounding) and accuracy as with sequential training.
TEST(BatchedTraining, SimulationMatchesSequentialTraining) {
  const FederatedData data = MixedPopulation(/*test_on_train=*/true);
  FlOptions options;
  options.model = "lenet";
  options.rounds = 3;
  options.participants = 4;
  options.local.local_steps = 3;
  options.local.batch = 8;
  options.local.lr = 0.1;
  options.population.overcommit = 1.0;
  const FlResult batched = RunFlSimulation(data, options, {});
  options.batched_training = false;
  const FlResult sequential = RunFlSimulation(data, options, {});
  EXPECT_GT(sequential.weight_change, 1e-3);
  // Rounding differences compound over rounds (lr 0.1 on random labels): 1e-3 relative here; on
  // FEMNIST (100 clients, 2 rounds) the two agree to 1e-5 relative (docs/fl.md).
  EXPECT_NEAR(batched.weight_change, sequential.weight_change, 1e-3 * sequential.weight_change);
  ASSERT_EQ(batched.rounds.size(), sequential.rounds.size());
  for (size_t r = 0; r < batched.rounds.size(); ++r) {
    EXPECT_EQ(batched.rounds[r].participants, sequential.rounds[r].participants);
    EXPECT_NEAR(batched.rounds[r].train_loss, sequential.rounds[r].train_loss, 1e-5);
  }
  EXPECT_NEAR(batched.rounds.back().mean_accuracy, sequential.rounds.back().mean_accuracy, 1e-9);
}

// The fused pooling equals LeNet's ReLU then 2x2 max-pooling, values and gradients bit for bit:
// random values (odd sizes: the last row and column are dropped), windows of ties (first maximum
// gets the gradient) and windows with no positive value (no gradient).
TEST(BatchedTraining, MaxPool2ReluEqualsReluThenMaxPoolExactly) {
  torch::manual_seed(5);
  torch::Tensor input = torch::randn({3, 4, 9, 7});
  input[0][0].fill_(0.5);   // every window a four-way tie
  input[1][1].fill_(-1.0);  // nothing positive
  input[2][2][0][0] = 0.0;  // a zero next to negatives
  input[2][2][0][1] = -2.0;
  input[2][2][1][0] = -3.0;
  input[2][2][1][1] = -4.0;
  const torch::Tensor upstream = torch::randn({3, 4, 4, 3});
  torch::Tensor a = input.clone().requires_grad_(true);
  torch::Tensor b = input.clone().requires_grad_(true);
  const torch::Tensor fused = MaxPool2Relu(a);
  const torch::Tensor reference = torch::nn::functional::max_pool2d(
      torch::relu(b), torch::nn::functional::MaxPool2dFuncOptions(2));
  ASSERT_EQ(fused.sizes(), reference.sizes());
  EXPECT_TRUE(torch::equal(fused, reference));
  (fused * upstream).sum().backward();
  (reference * upstream).sum().backward();
  EXPECT_TRUE(torch::equal(a.grad(), b.grad()));
  EXPECT_GT(a.grad().abs().sum().item<double>(), 0.0);
  EXPECT_EQ(a.grad()[1][1].abs().sum().item<double>(), 0.0);
  // Ties: all of a window's gradient reaches its first (top-left) element.
  EXPECT_EQ(a.grad()[0][0][0][0].item<float>(), upstream[0][0][0][0].item<float>());
  EXPECT_EQ(a.grad()[0][0][0][1].item<float>(), 0.0f);
  EXPECT_THROW(MaxPool2Relu(torch::zeros({2, 3})), std::invalid_argument);
}

// Training the stacks on two threads gives every client exactly what one thread gives (each
// client's arithmetic does not depend on its stack or thread).
TEST(BatchedTraining, TwoWorkersGiveTheSameUpdatesAsOne) {
  const FederatedData data = MixedPopulation();
  FlModel model("lenet", 28, 28, 10, 3);
  const torch::Tensor global = model.GetWeights();
  LocalTrainOptions options;
  options.local_steps = 4;
  options.batch = 8;
  options.lr = 0.1;
  std::vector<const ClientData*> clients;
  std::vector<uint64_t> seeds;
  AllClients(data, 200, &clients, &seeds);
  const std::vector<LocalUpdate> one =
      TrainLocallyBatched(model, global, data, clients, options, seeds);
  options.workers = 2;
  const std::vector<LocalUpdate> two =
      TrainLocallyBatched(model, global, data, clients, options, seeds);
  ASSERT_EQ(one.size(), two.size());
  for (size_t c = 0; c < one.size(); ++c) {
    SCOPED_TRACE("client " + std::to_string(c));
    EXPECT_EQ(one[c].samples, two[c].samples);
    EXPECT_TRUE(torch::equal(one[c].weights, two[c].weights));
    EXPECT_EQ(one[c].loss, two[c].loss);
  }
  EXPECT_FALSE(torch::equal(two[0].weights, two[1].weights));
}

TEST(BatchedTraining, RefusesUnsupportedModelsAndMismatchedSeeds) {
  EXPECT_TRUE(SupportsBatchedTraining("lenet"));
  EXPECT_TRUE(SupportsBatchedTraining("mlp"));
  EXPECT_FALSE(SupportsBatchedTraining("resnet"));
  const FederatedData data = MixedPopulation();
  FlModel model("resnet", 28, 28, 10, 3);
  const std::vector<const ClientData*> clients = {&data.clients[0]};
  EXPECT_THROW(TrainLocallyBatched(model, model.GetWeights(), data, clients, {}, {1}),
               std::invalid_argument);
  FlModel lenet("lenet", 28, 28, 10, 3);
  EXPECT_THROW(TrainLocallyBatched(lenet, lenet.GetWeights(), data, clients, {}, {}),
               std::invalid_argument);
}

}  // namespace
}  // namespace jigsaw
