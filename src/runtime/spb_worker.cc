#include "runtime/spb_worker.h"

#include <malloc.h>

#include <algorithm>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

namespace jigsaw {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<torch::Tensor> BlocksParameters(BlockModel& model, const std::vector<int>& blocks) {
  std::vector<torch::Tensor> parameters;
  for (int b : blocks) {
    for (const torch::Tensor& p : model->block(b)->parameters()) parameters.push_back(p);
  }
  return parameters;
}

int64_t TotalElements(const std::vector<torch::Tensor>& tensors) {
  int64_t total = 0;
  for (const torch::Tensor& t : tensors) total += t.numel();
  return total;
}

torch::Tensor FlattenGradients(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> flat;
  for (const torch::Tensor& p : parameters) flat.push_back(p.grad().reshape({-1}));
  return torch::cat(flat);
}

void UnflattenIntoGradients(const torch::Tensor& flat,
                            const std::vector<torch::Tensor>& parameters) {
  int64_t offset = 0;
  for (torch::Tensor p : parameters) {
    torch::Tensor slice = flat.narrow(0, offset, p.numel()).view_as(p);
    if (p.grad().defined()) {
      p.mutable_grad().copy_(slice);
    } else {
      p.mutable_grad() = slice.clone();
    }
    offset += p.numel();
  }
}

double HeapBytesInUse() {
  struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd);
}

// Batch norm in training mode normalises with the batch's statistics, so its output depends on
// how the batch is split.
bool HasBatchNorm(BlockModel& model, int blocks) {
  for (int b = 0; b < blocks; ++b) {
    for (const auto& module : model->block(b)->modules(/*include_self=*/false)) {
      if (module->name().find("BatchNorm") != std::string::npos) return true;
    }
  }
  return false;
}

// Blocks [0, first) without autograd, `chunk` samples at a time (the whole batch when chunk <= 0,
// or when a block has batch norm); only the output of the prefix is kept for the whole batch.
torch::Tensor FrozenPrefixForward(BlockModel& model, const torch::Tensor& input, int first,
                                  int chunk) {
  torch::NoGradGuard no_grad;
  const int64_t n = input.size(0);
  if (first == 0) return input;
  if (chunk <= 0 || chunk >= n || HasBatchNorm(model, first)) {
    torch::Tensor x = input;
    for (int b = 0; b < first; ++b) x = model->block(b)->forward(x);
    return x;
  }
  torch::Tensor output;
  for (int64_t start = 0; start < n; start += chunk) {
    const int64_t size = std::min<int64_t>(chunk, n - start);
    torch::Tensor x = input.narrow(0, start, size);
    for (int b = 0; b < first; ++b) x = model->block(b)->forward(x);
    if (!output.defined()) {
      std::vector<int64_t> shape = x.sizes().vec();
      shape[0] = n;
      output = torch::empty(shape, x.options());
    }
    output.narrow(0, start, size).copy_(x);
  }
  return output;
}

int IndexIn(const std::vector<int>& members, int rank) {
  return static_cast<int>(std::lower_bound(members.begin(), members.end(), rank) - members.begin());
}

}  // namespace

GlooGroups::GlooGroups(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                       const std::vector<std::vector<int>>& groups, const std::string& host,
                       std::chrono::milliseconds timeout, const std::string& name)
    : rank_(rank) {
  for (const std::vector<int>& members : groups) {
    if (!std::binary_search(members.begin(), members.end(), rank)) continue;
    auto options = c10d::ProcessGroupGloo::Options::create(timeout);
    options->devices.push_back(host.empty()
                                   ? c10d::ProcessGroupGloo::createDefaultDevice()
                                   : c10d::ProcessGroupGloo::createDeviceForHostname(host));
    options->threads = 1;
    auto prefixed =
        c10::make_intrusive<c10d::PrefixStore>(name + "-" + DescribeGroup(members), store);
    groups_[members] = c10::make_intrusive<c10d::ProcessGroupGloo>(
        prefixed, IndexIn(members, rank), static_cast<int>(members.size()), options);
  }
}

c10d::ProcessGroupGloo* GlooGroups::Find(const std::vector<int>& members) {
  auto it = groups_.find(members);
  return it == groups_.end() ? nullptr : it->second.get();
}

c10d::ProcessGroupGloo& GlooGroups::Get(const std::vector<int>& members) {
  auto it = groups_.find(members);
  TORCH_CHECK(it != groups_.end(), "worker ", rank_, " is not in group ", DescribeGroup(members));
  return *it->second;
}

void ClearGradients(BlockModel& model) {
  for (torch::Tensor& p : model->parameters()) p.mutable_grad().reset();
}

torch::Tensor SpbForward(BlockModel& model, const torch::Tensor& input, int depth) {
  const int frozen = model->num_blocks() - depth;
  torch::Tensor x = input;
  {
    torch::NoGradGuard no_grad;
    for (int b = 0; b < frozen; ++b) x = model->block(b)->forward(x);
  }
  for (int b = frozen; b < model->num_blocks(); ++b) x = model->block(b)->forward(x);
  return x;
}

SpbStepResult RunSpbStep(BlockModel& model, const torch::Tensor& input, const torch::Tensor& labels,
                         int depth, const BlockDoneCallback& on_block_done, int frozen_chunk) {
  SpbStepResult result;
  const int blocks = model->num_blocks();
  const int first = blocks - depth;
  const double heap_before = HeapBytesInUse();
  Clock::time_point start = Clock::now();
  std::vector<torch::Tensor> inputs(blocks);
  std::vector<torch::Tensor> outputs(blocks);
  torch::Tensor x = FrozenPrefixForward(model, input, first, frozen_chunk);
  for (int b = first; b < blocks; ++b) {
    if (b > first) x = x.detach().requires_grad_(true);
    inputs[b] = x;
    x = model->block(b)->forward(x);
    outputs[b] = x;
  }
  torch::Tensor loss = torch::nn::functional::cross_entropy(x, labels);
  x = torch::Tensor();
  result.forward_s = SecondsSince(start);
  result.retained_bytes = std::max(0.0, HeapBytesInUse() - heap_before);
  result.loss = loss.item<double>();
  torch::Tensor upstream;
  for (int b = blocks - 1; b >= first; --b) {
    start = Clock::now();
    if (b == blocks - 1) {
      loss.backward();
      loss = torch::Tensor();
    } else {
      outputs[b].backward(upstream);
    }
    upstream = b > first ? inputs[b].grad() : torch::Tensor();
    inputs[b] = torch::Tensor();
    outputs[b] = torch::Tensor();
    result.backward_s += SecondsSince(start);
    if (on_block_done) on_block_done(b);
  }
  return result;
}

SpbStepResult ComputeSpbGradients(BlockModel& model, const torch::Tensor& input,
                                  const torch::Tensor& labels, int depth) {
  ClearGradients(model);
  return RunSpbStep(model, input, labels, depth, nullptr);
}

double ExchangeGradients(BlockModel& model, const std::vector<Collective>& collectives,
                         GlooGroups& groups) {
  const int rank = groups.rank();
  double bytes_sent = 0;
  for (const Collective& c : collectives) {
    if (!std::binary_search(c.members.begin(), c.members.end(), rank)) continue;
    std::vector<torch::Tensor> parameters = BlocksParameters(model, c.blocks);
    const int64_t elements = TotalElements(parameters);
    std::vector<torch::Tensor> buffer;
    if (c.kind == Collective::Kind::kAllreduce) {
      buffer.push_back(FlattenGradients(parameters));
      groups.Get(c.members).allreduce(buffer)->wait();
      buffer[0].div_(static_cast<double>(c.members.size()));
    } else {
      buffer.push_back(rank == c.root ? FlattenGradients(parameters)
                                      : torch::empty({elements}, torch::kFloat32));
      c10d::BroadcastOptions options;
      options.rootRank = IndexIn(c.members, c.root);
      groups.Get(c.members).broadcast(buffer, options)->wait();
    }
    if (!(c.kind == Collective::Kind::kBroadcast && rank == c.root)) {
      UnflattenIntoGradients(buffer[0], parameters);
    }
    bytes_sent += EstimatedBytesSent(c, rank, static_cast<double>(elements) * sizeof(float));
  }
  return bytes_sent;
}

torch::Tensor NormalizeImages(const ImageSet& set, const std::vector<uint8_t>& pixels, int64_t n) {
  torch::Tensor bytes = torch::from_blob(const_cast<uint8_t*>(pixels.data()),
                                         {n, set.channels, set.height, set.width}, torch::kUInt8);
  torch::Tensor x = bytes.to(torch::kFloat32).div_(255.0);
  if (set.channel_mean.empty()) return x.sub_(0.286).div_(0.353);  // Fashion-MNIST's
  torch::Tensor mean = torch::tensor(set.channel_mean, torch::kFloat64).to(torch::kFloat32);
  torch::Tensor std = torch::tensor(set.channel_std, torch::kFloat64).to(torch::kFloat32);
  return x.sub_(mean.view({1, -1, 1, 1})).div_(std.view({1, -1, 1, 1}));
}

torch::Tensor BatchImages(const ImageSet& set, const std::vector<int64_t>& indices) {
  const int64_t sample = int64_t{set.channels} * set.height * set.width;
  std::vector<uint8_t> pixels(indices.size() * sample);
  for (size_t i = 0; i < indices.size(); ++i) {
    std::copy_n(set.pixels.data() + indices[i] * sample, sample, pixels.data() + i * sample);
  }
  return NormalizeImages(set, pixels, static_cast<int64_t>(indices.size()));
}

torch::Tensor BatchLabels(const ImageSet& set, const std::vector<int64_t>& indices) {
  torch::Tensor labels = torch::empty({static_cast<int64_t>(indices.size())}, torch::kInt64);
  int64_t* out = labels.data_ptr<int64_t>();
  for (size_t i = 0; i < indices.size(); ++i) out[i] = set.labels[indices[i]];
  return labels;
}

std::vector<int64_t> BlockParameterBytes(BlockModel& model) {
  std::vector<int64_t> bytes;
  for (int b = 0; b < model->num_blocks(); ++b) {
    bytes.push_back(TotalElements(model->block(b)->parameters()) *
                    static_cast<int64_t>(sizeof(float)));
  }
  return bytes;
}

}  // namespace jigsaw
