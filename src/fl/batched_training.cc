#include "fl/batched_training.h"

#include <map>
#include <stdexcept>

namespace jigsaw {
namespace {

namespace F = torch::nn::functional;

// Clients trained in one stack: enough to amortise the per-operation overhead, small enough that
// a stack's activations (LeNet, batch 20: ~0.4 MB per client for the first convolution) stay
// below glibc's largest mmap threshold (32 MB), so buffers are reused rather than mapped and
// page-faulted afresh on every step.
constexpr size_t kMaxStackedClients = 32;

// x: K x B x in, weight: K x out x in, bias: K x out -> K x B x out.
torch::Tensor StackedLinear(const torch::Tensor& x, const torch::Tensor& weight,
                            const torch::Tensor& bias) {
  return torch::baddbmm(bias.unsqueeze(1), x, weight.transpose(1, 2));
}

// x: B x (K * in_channels) x H x W, weight: K x out x in x kh x kw, bias: K x out.
torch::Tensor StackedConv(const torch::Tensor& x, const torch::Tensor& weight,
                          const torch::Tensor& bias, int64_t padding) {
  const int64_t k = weight.size(0);
  return torch::conv2d(x, weight.flatten(0, 1), bias.flatten(), /*stride=*/1, padding,
                       /*dilation=*/1, /*groups=*/k);
}

// Logits K x B x classes of K stacked models on their own images (K * B x 1 x H x W, client-major).
torch::Tensor StackedForward(const std::string& name, const std::vector<torch::Tensor>& p,
                             const torch::Tensor& images, int64_t k, int64_t b) {
  if (name == "mlp") {
    torch::Tensor x = images.reshape({k, b, -1});
    for (size_t layer = 0; layer + 2 < p.size(); layer += 2) {
      x = torch::relu(StackedLinear(x, p[layer], p[layer + 1]));
    }
    return StackedLinear(x, p[p.size() - 2], p.back());
  }
  // lenet: conv5x5(6, pad 2)+ReLU+pool, conv5x5(16)+ReLU+pool, FC 120, FC 84, FC classes.
  // Channels of client i sit at [i * C, (i + 1) * C) of a B x (K * C) x H x W batch.
  torch::Tensor x = images.reshape({k, b, images.size(2), images.size(3)}).transpose(0, 1);
  x = F::max_pool2d(torch::relu(StackedConv(x, p[0], p[1], 2)), F::MaxPool2dFuncOptions(2));
  x = F::max_pool2d(torch::relu(StackedConv(x, p[2], p[3], 0)), F::MaxPool2dFuncOptions(2));
  x = x.reshape({b, k, -1}).transpose(0, 1);
  x = torch::relu(StackedLinear(x, p[4], p[5]));
  x = torch::relu(StackedLinear(x, p[6], p[7]));
  return StackedLinear(x, p[8], p[9]);
}

// Trains clients (all with batch size `b`) together; fills updates[slot[i]].
void TrainGroup(FlModel& model, const torch::Tensor& global, const FederatedData& data,
                const std::vector<const ClientData*>& clients, const std::vector<uint64_t>& seeds,
                const LocalTrainOptions& options, const std::vector<int>& members,
                std::vector<LocalUpdate>* updates) {
  const int64_t k = static_cast<int64_t>(members.size());
  std::vector<torch::Tensor> params, anchors;
  {
    torch::NoGradGuard no_grad;
    int64_t offset = 0;
    for (const auto& p : model.module()->parameters()) {
      const torch::Tensor g = global.narrow(0, offset, p.numel()).view(p.sizes());
      offset += p.numel();
      std::vector<int64_t> shape = {k};
      shape.insert(shape.end(), p.sizes().begin(), p.sizes().end());
      params.push_back(g.unsqueeze(0).expand(shape).clone().requires_grad_(true));
      anchors.push_back(g.unsqueeze(0));
    }
  }
  std::vector<BatchSampler> samplers;
  for (int i : members) {
    samplers.emplace_back(static_cast<int>(clients[i]->train_index.size()), options.batch,
                          seeds[i]);
  }
  const int64_t b = samplers.front().batch_size();
  torch::Tensor loss_sum = torch::zeros({k});
  std::vector<int> positions, indices, labels;
  for (int step = 0; step < options.local_steps; ++step) {
    indices.clear();
    labels.clear();
    for (int64_t j = 0; j < k; ++j) {
      const ClientData& client = *clients[members[j]];
      samplers[j].Next(&positions);
      for (int s : positions) {
        indices.push_back(client.train_index[s]);
        labels.push_back(client.train_label[s]);
      }
    }
    const torch::Tensor images = PoolImages(data, true, indices);
    const torch::Tensor target = torch::tensor(labels, torch::kInt64);
    const torch::Tensor logits = StackedForward(model.name(), params, images, k, b);
    // Each client's mean cross-entropy; their sum has each client's own gradient.
    const torch::Tensor client_loss =
        F::cross_entropy(logits.reshape({k * b, -1}), target,
                         F::CrossEntropyFuncOptions().reduction(torch::kNone))
            .view({k, b})
            .mean(1);
    client_loss.sum().backward();
    torch::NoGradGuard no_grad;
    loss_sum.add_(client_loss);
    for (size_t q = 0; q < params.size(); ++q) {
      torch::Tensor& p = params[q];
      torch::Tensor grad = p.grad();
      if (options.prox_mu > 0) grad = grad + options.prox_mu * (p - anchors[q]);
      p.sub_(grad, options.lr);
      p.mutable_grad() = torch::Tensor();
    }
  }
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> flat;
  for (const torch::Tensor& p : params) flat.push_back(p.detach().reshape({k, -1}));
  const torch::Tensor weights = torch::cat(flat, 1);
  const torch::Tensor mean_loss = loss_sum / std::max(1, options.local_steps);
  for (int64_t j = 0; j < k; ++j) {
    LocalUpdate& update = (*updates)[members[j]];
    update.weights = weights[j].clone();
    update.loss = mean_loss[j].item<double>();
  }
}

}  // namespace

bool SupportsBatchedTraining(const std::string& model_name) {
  return model_name == "mlp" || model_name == "lenet";
}

std::vector<LocalUpdate> TrainLocallyBatched(FlModel& model, const torch::Tensor& global,
                                             const FederatedData& data,
                                             const std::vector<const ClientData*>& clients,
                                             const LocalTrainOptions& options,
                                             const std::vector<uint64_t>& seeds) {
  if (!SupportsBatchedTraining(model.name())) {
    throw std::invalid_argument("batched local training supports mlp and lenet, not " +
                                model.name());
  }
  if (seeds.size() != clients.size()) {
    throw std::invalid_argument("TrainLocallyBatched: one seed per client expected");
  }
  std::vector<LocalUpdate> updates(clients.size());
  std::map<int, std::vector<int>> by_batch;  // batch size -> positions in `clients`
  for (size_t i = 0; i < clients.size(); ++i) {
    const int n = static_cast<int>(clients[i]->train_index.size());
    updates[i].samples = n;
    if (n == 0) {
      updates[i].weights = global.clone();
    } else {
      by_batch[std::min(options.batch, n)].push_back(static_cast<int>(i));
    }
  }
  for (const auto& [batch, members] : by_batch) {
    for (size_t from = 0; from < members.size(); from += kMaxStackedClients) {
      const std::vector<int> part(
          members.begin() + from,
          members.begin() + std::min(members.size(), from + kMaxStackedClients));
      TrainGroup(model, global, data, clients, seeds, options, part, &updates);
    }
  }
  return updates;
}

}  // namespace jigsaw
