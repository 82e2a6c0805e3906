#include "ps/worker.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/limits.h"
#include "core/output.h"
#include "ps/client.h"
#include "ps/server.h"
#include "runtime/image_data.h"
#include "runtime/models.h"
#include "runtime/spb_worker.h"

namespace jigsaw::ps {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<float> FlattenParameters(BlockModel& model) {
  std::vector<float> flat;
  for (const auto& p : model->parameters()) {
    torch::Tensor t = p.detach().contiguous();
    flat.insert(flat.end(), t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
  }
  return flat;
}

std::vector<float> FlattenGradients(BlockModel& model) {
  std::vector<float> flat;
  for (const auto& p : model->parameters()) {
    if (p.grad().defined()) {
      torch::Tensor g = p.grad().contiguous();
      flat.insert(flat.end(), g.data_ptr<float>(), g.data_ptr<float>() + g.numel());
    } else {
      flat.insert(flat.end(), static_cast<size_t>(p.numel()), 0.0f);
    }
  }
  return flat;
}

void LoadParameters(BlockModel& model, const std::vector<float>& flat) {
  torch::NoGradGuard no_grad;
  size_t offset = 0;
  for (auto& p : model->parameters()) {
    const auto n = static_cast<size_t>(p.numel());
    if (offset + n > flat.size()) throw std::runtime_error("pulled parameters are too short");
    p.copy_(torch::from_blob(const_cast<float*>(flat.data() + offset), p.sizes(), torch::kFloat32));
    offset += n;
  }
  if (offset != flat.size()) throw std::runtime_error("pulled parameters are too long");
}

double MeanOf(const std::vector<double>& values, size_t begin, size_t end) {
  double sum = 0;
  for (size_t i = begin; i < end; ++i) sum += values[i];
  return end > begin ? sum / static_cast<double>(end - begin) : 0;
}

}  // namespace

PsWorkerResult RunPsWorker(const PsWorkerOptions& options) {
  return RunPsWorker(options, [&options]() -> std::unique_ptr<ParameterClient> {
    std::string host;
    int port = 0;
    wire::ParseHostPort(options.server, "--server", &host, &port);
    return std::make_unique<PsClient>(host, port, options.rank, options.workers, options.timeout_s,
                                      wire::ResolveToken(options.token, options.token_file, false));
  });
}

PsWorkerResult RunPsWorker(const PsWorkerOptions& options, const ParameterClientFactory& connect) {
  if (options.rank < 0 || options.rank >= options.workers) {
    throw UsageError("--rank " + std::to_string(options.rank) + " must be in [0, --workers)");
  }
  RequireCountInRange("--workers", options.workers, 1, kMaxPsWorkers);
  RequireCountInRange("--iters", options.iterations, 1, kMaxPsIterations);
  RequireCountInRange("--batch", options.batch, 1, kMaxBatchSize);
  RequireCountInRange("--threads", options.threads, 1, 1024);
  RequireCountInRange("--synthetic-size", options.synthetic_size, 1, 4096);
  RequireCountInRange("--synthetic-train", options.synthetic_train, 1, 10'000'000);
  RequireCountInRange("--synthetic-test", options.synthetic_test, 1, 10'000'000);
  RequireOptionInRange("--timeout-s", options.timeout_s, 1e-3, 1e6);
  RequireOptionInRange("--start-at", options.start_at_wall_s, 0, kMaxWallClockS);
  torch::set_num_threads(options.threads);
  torch::manual_seed(options.seed);

  const ImageSet train = MakeSyntheticImageSet(options.synthetic_train, options.synthetic_size, 10,
                                               7 + options.seed, 1);
  BlockModel model = MakeModel(options.model, train.channels, train.height, train.width, 10);
  const double wait_s = options.start_at_wall_s - WallSeconds();
  if (options.start_at_wall_s > 0 && wait_s > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(wait_s));
  }
  std::unique_ptr<ParameterClient> connected = connect();
  ParameterClient& client = *connected;
  if (options.rank == 0) client.Init(FlattenParameters(model));
  LoadParameters(model, client.Pull(0));

  std::ostringstream csv;
  csv << "job,rank,iteration,start_wall_s,compute_s,push_s,pull_s,end_wall_s,loss\n";
  std::vector<double> losses;
  std::vector<int64_t> indices(static_cast<size_t>(options.batch));
  for (int t = 0; t < options.iterations; ++t) {
    const double start_wall = WallSeconds();
    const auto start = Clock::now();
    for (int i = 0; i < options.batch; ++i) {
      const int64_t global = (int64_t{t} * options.workers + options.rank) * options.batch + i;
      indices[static_cast<size_t>(i)] = global % train.count;
    }
    model->zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(
        model->forward(BatchImages(train, indices)), BatchLabels(train, indices));
    loss.backward();
    std::vector<float> gradient = FlattenGradients(model);
    if (t == options.poison_at_iter && !gradient.empty()) gradient[0] = std::nanf("");
    const double compute_s = Since(start);
    const auto push_start = Clock::now();
    client.Push(static_cast<uint64_t>(t), gradient);
    const double push_s = Since(push_start);
    const auto pull_start = Clock::now();
    try {
      LoadParameters(model, client.Pull(static_cast<uint64_t>(t) + 1));
    } catch (const JobRolledBack& e) {
      // The service restored the job from a snapshot: compute those iterations again.
      if (!options.quiet) {
        std::fprintf(stderr, "jigsaw: ps-worker %s/%d: %s; replaying from iteration %llu\n",
                     options.job.c_str(), options.rank, e.what(),
                     static_cast<unsigned long long>(e.version()));
      }
      LoadParameters(model, client.Pull(e.version()));
      t = static_cast<int>(e.version()) - 1;
      continue;
    }
    const double pull_s = Since(pull_start);
    const double end_wall = WallSeconds();
    losses.push_back(loss.item<double>());
    csv << options.job << ',' << options.rank << ',' << t << ',' << FormatFixed(start_wall, 6)
        << ',' << FormatFixed(compute_s, 6) << ',' << FormatFixed(push_s, 6) << ','
        << FormatFixed(pull_s, 6) << ',' << FormatFixed(end_wall, 6) << ','
        << FormatFixed(losses.back(), 5) << '\n';
    if (!options.quiet && (t + 1) % 50 == 0) {
      std::fprintf(stderr, "jigsaw: ps-worker %s/%d: iteration %d loss %.4f\n", options.job.c_str(),
                   options.rank, t + 1, losses.back());
    }
  }
  client.Bye();
  if (!options.out.empty()) WriteFileAtomically(options.out, csv.str());

  PsWorkerResult result;
  result.parameters = FlattenParameters(model).size();
  const size_t tenth = std::max<size_t>(1, losses.size() / 10);
  result.first_loss = MeanOf(losses, 0, tenth);
  result.last_loss = MeanOf(losses, losses.size() - tenth, losses.size());
  if (options.rank == 0) {
    torch::NoGradGuard no_grad;
    const ImageSet test = MakeSyntheticImageSet(options.synthetic_test, options.synthetic_size, 10,
                                                7 + options.seed, 2);
    std::vector<int64_t> all(static_cast<size_t>(test.count));
    for (int i = 0; i < test.count; ++i) all[static_cast<size_t>(i)] = i;
    torch::Tensor predicted = model->forward(BatchImages(test, all)).argmax(1);
    result.test_accuracy =
        predicted.eq(BatchLabels(test, all)).sum().item<double>() / static_cast<double>(test.count);
  }
  return result;
}

}  // namespace jigsaw::ps
