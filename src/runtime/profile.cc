// `jigsaw profile`: measured per-block costs of a model, whole training steps at every depth with
// concurrent local worker processes, and the fitted communication model: the inputs of the SPB
// cost model (format in docs/runtime.md).
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <torch/csrc/distributed/c10d/FileStore.hpp>

#include "core/output.h"
#include "core/result_summary.h"
#include "core/stats.h"
#include "runtime/runtime.h"
#include "runtime/spb_worker.h"
#include "runtime/train_data.h"
#include "spb/cost_model.h"

namespace jigsaw {
namespace {

using Clock = std::chrono::steady_clock;

template <typename Work>
double MedianSeconds(int repeats, Work work) {
  for (int i = 0; i < 2; ++i) work();  // warm-up
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    Clock::time_point start = Clock::now();
    work();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  return Percentile(seconds, 50);
}

// The test split: profiles time blocks on real inputs, and it is the smaller split to load.
ImageSet ProfileImages(const DataOptions& data) { return LoadTrainingData(data).test; }

// Payload sizes (bytes of float32 gradients) the communication calibration times.
const std::vector<int64_t> kCommPayloads = {4 << 10, 32 << 10, 256 << 10, 1 << 20};

double Seconds(Clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

// Doubles shared between the processes of RunForked (an anonymous shared mapping).
class SharedDoubles {
 public:
  explicit SharedDoubles(size_t count) : bytes_(count * sizeof(double)) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("profile: mmap failed");
    data_ = static_cast<double*>(p);
  }
  ~SharedDoubles() { munmap(data_, bytes_); }
  double& operator[](size_t i) { return data_[i]; }

 private:
  size_t bytes_;
  double* data_;
};

// Runs body(rank, groups) in `n` processes, as `jigsaw train` runs one process per local worker:
// this one is rank 0, n-1 are forked copies; they rendezvous through a FileStore and share one
// Gloo group over TCP on 127.0.0.1. Throws std::runtime_error if a copy fails.
void RunForked(int n, const std::function<void(int, GlooGroups&)>& body) {
  static int counter = 0;
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("jigsaw_profile_store_" + std::to_string(getpid()) + "_" + std::to_string(counter++)))
          .string();
  std::filesystem::remove(path);
  std::vector<int> everyone(n);
  std::iota(everyone.begin(), everyone.end(), 0);
  auto run = [&](int rank) {
    auto store = c10::make_intrusive<c10d::FileStore>(path, n);
    GlooGroups groups(store, rank, {everyone}, "127.0.0.1", std::chrono::seconds(60));
    body(rank, groups);
  };
  std::vector<pid_t> children;
  for (int k = 1; k < n; ++k) {
    const pid_t pid = fork();
    if (pid == 0) {
      try {
        run(k);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "profile: worker %d: %s\n", k, e.what());
        _exit(1);
      }
      _exit(0);
    }
    if (pid < 0) throw std::runtime_error("profile: fork failed");
    children.push_back(pid);
  }
  run(0);
  bool failed = false;
  for (pid_t pid : children) {
    int status = 0;
    failed |= waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  std::filesystem::remove(path);
  if (failed) throw std::runtime_error("profile: a forked calibration process failed");
}

// One training iteration's compute at `depth` on fresh shuffled samples (round r of rank k).
double TimedStep(BlockModel& model, const ImageSet& images, int batch, int depth, int64_t round,
                 int rank, int workers, SpbStepResult* result) {
  std::vector<int64_t> indices(batch);
  for (int i = 0; i < batch; ++i) {
    indices[i] = ((round * workers + rank) * batch + i) * 7919 % images.count;
  }
  const Clock::time_point start = Clock::now();
  *result =
      ComputeSpbGradients(model, BatchImages(images, indices), BatchLabels(images, indices), depth);
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Mean seconds of `kind` collectives over `members` processes for each payload of kCommPayloads,
// timed as training issues them: a full-depth training step on every rank, then the collective
// (after compute: waking the idle transport threads costs real time on a loaded machine), then
// the same collective again (back to back, like the later collectives of an iteration). The
// allreduce is followed by the division the runtime does. Per repeat the fastest rank counts (the
// last to arrive, which waits for the transfer only, not for its peers); the mean over repeats
// after two warm-ups (the mean: the estimate predicts mean iteration times, and the slow tail is
// real). Returns {after compute, back to back} samples.
std::array<std::vector<std::pair<double, double>>, 2> TimeCollective(const ProfileOptions& options,
                                                                     const ImageSet& images,
                                                                     int batch,
                                                                     Collective::Kind kind,
                                                                     int members) {
  const int repeats = options.comm_repeats;
  const size_t sizes = kCommPayloads.size();
  SharedDoubles seconds(2 * members * sizes * repeats);  // [mode][rank][size][repeat]
  auto at = [&](int mode, int rank, size_t i, int r) -> double& {
    return seconds[((mode * members + rank) * sizes + i) * repeats + r];
  };
  RunForked(members, [&](int rank, GlooGroups& groups) {
    torch::manual_seed(options.seed);
    BlockModel model =
        MakeModel(options.model, images.channels, images.height, images.width, images.classes);
    std::vector<int> everyone(members);
    std::iota(everyone.begin(), everyone.end(), 0);
    c10d::ProcessGroupGloo& group = groups.Get(everyone);
    SpbStepResult step;
    for (size_t i = 0; i < sizes; ++i) {
      std::vector<at::Tensor> tensors = {torch::ones({kCommPayloads[i] / 4})};
      for (int r = -2; r < repeats; ++r) {  // two warm-ups
        TimedStep(model, images, batch, model->num_blocks(), r + 2, rank, members, &step);
        for (int mode = 0; mode < 2; ++mode) {  // after the step, then back to back
          const Clock::time_point start = Clock::now();
          if (kind == Collective::Kind::kAllreduce) {
            group.allreduce(tensors)->wait();
            tensors[0].div_(members);
          } else {
            c10d::BroadcastOptions broadcast;
            broadcast.rootRank = 0;
            group.broadcast(tensors, broadcast)->wait();
          }
          const double s = std::chrono::duration<double>(Clock::now() - start).count();
          if (r >= 0) at(mode, rank, i, r) = s;
        }
      }
    }
  });
  std::array<std::vector<std::pair<double, double>>, 2> samples;
  for (int mode = 0; mode < 2; ++mode) {
    for (size_t i = 0; i < sizes; ++i) {
      double total = 0;
      for (int r = 0; r < repeats; ++r) {
        double fastest = at(mode, 0, i, r);
        for (int rank = 1; rank < members; ++rank)
          fastest = std::min(fastest, at(mode, rank, i, r));
        total += fastest;
      }
      samples[mode].emplace_back(static_cast<double>(kCommPayloads[i]), total / repeats);
    }
  }
  return samples;
}

CommModel CalibrateComm(const ProfileOptions& options, const ImageSet& images, int batch) {
  CommModel comm;
  comm.method = "jigsaw profile --comm-workers " + std::to_string(options.comm_workers) +
                ": n local processes (fork), Gloo over TCP 127.0.0.1; per payload " +
                std::to_string(options.comm_repeats) +
                " collectives, each after a full-depth training step on every rank (after: "
                "compute) and then once more back to back (after: collective); mean over "
                "repeats of the fastest rank";
  for (int members = 2; members <= options.comm_workers; ++members) {
    for (Collective::Kind kind : {Collective::Kind::kAllreduce, Collective::Kind::kBroadcast}) {
      auto samples = TimeCollective(options, images, batch, kind, members);
      for (int mode = 0; mode < 2; ++mode) {
        comm.fits.push_back(FitCollective(kind, members, samples[mode]));
        comm.fits.back().back_to_back = mode == 1;
      }
    }
  }
  return comm;
}

// The whole compute of a training iteration at every depth, through the training code path:
// batch preparation (fresh shuffled indices every repeat) and ComputeSpbGradients (forward with
// the frozen prefix under NoGradGuard, loss, backward into .grad). `workers` processes (this one
// and forked copies, each with its own replica) run the same depth in a training-like loop:
// step, then an allreduce of the model's parameter bytes (as full training exchanges), so the
// steps start as unevenly as in training. Per repeat the span from the first process starting
// its step to the last one finishing counts (a synchronous iteration waits for the last, and
// the ranks leave the previous collective at different times). Reported: the mean over repeats
// (after two warm-ups) of that slowest compute, of the mean compute, forward and backward time, and
// of the same step run by this process alone afterwards.
StepProfile ProfileSteps(const ProfileOptions& options, const ImageSet& images, int batch,
                         int64_t model_bytes) {
  const int workers = std::max(1, options.step_workers);
  const int rounds = options.repeats + 2;
  torch::manual_seed(options.seed);
  const int blocks =
      MakeModel(options.model, images.channels, images.height, images.width, images.classes)
          ->num_blocks();
  // Per depth, worker and round: compute, forward, backward, step start and end (steady clock,
  // which is system-wide, so the processes' timestamps compare).
  SharedDoubles times(static_cast<size_t>(blocks + 1) * workers * rounds * 5);
  auto at = [&](int depth, int k, int r, int field) -> double& {
    return times[((static_cast<size_t>(depth) * workers + k) * rounds + r) * 5 + field];
  };
  auto run = [&](int k, GlooGroups* groups) {
    torch::manual_seed(options.seed);
    BlockModel model =
        MakeModel(options.model, images.channels, images.height, images.width, images.classes);
    std::vector<int> everyone(workers);
    std::iota(everyone.begin(), everyone.end(), 0);
    std::vector<at::Tensor> gradients = {torch::ones({std::max<int64_t>(1, model_bytes / 4)})};
    for (int depth = 0; depth <= blocks; ++depth) {
      for (int r = 0; r < rounds; ++r) {
        SpbStepResult step;
        at(depth, k, r, 3) = Seconds(Clock::now());
        at(depth, k, r, 0) = TimedStep(model, images, batch, depth, r, k, workers, &step);
        at(depth, k, r, 4) = Seconds(Clock::now());
        at(depth, k, r, 1) = step.forward_s;
        at(depth, k, r, 2) = step.backward_s;
        if (groups != nullptr) groups->Get(everyone).allreduce(gradients)->wait();
      }
    }
  };
  if (workers == 1) {
    run(0, nullptr);
  } else {
    RunForked(workers, [&](int k, GlooGroups& groups) { run(k, &groups); });
  }
  // The same steps with this process alone (what a worker computes once its peers are idle).
  std::vector<double> alone(blocks + 1);
  {
    torch::manual_seed(options.seed);
    BlockModel model =
        MakeModel(options.model, images.channels, images.height, images.width, images.classes);
    for (int depth = 0; depth <= blocks; ++depth) {
      for (int r = 0; r < rounds; ++r) {
        SpbStepResult step;
        const double s = TimedStep(model, images, batch, depth, r, 0, 1, &step);
        if (r >= 2) alone[depth] += s / options.repeats;
      }
    }
  }
  StepProfile steps;
  steps.workers = workers;
  steps.repeats = options.repeats;
  for (int depth = 0; depth <= blocks; ++depth) {
    DepthStepProfile d;
    d.depth = depth;
    d.alone_compute_s = alone[depth];
    for (int r = 2; r < rounds; ++r) {
      double first_start = at(depth, 0, r, 3);
      double last_end = at(depth, 0, r, 4);
      for (int k = 0; k < workers; ++k) {
        first_start = std::min(first_start, at(depth, k, r, 3));
        last_end = std::max(last_end, at(depth, k, r, 4));
        d.mean_compute_s += at(depth, k, r, 0) / workers;
        d.forward_s += at(depth, k, r, 1) / workers;
        d.backward_s += at(depth, k, r, 2) / workers;
      }
      d.slowest_compute_s += last_end - first_start;
    }
    d.slowest_compute_s /= options.repeats;
    d.mean_compute_s /= options.repeats;
    d.forward_s /= options.repeats;
    d.backward_s /= options.repeats;
    steps.depths.push_back(d);
  }
  return steps;
}

// One line per block (core/result_summary.h), then the file.
void PrintProfileSummary(const ModelProfile& profile, const std::string& path) {
  ResultSummary summary("profile: " + profile.model + ", " + std::to_string(profile.blocks.size()) +
                        " blocks, batch " + std::to_string(profile.batch) + ", " +
                        std::to_string(profile.threads) + " thread(s); median of repeats");
  double forward = 0, backward = 0;
  for (size_t b = 0; b < profile.blocks.size(); ++b) {
    const BlockProfile& p = profile.blocks[b];
    forward += p.forward_s;
    backward += p.backward_s;
    summary.Add("block " + std::to_string(b) + " " + p.name,
                "forward " + FormatFixed(1e3 * p.forward_s, 3) + " ms, backward " +
                    FormatFixed(1e3 * p.backward_s, 3) + " ms, " +
                    FormatFixed(p.parameter_bytes / 1024.0, 1) + " KiB of parameters");
  }
  summary.Add("all blocks", "forward " + FormatFixed(1e3 * forward, 3) + " ms, backward " +
                                FormatFixed(1e3 * backward, 3) + " ms");
  const size_t slash = path.find_last_of('/');
  summary.AddFile(slash == std::string::npos ? "." : path.substr(0, slash),
                  slash == std::string::npos ? path : path.substr(slash + 1),
                  "per-block times and sizes (jigsaw sim --spb-profile, train --profile)");
  summary.Print();
}

}  // namespace

int RunProfile(const ProfileOptions& options) {
  torch::set_num_threads(options.threads);
  torch::manual_seed(options.seed);
  ImageSet images = ProfileImages(options.data);
  BlockModel model =
      MakeModel(options.model, images.channels, images.height, images.width, images.classes);
  std::vector<int64_t> indices(std::min(options.batch, images.count));
  std::iota(indices.begin(), indices.end(), 0);

  ModelProfile profile;
  profile.model = options.model;
  profile.batch = static_cast<int>(indices.size());
  profile.input_shape = {images.channels, images.height, images.width};
  profile.threads = options.threads;
  std::vector<int64_t> parameter_bytes = BlockParameterBytes(model);
  torch::Tensor x = BatchImages(images, indices);
  for (int b = 0; b < model->num_blocks(); ++b) {
    torch::nn::Sequential& block = model->block(b);
    BlockProfile p;
    p.name = model->block_name(b);
    p.parameter_bytes = parameter_bytes[b];
    torch::Tensor input = x.detach().requires_grad_(true);
    std::vector<torch::Tensor> parameters = block->parameters();
    std::vector<torch::Tensor> everything = parameters;
    everything.push_back(input);
    p.forward_s = MedianSeconds(options.repeats, [&] { block->forward(input); });
    torch::Tensor output = block->forward(input);
    torch::Tensor grad = torch::randn_like(output);
    auto backward_to = [&](const std::vector<torch::Tensor>& targets) {
      if (!targets.empty()) torch::autograd::grad({output}, targets, {grad}, true);
    };
    p.backward_s = MedianSeconds(options.repeats, [&] { backward_to(everything); });
    p.backward_weight_s = MedianSeconds(options.repeats, [&] { backward_to(parameters); });
    p.backward_input_s = MedianSeconds(options.repeats, [&] { backward_to({input}); });
    p.activation_bytes = output.numel() * static_cast<int64_t>(output.element_size());
    profile.blocks.push_back(p);
    torch::NoGradGuard no_grad;
    x = block->forward(x);
  }
  // The per-iteration work outside the blocks: batch preparation (shuffled indices, as in
  // training), the loss forward and backward, and the optimizer step over every parameter.
  std::vector<int64_t> shuffled(indices.size());
  for (size_t i = 0; i < shuffled.size(); ++i) {
    shuffled[i] = static_cast<int64_t>((i * 7919) % static_cast<size_t>(images.count));
  }
  profile.batch_s = MedianSeconds(options.repeats, [&] {
    BatchImages(images, shuffled);
    BatchLabels(images, shuffled);
  });
  torch::Tensor labels = BatchLabels(images, indices);
  torch::Tensor logits = x.detach().requires_grad_(true);
  profile.loss_s = MedianSeconds(
      options.repeats, [&] { torch::nn::functional::cross_entropy(logits, labels).backward(); });
  for (torch::Tensor& p : model->parameters()) p.mutable_grad() = torch::randn_like(p);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.0).momentum(0.9));
  profile.optimizer_s = MedianSeconds(options.repeats, [&] { optimizer.step(); });
  if (options.step_workers >= 1) {
    int64_t model_bytes = 0;
    for (const BlockProfile& b : profile.blocks) model_bytes += b.parameter_bytes;
    profile.steps = ProfileSteps(options, images, profile.batch, model_bytes);
  }
  if (options.comm_workers >= 2) {
    profile.comm = CalibrateComm(options, images, profile.batch);
  }
  WriteJsonFile(options.out, ProfileToJson(profile));
  PrintProfileSummary(profile, options.out);
  return 0;
}

}  // namespace jigsaw
