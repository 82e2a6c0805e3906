// Local training of many clients at once: the round's clients start from the same global model,
// so their weights are stacked (one leading "client" dimension per parameter) and trained together,
// paying LibTorch's per-operation overhead once per step for all of them instead of once per
// client. Linear layers become batched matrix products (baddbmm, weights stacked transposed);
// LeNet's first convolution + ReLU + pooling is SingleChannelConvReluPool (single_channel_conv.h)
// over all clients; the second convolution stays one plain convolution per client (oneDNN's
// direct kernels beat its grouped convolution here), with the pooling, activations, loss and one
// SGD update covering every client.
//
// TrainLocallyBatched(model, global, data, clients, options, seeds) returns, for each client
// (same order), what TrainLocally(model, global, data, *clients[i], options, seeds[i]) returns:
// the same batches are drawn from the same seeded shuffles, the same loss (mean cross-entropy,
// plus the FedProx term) is minimised with the same SGD steps (momentum, weight decay), so the
// weights agree up to float rounding (summation order in the batched kernels). Clients are grouped
// by their batch size min(batch, samples); a client with no samples returns `global`. Supports the
// mlp and lenet models (SupportsBatchedTraining); `model` only supplies the architecture and is
// left with unspecified weights.
#ifndef JIGSAW_FL_BATCHED_TRAINING_H_
#define JIGSAW_FL_BATCHED_TRAINING_H_

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fl/federated_data.h"
#include "fl/local_training.h"

namespace jigsaw {

bool SupportsBatchedTraining(const std::string& model_name);

// relu(max_pool2d(input, 2)) of an N x C x H x W float CPU tensor, computed in one pass (LibTorch
// 1.13's max_pool2d on contiguous N x C x H x W input was the most expensive operation of a batched
// LeNet step). Values and gradients equal max_pool2d(relu(input), 2) - LeNet's order - exactly:
// the same window order and tie rule (first maximum), and a window whose maximum is <= 0 passes no
// gradient either way.
torch::Tensor MaxPool2Relu(const torch::Tensor& input);

std::vector<LocalUpdate> TrainLocallyBatched(FlModel& model, const torch::Tensor& global,
                                             const FederatedData& data,
                                             const std::vector<const ClientData*>& clients,
                                             const LocalTrainOptions& options,
                                             const std::vector<uint64_t>& seeds);

}  // namespace jigsaw

#endif  // JIGSAW_FL_BATCHED_TRAINING_H_
