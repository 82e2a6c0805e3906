// LibTorch side of federated learning: a client's local training and evaluation on a model held
// as one flat weight vector, and FedAvg. Shared by the simulation and the real client processes.
//
// FlModel wraps a runtime model (MakeModel: mlp, lenet, resnet) on a single-channel image; weights
// travel as a 1-D float tensor in parameter order. TrainLocally starts from `global`, runs
// local_steps SGD steps on batches of `batch` samples drawn without replacement from the client's
// training set (reshuffled when exhausted; seeded), minimising cross-entropy, plus
// (prox_mu / 2) * ||w - global||^2 for FedProx, and returns the new weights. Each step is
// PyTorch's SGD (dampening 0, not Nesterov): d = grad + weight_decay * w, v = momentum * v + d
// (v starts at 0 in every round: the client's optimizer is new each round, as in FedScale's
// torch_client), w -= lr * v. Pixels are scaled to [-1, 1]. FedAvg is the sample-weighted mean of
// the clients' weights. The round's lr comes from RoundTrainOptions (the reference's step decay).
#ifndef JIGSAW_FL_LOCAL_TRAINING_H_
#define JIGSAW_FL_LOCAL_TRAINING_H_

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "fl/federated_data.h"
#include "runtime/models.h"

namespace jigsaw {

struct LocalTrainOptions {
  int local_steps = 10;
  int batch = 20;
  double lr = 0.05;
  double prox_mu = 0.0;  // > 0: FedProx
  double momentum = 0.0;
  double weight_decay = 0.0;
  // Step decay of lr over rounds (FedScale's decay_factor / decay_round / min_learning_rate):
  // rounds 1..every use lr, the next `every` rounds lr * decay, and so on, never below min_lr
  // once decayed. decay 1: constant lr.
  double lr_decay = 1.0;
  int lr_decay_rounds = 10;
  double min_lr = 5e-5;
  int workers = 1;  // threads training stacks of clients in parallel (batched training)
};

// The learning rate of round `round` (1-based): lr * lr_decay^k with k = (round - 1) /
// lr_decay_rounds, and max(that, min_lr) when k > 0.
double LearningRateOfRound(const LocalTrainOptions& options, int round);

// `options` with lr = LearningRateOfRound(options, round) (what a client trains with in `round`).
LocalTrainOptions RoundTrainOptions(const LocalTrainOptions& options, int round);

class FlModel {
 public:
  FlModel(const std::string& name, int height, int width, int classes, uint64_t seed);

  const std::string& name() const { return name_; }
  int64_t num_weights() const { return num_weights_; }
  torch::Tensor GetWeights();
  void SetWeights(const torch::Tensor& flat);
  BlockModel& module() { return model_; }

 private:
  std::string name_;
  BlockModel model_{nullptr};
  int64_t num_weights_ = 0;
};

// Images of `indices` from the train or test pool, N x 1 x H x W in [-1, 1].
torch::Tensor PoolImages(const FederatedData& data, bool train, const std::vector<int>& indices);

// The local batches of a client with n > 0 training samples: each call to Next gives min(batch, n)
// positions in [0, n), drawn without replacement from a seeded shuffle that is redrawn whenever
// it is exhausted.
class BatchSampler {
 public:
  BatchSampler(int n, int batch, uint64_t seed);
  int batch_size() const { return batch_size_; }
  void Next(std::vector<int>* positions);

 private:
  Rng rng_;
  std::vector<int> order_;
  size_t next_;
  int batch_size_;
};

struct LocalUpdate {
  torch::Tensor weights;
  int samples = 0;
  double loss = 0.0;  // mean training loss over the local steps
};

LocalUpdate TrainLocally(FlModel& model, const torch::Tensor& global, const FederatedData& data,
                         const ClientData& client, const LocalTrainOptions& options, uint64_t seed);

// Number of the client's test samples the weights classify correctly.
int CountCorrect(FlModel& model, const torch::Tensor& weights, const FederatedData& data,
                 const ClientData& client);

torch::Tensor FedAvg(const std::vector<LocalUpdate>& updates);

// UpdateSignature (cohort_table.h) of global - local, as floats.
std::vector<float> SignatureOf(const torch::Tensor& global, const torch::Tensor& local);

}  // namespace jigsaw

#endif  // JIGSAW_FL_LOCAL_TRAINING_H_
