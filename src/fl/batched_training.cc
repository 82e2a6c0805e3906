#include "fl/batched_training.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <map>
#include <stdexcept>
#include <thread>

#include "fl/single_channel_conv.h"

namespace jigsaw {
namespace {

namespace F = torch::nn::functional;

// Clients trained in one stack: enough to amortise the per-operation overhead, small enough that
// a stack's activations (LeNet, batch 20: ~0.4 MB per client for the first convolution) stay
// below glibc's largest mmap threshold (32 MB), so buffers are reused rather than mapped and
// page-faulted afresh on every step.
constexpr size_t kMaxStackedClients = 32;

// x: K x B x in, weight_t: K x in x out (each client's weight transposed), bias: K x out ->
// K x B x out. The stacked weights are kept transposed so that their gradient (x^T times the
// output gradient) is produced contiguous: a transposed gradient made autograd copy it into the
// parameter's layout, the largest copy of a step.
torch::Tensor StackedLinear(const torch::Tensor& x, const torch::Tensor& weight_t,
                            const torch::Tensor& bias) {
  return torch::baddbmm(bias.unsqueeze(1), x, weight_t);
}

// Which parameters of `name` are linear-layer weights (stacked transposed, see StackedLinear).
bool IsLinearWeight(const std::string& name, size_t index) {
  return name == "lenet" ? (index == 4 || index == 6 || index == 8) : index % 2 == 0;
}

// Which parameters of `name` belong to the second convolution: they are trained as one leaf per
// client (see StackedForward), the others as stacked leaves (the first convolution's through
// SingleChannelConvReluPool, which takes and differentiates the stacked weights).
bool IsConvParameter(const std::string& name, size_t index) {
  return name == "lenet" && (index == 2 || index == 3);
}

// Per-client convolutions over a K * B x C x H x W batch (client-major): one plain convolution per
// client with its own weights. oneDNN's direct kernels for these small convolutions are about
// twice as fast as its grouped (groups = clients) convolution, which falls back to a GEMM-based
// implementation. Splitting (rather than narrowing) the input gives one gradient concatenation
// in the backward pass instead of one full-size zero tensor per client.
torch::Tensor PerClientConv(const torch::Tensor& x, const std::vector<torch::Tensor>& weight,
                            const std::vector<torch::Tensor>& bias, int64_t b, int64_t padding) {
  const std::vector<torch::Tensor> parts = x.split(b, 0);
  std::vector<torch::Tensor> out;
  out.reserve(parts.size());
  for (size_t j = 0; j < parts.size(); ++j) {
    out.push_back(
        F::conv2d(parts[j], weight[j], F::Conv2dFuncOptions().bias(bias[j]).padding(padding)));
  }
  return torch::cat(out);
}

// The forward pass computes only the outputs (a loop the compiler vectorises) and keeps its input;
// the backward pass finds each window's maximum position again and writes the output's gradient
// there, for the windows ReLU did not clamp.
class MaxPool2ReluFunction : public torch::autograd::Function<MaxPool2ReluFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& input) {
    const torch::Tensor x = input.contiguous();
    const int64_t h = x.size(2), w = x.size(3), oh = h / 2, ow = w / 2;
    const int64_t rows = x.size(0) * x.size(1) * oh;
    torch::Tensor out = torch::empty({x.size(0), x.size(1), oh, ow}, x.options());
    const float* in = x.data_ptr<float>();
    float* o = out.data_ptr<float>();
    for (int64_t row = 0; row < rows; ++row, o += ow) {
      // Output row `row` of plane row / oh reads input rows 2 * (row % oh) and the next.
      const float* top = in + ((row / oh) * h + 2 * (row % oh)) * w;
      const float* bottom = top + w;
      for (int64_t x0 = 0; x0 < ow; ++x0) {
        const float a = top[2 * x0], b = top[2 * x0 + 1], c = bottom[2 * x0],
                    d = bottom[2 * x0 + 1];
        const float ab = b > a ? b : a, cd = d > c ? d : c;
        const float best = cd > ab ? cd : ab;
        // max_pool2d passes a NaN on, and so does ReLU.
        const bool nan = a != a || b != b || c != c || d != d;
        o[x0] = nan ? a + b + c + d : (best > 0 ? best : 0.0f);
      }
    }
    ctx->save_for_backward({x, out});
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const torch::autograd::variable_list saved = ctx->get_saved_variables();
    const torch::Tensor& x = saved[0];
    const torch::Tensor& out = saved[1];
    const torch::Tensor grad = grad_outputs[0].contiguous();
    const int64_t h = x.size(2), w = x.size(3), oh = h / 2, ow = w / 2;
    const int64_t rows = x.size(0) * x.size(1) * oh;
    torch::Tensor grad_in = torch::zeros_like(x);
    const float* in = x.data_ptr<float>();
    const float* o = out.data_ptr<float>();
    const float* g = grad.data_ptr<float>();
    float* gi = grad_in.data_ptr<float>();
    for (int64_t row = 0; row < rows; ++row, o += ow, g += ow) {
      const int64_t offset = ((row / oh) * h + 2 * (row % oh)) * w;
      const float* top = in + offset;
      for (int64_t x0 = 0; x0 < ow; ++x0) {
        // A window clamped by ReLU (or NaN) passes no gradient, as in LeNet's ReLU. Skipping
        // them (about half) costs less than a branch-free loop over all windows.
        if (!(o[x0] > 0)) continue;
        // max_pool2d's tie rule: the first maximum in row-major order.
        const int64_t cells[4] = {2 * x0, 2 * x0 + 1, w + 2 * x0, w + 2 * x0 + 1};
        int64_t at = cells[0];
        for (int t = 1; t < 4; ++t) {
          if (top[cells[t]] > top[at]) at = cells[t];
        }
        gi[offset + at] = g[x0];
      }
    }
    return {grad_in};
  }
};

}  // namespace

torch::Tensor MaxPool2Relu(const torch::Tensor& input) {
  if (input.dim() != 4 || input.scalar_type() != torch::kFloat32 || !input.device().is_cpu()) {
    throw std::invalid_argument("MaxPool2Relu: expected a 4-d float CPU tensor");
  }
  return MaxPool2ReluFunction::apply(input);
}

namespace {

// Logits K x B x classes of K stacked models on their own images (K * B x 1 x H x W, client-major).
// p: the stacked parameters (K x shape); conv[q][j]: client j's leaf of the second convolution's
// parameter q (lenet).
torch::Tensor StackedForward(const std::string& name, const std::vector<torch::Tensor>& p,
                             const std::vector<std::vector<torch::Tensor>>& conv,
                             const torch::Tensor& images, int64_t k, int64_t b) {
  if (name == "mlp") {
    torch::Tensor x = images.reshape({k, b, -1});
    for (size_t layer = 0; layer + 2 < p.size(); layer += 2) {
      x = torch::relu(StackedLinear(x, p[layer], p[layer + 1]));
    }
    return StackedLinear(x, p[p.size() - 2], p.back());
  }
  // lenet: conv5x5(6, pad 2)+ReLU+pool, conv5x5(16)+ReLU+pool, FC 120, FC 84, FC classes.
  torch::Tensor x = SingleChannelConvReluPool(images, p[0], p[1], 2);
  x = MaxPool2Relu(PerClientConv(x, conv[2], conv[3], b, 0)).view({k, b, -1});
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
      torch::Tensor g = global.narrow(0, offset, p.numel()).view(p.sizes());
      if (IsLinearWeight(model.name(), params.size())) g = g.t();
      offset += p.numel();
      std::vector<int64_t> shape = {k};
      shape.insert(shape.end(), g.sizes().begin(), g.sizes().end());
      params.push_back(g.unsqueeze(0).expand(shape).clone(torch::MemoryFormat::Contiguous));
      anchors.push_back(g.unsqueeze(0));
    }
  }
  // Second-convolution parameters: one leaf per client, a view of its row of the stacked tensor
  // (the SGD update below writes the stacked tensor); the others: the stacked tensor is the leaf.
  std::vector<std::vector<torch::Tensor>> conv;  // [parameter][client]
  for (size_t q = 0; q < params.size(); ++q) {
    if (!IsConvParameter(model.name(), q)) {
      params[q].requires_grad_(true);
      continue;
    }
    conv.resize(q + 1);
    for (int64_t j = 0; j < k; ++j) conv[q].push_back(params[q][j].detach().requires_grad_(true));
  }
  std::vector<BatchSampler> samplers;
  for (int i : members) {
    samplers.emplace_back(static_cast<int>(clients[i]->train_index.size()), options.batch,
                          seeds[i]);
  }
  const int64_t b = samplers.front().batch_size();
  std::vector<torch::Tensor> velocity;
  if (options.momentum > 0) {
    for (const torch::Tensor& p : params) velocity.push_back(torch::zeros_like(p.detach()));
  }
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
    const torch::Tensor logits = StackedForward(model.name(), params, conv, images, k, b);
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
      torch::Tensor grad;
      if (q < conv.size() && !conv[q].empty()) {
        std::vector<torch::Tensor> grads;
        for (torch::Tensor& leaf : conv[q]) {
          grads.push_back(leaf.grad());
          leaf.mutable_grad() = torch::Tensor();
        }
        grad = torch::stack(grads);
      } else {
        grad = p.grad();
        p.mutable_grad() = torch::Tensor();
      }
      if (options.prox_mu > 0) grad = grad + options.prox_mu * (p - anchors[q]);
      if (options.weight_decay > 0) grad = grad + options.weight_decay * p;
      if (options.momentum > 0) grad = velocity[q].mul_(options.momentum).add_(grad);
      p.sub_(grad, options.lr);
    }
  }
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> flat;
  for (size_t q = 0; q < params.size(); ++q) {
    const torch::Tensor p = params[q].detach();
    flat.push_back((IsLinearWeight(model.name(), q) ? p.transpose(1, 2) : p).reshape({k, -1}));
  }
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
  // Stacks of at most kMaxStackedClients clients of equal batch size, split evenly (and into a
  // multiple of `workers` stacks where there are enough clients, so that workers finish together).
  // A client's result does not depend on which stack it is in.
  const size_t workers = static_cast<size_t>(std::max(1, options.workers));
  std::vector<std::vector<int>> stacks;
  for (const auto& [batch, members] : by_batch) {
    size_t parts = (members.size() + kMaxStackedClients - 1) / kMaxStackedClients;
    if (members.size() >= workers) parts = (parts + workers - 1) / workers * workers;
    const size_t size = (members.size() + parts - 1) / parts;
    for (size_t from = 0; from < members.size(); from += size) {
      stacks.emplace_back(members.begin() + from,
                          members.begin() + std::min(members.size(), from + size));
    }
  }
  const auto train = [&](size_t s) {
    TrainGroup(model, global, data, clients, seeds, options, stacks[s], &updates);
  };
  if (workers == 1 || stacks.size() == 1) {
    for (size_t s = 0; s < stacks.size(); ++s) train(s);
    return updates;
  }
  // Stacks train on `workers` threads (each writes only its own clients' updates); LibTorch's
  // operators and autograd are thread-safe, and each thread's graph is its own.
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(workers);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < std::min(workers, stacks.size()); ++t) {
    threads.emplace_back([&, t] {
      try {
        for (size_t s = next++; s < stacks.size(); s = next++) train(s);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return updates;
}

}  // namespace jigsaw
