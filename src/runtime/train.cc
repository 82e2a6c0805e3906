// `jigsaw train`: the SPB data-parallel training loop, its evaluation, replica checks and
// checkpoints, and the per-rank entry point that the local launcher starts.
#include <gloo/common/error.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <optional>
#include <sstream>
#include <torch/csrc/distributed/c10d/FileStore.hpp>

#include "core/error.h"
#include "core/limits.h"
#include "core/output.h"
#include "core/progress.h"
#include "core/result_set.h"
#include "core/rng.h"
#include "core/stats.h"
#include "core/wire_message.h"
#include "runtime/block_state.h"
#include "runtime/gradient_exchange.h"
#include "runtime/host_staging.h"
#include "runtime/launcher.h"
#include "runtime/memory_tracker.h"
#include "runtime/model_spec.h"
#include "runtime/models.h"
#include "runtime/net_address.h"
#include "runtime/rendezvous_store.h"
#include "runtime/runtime.h"
#include "runtime/spb_worker.h"
#include "runtime/tcp_counters.h"
#include "runtime/train_data.h"
#include "runtime/train_outputs.h"
#include "runtime/train_worker.h"
#include "runtime/training_device.h"
#include "runtime/weight_velocity.h"
#include "spb/adaptive_plan.h"
#include "spb/balanced_exchange.h"

namespace jigsaw {
namespace {

using Clock = std::chrono::steady_clock;

double PeakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

constexpr double kMiB = 1024.0 * 1024.0;

// The same permutation on every rank (seeded by seed and epoch).
std::vector<int64_t> EpochOrder(int count, uint64_t seed, int epoch) {
  std::vector<int64_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  Rng rng(seed * 1000003 + static_cast<uint64_t>(epoch));
  for (int i = count - 1; i > 0; --i) {
    std::swap(order[i], order[rng.UniformInt(static_cast<uint64_t>(i) + 1)]);
  }
  return order;
}

std::vector<int> Everyone(int world) {
  std::vector<int> ranks(world);
  std::iota(ranks.begin(), ranks.end(), 0);
  return ranks;
}

double LearningRate(const TrainOptions& options, int64_t iteration, int64_t total) {
  const double progress = total > 0 ? static_cast<double>(iteration) / total : 0;
  if (options.lr_schedule == "cosine") return options.lr * 0.5 * (1 + std::cos(M_PI * progress));
  if (options.lr_schedule == "step") {
    return options.lr * (progress >= 0.75 ? 0.01 : progress >= 0.5 ? 0.1 : 1.0);
  }
  return options.lr;
}

void ValidateOptions(const TrainOptions& options, const SpbPlan& plan) {
  if (options.lr_schedule != "constant" && options.lr_schedule != "cosine" &&
      options.lr_schedule != "step") {
    throw UsageError("--lr-schedule '" + options.lr_schedule +
                     "': expected constant, cosine or step");
  }
  if (!(options.lr > 0) || !std::isfinite(options.lr)) throw UsageError("--lr must be > 0");
  if (!(options.momentum >= 0 && options.momentum < 1)) {
    throw UsageError("--momentum must be in [0, 1)");
  }
  if (!(options.weight_decay >= 0) || !std::isfinite(options.weight_decay)) {
    throw UsageError("--weight-decay must be >= 0");
  }
  ParseSpbScale(options.spb_scale);
  if (options.exchange != "balanced" && options.exchange != "tree") {
    throw UsageError("--exchange '" + options.exchange + "': expected balanced or tree");
  }
  if (options.exchange == "tree" && plan.kind == SpbPlanKind::kAdaptive) {
    throw UsageError("--spb adaptive needs --exchange balanced");
  }
  if (options.bucket_kb < 1) throw UsageError("--bucket-kb must be >= 1");
  if (options.spb_frozen_chunk < 0) throw UsageError("--spb-frozen-chunk must be >= 0");
  if (options.eval_every < 0 || options.eval_samples < 0) {
    throw UsageError("--eval-every and --eval-samples must be >= 0");
  }
  if (!std::isfinite(options.spb_warmup_epochs) ||
      !(options.spb_warmup_epochs >= 0 || options.spb_warmup_epochs == -1)) {
    throw UsageError("--spb-warmup must be >= 0 epochs");
  }
  if (!(options.spb_warmup_fraction >= 0 && options.spb_warmup_fraction <= 1)) {
    throw UsageError("--spb-warmup-fraction must be in [0, 1]");
  }
  const AdaptiveStructure structure = ParseAdaptiveStructure(options.spb_structure);
  if (plan.kind == SpbPlanKind::kAdaptive &&
      ResolveAdaptiveSignal(options.spb_signal, structure) == AdaptiveSignal::kCoherence &&
      structure != AdaptiveStructure::kFreeze) {
    throw UsageError("--spb-signal coherence needs --spb-structure freeze");
  }
}

// Makes every replica start from rank 0's parameters and buffers.
void BroadcastModel(BlockModel& model, int world, c10d::ProcessGroupGloo* group,
                    const HostStaging& staging) {
  if (world < 2) return;
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> tensors = model->parameters();
  for (const torch::Tensor& b : model->buffers()) {
    if (b.scalar_type() == torch::kFloat32) tensors.push_back(b);
  }
  std::vector<torch::Tensor> buffer = {staging.Pack(tensors)};
  group->broadcast(buffer)->wait();
  HostStaging::Unpack(buffer[0], tensors);
}

// Batch norm's running statistics are per replica (each normalises its own batches, frozen
// blocks included); averaging them before every evaluation and checkpoint keeps the replicas
// identical where it matters and makes the evaluated model the average of the workers' views.
void AverageBatchNormStatistics(BlockModel& model, int world, c10d::ProcessGroupGloo* group,
                                const HostStaging& staging) {
  if (world < 2) return;
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> stats;
  for (const auto& item : model->named_buffers()) {
    const std::string& name = item.key();
    if (name.size() >= 12 && (name.ends_with("running_mean") || name.ends_with("running_var"))) {
      stats.push_back(item.value());
    }
  }
  if (stats.empty()) return;
  std::vector<torch::Tensor> buffer = {staging.Pack(stats)};
  group->allreduce(buffer)->wait();
  buffer[0].div_(world);
  HostStaging::Unpack(buffer[0], stats);
}

// FNV-1a over the bytes of every parameter and buffer, in registration order.
uint64_t ModelChecksum(BlockModel& model) {
  uint64_t hash = 1469598103934665603ULL;
  auto mix = [&hash](const torch::Tensor& t) {
    torch::Tensor c = t.to(torch::kCPU).contiguous();
    const auto* bytes = static_cast<const uint8_t*>(c.data_ptr());
    const size_t size = c.numel() * c.element_size();
    for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 1099511628211ULL;
  };
  for (const torch::Tensor& p : model->parameters()) mix(p);
  for (const torch::Tensor& b : model->buffers()) mix(b);
  return hash;
}

// Fails the job loudly unless every replica holds bitwise-identical parameters and buffers.
void VerifyReplicas(BlockModel& model, int rank, int world, int epoch,
                    c10d::ProcessGroupGloo* group) {
  if (world < 2) return;
  const uint64_t mine = ModelChecksum(model);
  std::vector<torch::Tensor> input = {torch::tensor({static_cast<int64_t>(mine)}, torch::kInt64)};
  std::vector<std::vector<torch::Tensor>> output(1);
  for (int k = 0; k < world; ++k) output[0].push_back(torch::empty({1}, torch::kInt64));
  group->allgather(output, input)->wait();
  std::string listing;
  bool mismatch = false;
  for (int k = 0; k < world; ++k) {
    const uint64_t theirs = static_cast<uint64_t>(output[0][k].item<int64_t>());
    mismatch |= theirs != mine;
    char text[48];
    std::snprintf(text, sizeof(text), "%srank %d 0x%016llx", k ? ", " : "", k,
                  static_cast<unsigned long long>(theirs));
    listing += text;
  }
  if (mismatch) {
    throw std::runtime_error("replica checksum mismatch after epoch " + std::to_string(epoch + 1) +
                             ": the replicas' parameters diverged (" + listing + ")");
  }
}

// The test samples an evaluation scores: all of them, or `samples` of them taken from one fixed
// permutation (test sets are often stored class by class, so a prefix would be biased).
std::vector<int64_t> EvaluationSamples(const ImageSet& test, int samples) {
  std::vector<int64_t> order(test.count);
  std::iota(order.begin(), order.end(), 0);
  if (samples <= 0 || samples >= test.count) return order;
  Rng rng(0x7e57ULL);
  for (int i = test.count - 1; i > 0; --i) {
    std::swap(order[i], order[rng.UniformInt(static_cast<uint64_t>(i) + 1)]);
  }
  order.resize(samples);
  std::sort(order.begin(), order.end());
  return order;
}

// Test accuracy of the (replicated) model over `samples`; each rank scores every world-th one.
double Evaluate(BlockModel& model, const ImageSet& test, const std::vector<int64_t>& samples,
                const torch::Device& device, int rank, int world, c10d::ProcessGroupGloo* group) {
  torch::NoGradGuard no_grad;
  model->eval();
  const int64_t count = static_cast<int64_t>(samples.size());
  double correct = 0;
  double total = 0;
  std::vector<int64_t> chunk;
  for (int64_t i = rank; i < count; i += world) {
    chunk.push_back(samples[i]);
    if (chunk.size() == 500 || i + world >= count) {
      torch::Tensor predicted = model->forward(BatchImages(test, chunk).to(device)).argmax(1);
      correct += predicted.eq(BatchLabels(test, chunk).to(device)).sum().item<double>();
      total += static_cast<double>(chunk.size());
      chunk.clear();
    }
  }
  model->train();
  if (world > 1) {
    std::vector<torch::Tensor> counts = {torch::tensor({correct, total}, torch::kFloat64)};
    group->allreduce(counts)->wait();
    correct = counts[0][0].item<double>();
    total = counts[0][1].item<double>();
  }
  return total > 0 ? correct / total : 0;
}

std::string CheckpointPath(const TrainOptions& options) { return options.out + "/checkpoint.pt"; }

struct Checkpointed {
  int epochs_done = 0;
  std::vector<double> accuracies;
};

// The checkpoint's bytes: written with the epoch's other outputs as one ResultSet.
std::string SerializeCheckpoint(const ModelSpec& spec, BlockModel& model,
                                const BlockTrainingState& state, int epochs_done,
                                const std::vector<double>& accuracies, int world,
                                const AdaptiveController* controller,
                                const WeightVelocity* velocity) {
  torch::serialize::OutputArchive archive;
  torch::serialize::OutputArchive model_archive;
  model->save(model_archive);
  archive.write("model", model_archive);
  WriteModelSpec(archive, spec);
  torch::serialize::OutputArchive optimizer_archive;
  state.Save(optimizer_archive);
  archive.write("optimizer", optimizer_archive);
  archive.write("epochs_done", torch::tensor(static_cast<int64_t>(epochs_done)));
  archive.write("world", torch::tensor(static_cast<int64_t>(world)));
  archive.write("accuracies", torch::tensor(accuracies, torch::kFloat64));
  if (controller != nullptr) {
    const AdaptiveControllerState saved = controller->SaveState();
    archive.write(
        "adaptive.contributors",
        torch::tensor(std::vector<int64_t>(saved.contributors.begin(), saved.contributors.end())));
    archive.write("adaptive.windows_below",
                  torch::tensor(std::vector<int64_t>(saved.windows_below.begin(),
                                                     saved.windows_below.end())));
    archive.write("adaptive.reference", torch::tensor(saved.reference, torch::kFloat64));
  }
  if (velocity != nullptr) velocity->Save(archive);
  std::ostringstream bytes;
  archive.save_to(bytes);
  return bytes.str();
}

Checkpointed LoadCheckpoint(const std::string& path, BlockModel& model, BlockTrainingState& state,
                            int world, const torch::Device& device, AdaptiveController* controller,
                            WeightVelocity* velocity) {
  torch::serialize::InputArchive archive;
  archive.load_from(path, torch::kCPU);  // written on any device
  torch::Tensor saved_world;
  if (archive.try_read("world", saved_world) && saved_world.item<int64_t>() != world) {
    throw UsageError("--resume: " + path + " was written by a " +
                     std::to_string(saved_world.item<int64_t>()) + "-worker job; this one has " +
                     std::to_string(world) +
                     " (the plan and data split depend on the worker count)");
  }
  torch::serialize::InputArchive model_archive;
  archive.read("model", model_archive);
  model->load(model_archive);
  model->to(device);  // the archive loads on the CPU; the momenta follow the parameters
  torch::serialize::InputArchive optimizer_archive;
  archive.read("optimizer", optimizer_archive);
  state.Load(optimizer_archive);
  Checkpointed result;
  torch::Tensor epochs_done;
  archive.read("epochs_done", epochs_done);
  result.epochs_done = static_cast<int>(epochs_done.item<int64_t>());
  torch::Tensor accuracy_tensor;
  archive.read("accuracies", accuracy_tensor);
  for (int64_t i = 0; i < accuracy_tensor.numel(); ++i) {
    result.accuracies.push_back(accuracy_tensor[i].item<double>());
  }
  torch::Tensor contributors;
  if (controller != nullptr && archive.try_read("adaptive.contributors", contributors)) {
    torch::Tensor windows_below;
    torch::Tensor reference;
    archive.read("adaptive.windows_below", windows_below);
    archive.read("adaptive.reference", reference);
    AdaptiveControllerState saved;
    for (int64_t i = 0; i < contributors.numel(); ++i) {
      saved.contributors.push_back(static_cast<int>(contributors[i].item<int64_t>()));
      saved.windows_below.push_back(static_cast<int>(windows_below[i].item<int64_t>()));
    }
    for (int64_t i = 0; i < reference.numel(); ++i) {
      saved.reference.push_back(reference[i].item<double>());
    }
    controller->RestoreState(saved);
  }
  if (velocity != nullptr) velocity->Load(archive);
  return result;
}

// Epochs the checkpoint's run had finished.
int CheckpointEpochs(const std::string& path) {
  torch::serialize::InputArchive archive;
  archive.load_from(path, torch::kCPU);
  torch::Tensor epochs;
  archive.read("epochs_done", epochs);
  return static_cast<int>(epochs.item<int64_t>());
}

// Workers of the run that wrote the checkpoint; 0 for checkpoints that do not record it.
int CheckpointWorld(const std::string& path) {
  torch::serialize::InputArchive archive;
  archive.load_from(path, torch::kCPU);  // written on any device
  torch::Tensor world;
  return archive.try_read("world", world) ? static_cast<int>(world.item<int64_t>()) : 0;
}

// --resume continues a run with the same number of workers only (the data order, the plan's
// depths and the iterations per epoch all depend on it), and only from a folder whose outputs are
// one epoch's set: summary.json and checkpoint.pt at the same epoch (they are committed together;
// a folder where they differ was written by hand or by an older version killed in between).
void RequireResumable(const TrainOptions& options, int world) {
  const std::string checkpoint = CheckpointPath(options);
  if (!options.resume || !std::filesystem::exists(checkpoint)) return;
  const int saved = CheckpointWorld(checkpoint);
  if (saved > 0 && saved != world) {
    throw UsageError("--resume: " + checkpoint + " was written by a run with " +
                     std::to_string(saved) + " workers, this run has " + std::to_string(world) +
                     " (expected --workers " + std::to_string(saved) +
                     ", or a new --out without --resume)");
  }
  const std::string mixed = MixedOutputs(options.out, CheckpointEpochs(checkpoint));
  if (!mixed.empty()) {
    throw UsageError("--resume: " + options.out + " holds outputs of different epochs: " + mixed +
                     " (a run was interrupted while replacing them); resume from a copy you "
                     "trust, or start a new --out without --resume");
  }
}

// After each epoch rank 0 collects every rank's rows of the epoch through the store (keys are
// per epoch and rank, so nothing is overwritten) and appends them to *all_rows in iteration order.
void GatherRows(c10d::Store& store, int rank, int world, int epoch, std::vector<IterationRow>* rows,
                std::vector<IterationRow>* all_rows) {
  const std::string prefix = "rows/" + std::to_string(epoch) + "/";
  if (rank != 0) {
    std::string text;
    for (const IterationRow& r : *rows) text += FormatIterationRow(r) + "\n";
    store.set(prefix + std::to_string(rank), std::vector<uint8_t>(text.begin(), text.end()));
    rows->clear();
    return;
  }
  std::vector<IterationRow> epoch_rows = std::move(*rows);
  rows->clear();
  for (int k = 1; k < world; ++k) {
    std::vector<uint8_t> bytes = store.get(prefix + std::to_string(k));
    store.deleteKey(prefix + std::to_string(k));  // read once: the rendezvous keeps no history
    std::istringstream in(std::string(bytes.begin(), bytes.end()));
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty()) epoch_rows.push_back(ParseIterationRow(line));
    }
  }
  std::stable_sort(
      epoch_rows.begin(), epoch_rows.end(), [](const IterationRow& a, const IterationRow& b) {
        return a.iteration != b.iteration ? a.iteration < b.iteration : a.rank < b.rank;
      });
  all_rows->insert(all_rows->end(), epoch_rows.begin(), epoch_rows.end());
}

std::pair<std::string, int> SplitHostPort(const std::string& address) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size() ||
      address.find_first_not_of("0123456789", colon + 1) != std::string::npos ||
      address.size() - colon > 6) {
    throw UsageError("--master '" + address + "': expected HOST:PORT");
  }
  int port = std::stoi(address.substr(colon + 1));
  if (port < 1 || port > 65535) throw UsageError("--master '" + address + "': port out of range");
  return {address.substr(0, colon), port};
}

// The documented ranges of the options (docs/limits.md); UsageError naming the option.
void ValidateTrainOptions(const TrainOptions& options) {
  RequireKnownModel(options.model);
  if (options.rank < 0) RequireCountInRange("--workers", options.workers, 1, kMaxLocalWorkers);
  RequireCountInRange("--epochs", options.epochs, 1, 1'000'000);
  RequireCountInRange("--batch", options.batch, 1, kMaxBatchSize);
  RequireCountInRange("--max-iters-per-epoch", options.max_iters_per_epoch, 0, 1'000'000'000);
  RequireOptionInRange("--lr", options.lr, 0, 1e3);
  RequireOptionInRange("--momentum", options.momentum, 0, 1);
  RequireCountInRange("--threads", options.threads, 1, 1024);
  RequireOptionInRange("--timeout-s", options.timeout_s, 0.01, 1e6);
  const int world = options.rank < 0 ? options.workers : options.world;
  const bool staged = options.stage_through_host || !TrainingDevice(options).is_cpu();
  if (staged && world > 1 && options.exchange != "balanced") {
    throw UsageError("--exchange " + options.exchange + " runs on CPU tensors only; --device " +
                     options.device + (options.stage_through_host ? " --stage-through-host" : "") +
                     " needs --exchange balanced");
  }
}

// Fault injection: SIGKILL right after the named step of the next output commit.
std::string g_kill_at_commit_step;
void ArmCommitKill(const std::string& step) {
  g_kill_at_commit_step = step;
  ResultSet::SetCommitObserver([](const std::string& done) {
    if (done == g_kill_at_commit_step) raise(SIGKILL);
  });
}

// Exits without unwinding: Gloo's threads may still be blocked on the dead peer.
[[noreturn]] void FailWorker(const TrainOptions& options, const std::string& message) {
  std::fprintf(stderr, "jigsaw: train: worker %d: %s\n", options.rank, message.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

int RunRank(const TrainOptions& options) {
  if (options.world < 1 || options.rank < 0 || options.rank >= options.world) {
    throw UsageError("--rank must be in [0, --world)");
  }
  if (options.rendezvous_file.empty() && options.token_file.empty()) {
    throw UsageError(
        "--token-file is required with --rank: every rank proves the job's token to the "
        "rendezvous (rank 0 creates the file with a random token when it is missing; copy it to "
        "the other hosts)");
  }
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(options.timeout_s * 1000));
  try {
    c10::intrusive_ptr<c10d::Store> store;
    std::string gloo_host = options.gloo_host;
    if (!options.rendezvous_file.empty()) {
      // Local workers (the launcher's): a file in the launcher's private folder, so the
      // rendezvous listens on no network interface at all (TCPStore binds every interface).
      store = c10::make_intrusive<c10d::FileStore>(options.rendezvous_file, options.world);
      store->setTimeout(timeout);
      if (gloo_host.empty()) gloo_host = "127.0.0.1";
    } else {
      auto [host, port] = SplitHostPort(options.master);
      const bool local = host == "127.0.0.1" || host == "localhost";
      if (gloo_host.empty()) gloo_host = local ? "127.0.0.1" : LocalAddressTowards(host, port);
      // Our own store, not c10d::TCPStore (it binds every interface and authenticates nobody):
      // rank 0 listens on the master address only, every rank proves the job token first.
      RendezvousOptions rendezvous;
      rendezvous.host = host;
      rendezvous.port = port;
      rendezvous.rank = options.rank;
      rendezvous.world = options.world;
      rendezvous.token = wire::ResolveToken("", options.token_file, options.rank == 0);
      rendezvous.timeout = timeout;
      store = c10::make_intrusive<RendezvousStore>(rendezvous);
    }
    TrainRank(options, options.rank, options.world, store, gloo_host);
  } catch (const InputError&) {
    throw;
  } catch (const UsageError&) {
    throw;
  } catch (const ::gloo::Exception& e) {
    FailWorker(options, "lost contact with a peer (it exited, or stalled past --timeout-s " +
                            FormatFixed(options.timeout_s, 0) + "): " + e.what());
  } catch (const c10::Error& e) {
    FailWorker(options, e.what_without_backtrace());
  } catch (const std::exception& e) {
    FailWorker(options, e.what());
  }
  return 0;
}

}  // namespace

void TrainRank(const TrainOptions& options, int rank, int world,
               const c10::intrusive_ptr<c10d::Store>& store, const std::string& host) {
  InstallTensorMemoryTracker();
  CountOnlyThisThread();  // Gloo's threads allocate exchange buffers, not activations
  torch::set_num_threads(options.threads);
  torch::manual_seed(options.seed);
  const SpbPlan plan = ParseSpbPlan(options.spb);
  if (options.batch < 1 || options.epochs < 1) {
    throw UsageError("--batch and --epochs must be >= 1");
  }
  ValidateOptions(options, plan);
  const SpbScale scale = ParseSpbScale(options.spb_scale);
  const bool balanced = options.exchange == "balanced";
  TrainingData data = LoadTrainingData(options.data);
  BlockModel model = MakeModel(options.model, data.train.channels, data.train.height,
                               data.train.width, data.train.classes);
  const torch::Device device = RankDevice(options, rank);
  const HostStaging staging = RankStaging(options, device);
  if (device.is_cuda()) at::globalContext().setBenchmarkCuDNN(true);  // fixed shapes
  model->to(device);
  const ModelSpec spec{options.model,     options.data.dataset, data.train.channels,
                       data.train.height, data.train.width,     data.train.classes};
  model->train();
  TrainRecord record;
  record.blocks = model->num_blocks();
  record.parameter_bytes = BlockParameterBytes(model);
  const int blocks = record.blocks;
  WorkerDepths(plan, blocks, world, 0);  // validates the plan against the model

  record.iterations_per_epoch = data.train.count / (int64_t{world} * options.batch);
  if (options.max_iters_per_epoch > 0) {
    record.iterations_per_epoch =
        std::min<int64_t>(record.iterations_per_epoch, options.max_iters_per_epoch);
  }
  if (record.iterations_per_epoch < 1) {
    throw UsageError("the training set is smaller than one global batch (workers x --batch)");
  }
  const int64_t total_iterations = record.iterations_per_epoch * options.epochs;

  std::optional<AdaptiveController> controller;
  std::optional<WeightVelocity> velocity;
  bool coherence = false;  // the adaptive plan's signal is the coherence
  if (plan.kind == SpbPlanKind::kAdaptive) {
    AdaptiveOptions adaptive;
    adaptive.warmup_iterations =
        AdaptiveWarmupIterations(options.spb_warmup_epochs, options.spb_warmup_fraction,
                                 record.iterations_per_epoch, total_iterations);
    adaptive.window = options.spb_window;
    adaptive.freeze_below = options.spb_freeze_below;
    adaptive.full_above = options.spb_full_above;
    adaptive.patience = options.spb_patience;
    adaptive.span = options.spb_span;
    adaptive.min_trained_blocks = options.spb_min_trained_blocks;
    adaptive.structure = ParseAdaptiveStructure(options.spb_structure);
    adaptive.signal = ResolveAdaptiveSignal(options.spb_signal, adaptive.structure);
    coherence = adaptive.signal == AdaptiveSignal::kCoherence;
    adaptive.steps_scale_with_contributors = scale != SpbScale::kContributors;
    controller.emplace(adaptive, blocks, world);
    if (rank == 0) velocity.emplace(model);
  }

  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(options.timeout_s * 1000));
  // The world group carries every world-wide operation outside the exchange, and the balanced
  // exchange's all-gathers; `alltoall` its all-to-alls; `tree` the per-contributor-set groups of
  // the tree exchange.
  std::vector<std::vector<int>> tree_groups;
  if (!balanced) tree_groups = PlanGroups(plan, blocks, world);
  GlooGroups world_groups(store, rank, {Everyone(world)}, host, timeout, "world");
  GlooGroups alltoall_groups(
      store, rank,
      balanced ? std::vector<std::vector<int>>{Everyone(world)} : std::vector<std::vector<int>>{},
      host, timeout, "alltoall");
  GlooGroups tree(store, rank, tree_groups, host, timeout, "tree");
  c10d::ProcessGroupGloo* world_group = world_groups.Find(Everyone(world));
  std::optional<BalancedGradientExchange> exchange;
  if (balanced) {
    exchange.emplace(alltoall_groups.Find(Everyone(world)), world_group, rank, world, staging);
  }

  BlockTrainingState state(model, options.momentum, options.weight_decay);
  if (rank == 0) MakeDirectories(options.out);
  const std::string checkpoint = CheckpointPath(options);
  RequireResumable(options, world);
  if (options.resume && std::filesystem::exists(checkpoint)) {
    Checkpointed loaded =
        LoadCheckpoint(checkpoint, model, state, world, device, controller ? &*controller : nullptr,
                       velocity ? &*velocity : nullptr);
    record.first_epoch = loaded.epochs_done;
    record.accuracies = loaded.accuracies;
    if (rank == 0 && !options.quiet) {
      std::fprintf(stderr, "train: resuming after epoch %d from %s\n", record.first_epoch,
                   checkpoint.c_str());
    }
  }
  BroadcastModel(model, world, world_group, staging);
  if (rank == 0 && record.first_epoch > 0) {
    ReadEarlierRecord(options.out, record.first_epoch, &record);
  }

  const int64_t bucket_cap = int64_t{options.bucket_kb} * 1024;
  const std::vector<int64_t> eval_subset = EvaluationSamples(data.test, options.eval_samples);
  const std::vector<int64_t> everything = EvaluationSamples(data.test, 0);
  std::vector<IterationRow> rows;  // this rank, this epoch
  std::vector<IterationRow> all_rows = std::move(record.rows);
  // Rank 0 reports every iteration (throttled by core/progress.h) with the share done and an ETA.
  Progress progress("train", rank == 0 && !options.quiet);
  const int64_t first_iteration = record.first_epoch * record.iterations_per_epoch;
  for (int epoch = record.first_epoch; epoch < options.epochs; ++epoch) {
    std::vector<int64_t> order = EpochOrder(data.train.count, options.seed, epoch);
    for (int64_t it = 0; it < record.iterations_per_epoch; ++it) {
      const int64_t global_iteration = epoch * record.iterations_per_epoch + it;
      if (rank == options.kill_rank && global_iteration == options.kill_at_iter) {
        raise(options.stall_instead_of_kill ? SIGSTOP : SIGKILL);
      }
      const std::vector<int> depths = controller
                                          ? controller->Depths(global_iteration)
                                          : WorkerDepths(plan, blocks, world, global_iteration);
      const std::vector<std::vector<int>> contributors = BlockContributors(depths, blocks);
      std::vector<bool> active(blocks);
      std::vector<int> counts(blocks);
      std::vector<double> lr_factor(blocks);
      for (int b = 0; b < blocks; ++b) {
        counts[b] = static_cast<int>(contributors[b].size());
        active[b] = counts[b] > 0;
        lr_factor[b] = counts[b] > 0 ? LearningRateFactor(scale, counts[b], world) : 0;
      }
      state.SetActiveBlocks(active);
      state.ZeroGradients();
      const double lr = LearningRate(options, global_iteration, total_iterations);

      const Clock::time_point start = Clock::now();
      const TcpByteCounters wire_before = ReadTcpByteCounters();
      ResetPeakTensorBytes();
      const int64_t tensor_bytes_before = TensorBytes();
      const int64_t first = (it * world + rank) * options.batch;
      std::vector<int64_t> indices(order.begin() + first, order.begin() + first + options.batch);
      torch::Tensor images =
          TrainingImages(data, indices, options.seed, epoch, global_iteration, rank).to(device);
      torch::Tensor labels = BatchLabels(data.train, indices).to(device);
      IterationRow row;
      SpbStepResult step;
      double comm_s = 0;
      if (world == 1) {
        // Nothing to exchange: one contributor, every divisor 1.
        step = RunSpbStep(model, images, labels, depths[rank], nullptr, options.spb_frozen_chunk);
      } else if (balanced) {
        std::vector<ExchangeBucket> buckets =
            PlanBuckets(contributors, record.parameter_bytes, bucket_cap);
        std::vector<double> divisors;
        for (const ExchangeBucket& bucket : buckets) {
          divisors.push_back(
              GradientDivisor(scale, static_cast<int>(bucket.contributors.size()), world));
        }
        exchange->Begin(buckets, divisors, &state);
        BlockDoneCallback on_block_done;
        if (options.overlap) on_block_done = [&](int b) { exchange->BlockDone(b); };
        step = RunSpbStep(model, images, labels, depths[rank], on_block_done,
                          options.spb_frozen_chunk);
        const Clock::time_point comm_start = Clock::now();
        exchange->Finish();
        comm_s = SecondsSince(comm_start);
        row.bytes_sent = exchange->bytes_sent();
        row.bytes_received = exchange->bytes_received();
      } else {
        step = RunSpbStep(model, images, labels, depths[rank], nullptr, options.spb_frozen_chunk);
        const Clock::time_point comm_start = Clock::now();
        SeparateTensorAccount exchange_buffers;
        row.bytes_sent = ExchangeGradients(model, PlanCollectives(contributors, world), tree);
        comm_s = SecondsSince(comm_start);
        for (int b = 0; b < blocks; ++b) {
          if (active[b]) {
            state.gradient(b).mul_(counts[b] / GradientDivisor(scale, counts[b], world));
          }
        }
      }
      images = torch::Tensor();
      labels = torch::Tensor();
      const double activation_mb =
          static_cast<double>(PeakTensorBytes() - tensor_bytes_before) / kMiB;
      const double exchange_mb = static_cast<double>(PeakSeparateTensorBytes()) / kMiB;
      const TcpByteCounters wire_after = ReadTcpByteCounters();
      const bool track_path = velocity && coherence;
      std::vector<double> step_lengths;
      state.Step(lr, active, lr_factor, track_path ? &step_lengths : nullptr);
      if (track_path) velocity->AddPath(step_lengths);

      row.rank = rank;
      row.epoch = epoch;
      row.iteration = global_iteration;
      row.phase = std::all_of(counts.begin(), counts.end(), [&](int c) { return c == world; })
                      ? "full"
                      : "spb";
      row.depth = depths[rank];
      row.contributors = JoinInts(counts);
      row.lr = lr;
      row.forward_s = step.forward_s;
      row.backward_s = step.backward_s;
      row.comm_s = comm_s;
      row.iter_s = SecondsSince(start);
      row.wire_sent = wire_after.sent - wire_before.sent;
      row.wire_received = wire_after.received - wire_before.received;
      row.loss = step.loss;
      row.activation_mb = activation_mb;
      row.exchange_mb = exchange_mb;
      row.state_mb = static_cast<double>(state.StateBytes()) / kMiB;
      row.peak_rss_mb = PeakRssMb();
      rows.push_back(row);
      if (progress.Due()) {
        progress.Report(
            static_cast<double>(global_iteration + 1 - first_iteration),
            static_cast<double>(total_iterations - first_iteration),
            "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(options.epochs) +
                ", iteration " + std::to_string(global_iteration + 1) + "/" +
                std::to_string(total_iterations) + ", loss " + FormatFixed(step.loss, 4));
      }

      if (controller && controller->IsProbeIteration(global_iteration)) {
        std::vector<int64_t> decided(blocks, 0);
        if (rank == 0) {
          if (!velocity->has_snapshot() || controller->IsWarmupEnd(global_iteration)) {
            velocity->Snapshot();
          } else {
            std::vector<double> signal = velocity->TakeVelocity();
            if (coherence) signal = velocity->coherence();
            AdaptiveDecision decision = controller->Observe(global_iteration, signal);
            record.decisions.push_back(decision);
            progress.Final("iteration " + std::to_string(global_iteration + 1) + ": contributors " +
                           JoinInts(decision.contributors) + " (" + decision.reason + ")");
          }
          for (int b = 0; b < blocks; ++b) decided[b] = controller->contributors()[b];
        }
        if (world > 1) {
          std::vector<torch::Tensor> buffer = {torch::tensor(decided, torch::kInt64)};
          world_group->broadcast(buffer)->wait();
          for (int b = 0; b < blocks; ++b) decided[b] = buffer[0][b].item<int64_t>();
        }
        std::vector<int> next(decided.begin(), decided.end());
        if (next != controller->contributors()) {
          controller->SetContributors(next);
        }
      }
      if (options.eval_every > 0 && (global_iteration + 1) % options.eval_every == 0 &&
          it + 1 < record.iterations_per_epoch) {
        AverageBatchNormStatistics(model, world, world_group, staging);
        const double accuracy =
            Evaluate(model, data.test, eval_subset, device, rank, world, world_group);
        record.evals.push_back(
            {global_iteration + 1, epoch, static_cast<int>(eval_subset.size()), accuracy});
      }
    }
    AverageBatchNormStatistics(model, world, world_group, staging);
    if (rank == options.corrupt_rank && epoch == options.corrupt_at_epoch) {
      torch::NoGradGuard no_grad;
      model->parameters()[0].view({-1})[0].add_(1e-3);
    }
    VerifyReplicas(model, rank, world, epoch, world_group);
    const double accuracy =
        Evaluate(model, data.test, everything, device, rank, world, world_group);
    record.accuracies.push_back(accuracy);
    record.evals.push_back(
        {(epoch + 1) * record.iterations_per_epoch, epoch, data.test.count, accuracy});
    const double last_loss = rows.empty() ? 0.0 : rows.back().loss;
    GatherRows(*store, rank, world, epoch, &rows, &all_rows);
    if (rank == 0) {
      // The checkpoint is one file of the epoch's output set: a kill at any moment leaves the
      // folder wholly at this epoch or wholly at the previous one
      // (RuntimeTrainCli.KillDuringTheOutputCommitLeavesAConsistentFolder).
      record.rows = all_rows;
      const std::string checkpoint_bytes =
          SerializeCheckpoint(spec, model, state, epoch + 1, record.accuracies, world,
                              controller ? &*controller : nullptr, velocity ? &*velocity : nullptr);
      if (epoch == options.kill_at_commit_epoch) ArmCommitKill(options.kill_at_commit_step);
      WriteTrainOutputs(options, plan, world, record, checkpoint_bytes);
      record.rows.clear();
      progress.Final("epoch " + std::to_string(epoch + 1) + "/" + std::to_string(options.epochs) +
                     ": test accuracy " + FormatFixed(record.accuracies.back(), 4) +
                     ", last loss " + FormatFixed(last_loss, 4));
    }
  }
}

int RunTrain(const TrainOptions& options) {
  // Fail fast, before any worker starts.
  ValidateTrainOptions(options);
  ValidateOptions(options, ParseSpbPlan(options.spb));
  if (options.rank < 0) RequireResumable(options, options.workers);
  const int status = options.rank < 0 ? LaunchLocalWorkers(options.workers, options.timeout_s + 5)
                                      : RunRank(options);
  if (status == 0 && options.rank <= 0) PrintTrainSummary(options.out);
  return status;
}

}  // namespace jigsaw
