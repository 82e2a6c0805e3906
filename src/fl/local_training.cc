#include "fl/local_training.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/rng.h"

namespace jigsaw {

FlModel::FlModel(const std::string& name, int height, int width, int classes, uint64_t seed)
    : name_(name) {
  torch::manual_seed(seed);
  model_ = MakeModel(name, 1, height, width, classes);
  for (const auto& p : model_->parameters()) num_weights_ += p.numel();
}

double LearningRateOfRound(const LocalTrainOptions& options, int round) {
  const int every = std::max(1, options.lr_decay_rounds);
  const int decays = std::max(0, round - 1) / every;
  if (decays == 0 || options.lr_decay == 1.0) return options.lr;
  return std::max(options.lr * std::pow(options.lr_decay, decays), options.min_lr);
}

LocalTrainOptions RoundTrainOptions(const LocalTrainOptions& options, int round) {
  LocalTrainOptions result = options;
  result.lr = LearningRateOfRound(options, round);
  return result;
}

torch::Tensor FlModel::GetWeights() {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> parts;
  for (const auto& p : model_->parameters()) parts.push_back(p.detach().reshape({-1}));
  return torch::cat(parts).clone();
}

void FlModel::SetWeights(const torch::Tensor& flat) {
  if (flat.dim() != 1 || flat.numel() != num_weights_) {
    throw std::invalid_argument("FlModel::SetWeights: expected " + std::to_string(num_weights_) +
                                " weights, got " + std::to_string(flat.numel()));
  }
  torch::NoGradGuard no_grad;
  int64_t offset = 0;
  for (auto& p : model_->parameters()) {
    const int64_t n = p.numel();
    p.copy_(flat.narrow(0, offset, n).view_as(p));
    offset += n;
  }
}

torch::Tensor PoolImages(const FederatedData& data, bool train, const std::vector<int>& indices) {
  const std::vector<uint8_t>& pool = train ? data.train_pixels : data.test_pixels;
  const int size = data.image_size();
  auto images = torch::empty({static_cast<int64_t>(indices.size()), 1, data.height, data.width},
                             torch::kUInt8);
  uint8_t* out = images.data_ptr<uint8_t>();
  for (size_t i = 0; i < indices.size(); ++i) {
    std::copy_n(pool.data() + static_cast<size_t>(indices[i]) * size, size, out + i * size);
  }
  return images.to(torch::kFloat32).div_(127.5).sub_(1.0);
}

BatchSampler::BatchSampler(int n, int batch, uint64_t seed)
    : rng_(seed), order_(n), next_(order_.size()), batch_size_(std::min(batch, n)) {
  std::iota(order_.begin(), order_.end(), 0);
}

void BatchSampler::Next(std::vector<int>* positions) {
  positions->clear();
  for (int b = 0; b < batch_size_; ++b) {
    if (next_ >= order_.size()) {
      for (size_t i = order_.size(); i > 1; --i)
        std::swap(order_[i - 1], order_[rng_.UniformInt(i)]);
      next_ = 0;
    }
    positions->push_back(order_[next_++]);
  }
}

LocalUpdate TrainLocally(FlModel& model, const torch::Tensor& global, const FederatedData& data,
                         const ClientData& client, const LocalTrainOptions& options,
                         uint64_t seed) {
  model.SetWeights(global);
  model.module()->train();
  const int n = static_cast<int>(client.train_index.size());
  LocalUpdate update;
  update.samples = n;
  if (n == 0) {
    update.weights = global.clone();
    return update;
  }
  BatchSampler sampler(n, options.batch, seed);
  std::vector<torch::Tensor> anchor;
  if (options.prox_mu > 0) {
    for (const auto& p : model.module()->parameters()) anchor.push_back(p.detach().clone());
  }
  std::vector<torch::Tensor> velocity;
  if (options.momentum > 0) {
    for (const auto& p : model.module()->parameters()) velocity.push_back(torch::zeros_like(p));
  }
  double loss_sum = 0.0;
  std::vector<int> positions;
  for (int step = 0; step < options.local_steps; ++step) {
    sampler.Next(&positions);
    std::vector<int> indices, labels;
    for (int s : positions) {
      indices.push_back(client.train_index[s]);
      labels.push_back(client.train_label[s]);
    }
    const torch::Tensor images = PoolImages(data, true, indices);
    const torch::Tensor target = torch::tensor(labels, torch::kInt64);
    model.module()->zero_grad();
    const torch::Tensor loss =
        torch::nn::functional::cross_entropy(model.module()->forward(images), target);
    loss.backward();
    loss_sum += loss.item<double>();
    torch::NoGradGuard no_grad;
    size_t k = 0;
    for (auto& p : model.module()->parameters()) {
      torch::Tensor grad = p.grad();
      if (options.prox_mu > 0) grad = grad + options.prox_mu * (p - anchor[k]);
      if (options.weight_decay > 0) grad = grad + options.weight_decay * p;
      if (options.momentum > 0) grad = velocity[k].mul_(options.momentum).add_(grad);
      p.sub_(grad, options.lr);
      ++k;
    }
  }
  update.loss = loss_sum / std::max(1, options.local_steps);
  update.weights = model.GetWeights();
  return update;
}

int CountCorrect(FlModel& model, const torch::Tensor& weights, const FederatedData& data,
                 const ClientData& client) {
  if (client.test_index.empty()) return 0;
  model.SetWeights(weights);
  model.module()->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor logits = model.module()->forward(PoolImages(data, false, client.test_index));
  const torch::Tensor predicted = logits.argmax(1);
  const torch::Tensor target = torch::tensor(client.test_label, torch::kInt64);
  return static_cast<int>(predicted.eq(target).sum().item<int64_t>());
}

torch::Tensor FedAvg(const std::vector<LocalUpdate>& updates) {
  if (updates.empty()) throw std::invalid_argument("FedAvg of no updates");
  double total = 0.0;
  for (const LocalUpdate& u : updates) total += u.samples;
  torch::Tensor sum = torch::zeros_like(updates.front().weights);
  for (const LocalUpdate& u : updates) {
    const double weight = total > 0 ? u.samples / total : 1.0 / updates.size();
    sum.add_(u.weights, weight);
  }
  return sum;
}

std::vector<float> SignatureOf(const torch::Tensor& global, const torch::Tensor& local) {
  const int64_t n = global.numel();
  const int64_t keep = std::max<int64_t>(1, n / 10);
  const torch::Tensor tail =
      (global.narrow(0, n - keep, keep) - local.narrow(0, n - keep, keep)).contiguous();
  const float* p = tail.data_ptr<float>();
  return std::vector<float>(p, p + keep);
}

}  // namespace jigsaw
