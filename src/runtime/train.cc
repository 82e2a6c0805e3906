// `jigsaw train`: the SPB data-parallel training loop, its outputs and checkpoints, and the local
// launcher that starts one worker process per rank.
#include <gloo/common/error.h>
#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "core/error.h"
#include "core/limits.h"
#include "core/output.h"
#include "core/result_set.h"
#include "core/rng.h"
#include "core/stats.h"
#include "runtime/launcher.h"
#include "runtime/runtime.h"
#include "runtime/spb_worker.h"
#include "runtime/train_worker.h"
#include "spb/cost_model.h"
#include "spb/iteration_estimate.h"

namespace jigsaw {
namespace {

using Clock = std::chrono::steady_clock;

struct IterationRow {
  int rank = 0;
  int epoch = 0;
  int64_t iteration = 0;
  int depth = 0;
  double forward_s = 0;
  double backward_s = 0;
  double comm_s = 0;
  double iter_s = 0;
  double bytes_sent = 0;
  double wire_bytes = 0;
  double loss = 0;
  double retained_mb = 0;
  double peak_rss_mb = 0;
};

constexpr char kCsvHeader[] =
    "rank,epoch,iteration,depth,forward_s,backward_s,comm_s,iter_s,bytes_sent,wire_bytes,loss,"
    "retained_mb,"
    "peak_rss_mb";

std::string FormatRow(const IterationRow& r) {
  return std::to_string(r.rank) + "," + std::to_string(r.epoch) + "," +
         std::to_string(r.iteration) + "," + std::to_string(r.depth) + "," +
         FormatFixed(r.forward_s, 6) + "," + FormatFixed(r.backward_s, 6) + "," +
         FormatFixed(r.comm_s, 6) + "," + FormatFixed(r.iter_s, 6) + "," +
         FormatFixed(r.bytes_sent, 0) + "," + FormatFixed(r.wire_bytes, 0) + "," +
         FormatFixed(r.loss, 5) + "," + FormatFixed(r.retained_mb, 3) + "," +
         FormatFixed(r.peak_rss_mb, 1);
}

IterationRow ParseRow(const std::string& line) {
  std::istringstream in(line);
  IterationRow r;
  char comma;
  in >> r.rank >> comma >> r.epoch >> comma >> r.iteration >> comma >> r.depth >> comma >>
      r.forward_s >> comma >> r.backward_s >> comma >> r.comm_s >> comma >> r.iter_s >> comma >>
      r.bytes_sent >> comma >> r.wire_bytes >> comma >> r.loss >> comma >> r.retained_mb >> comma >>
      r.peak_rss_mb;
  return r;
}

// Bytes this process has passed to write-like system calls, Gloo's socket writes included
// (/proc/self/io "wchar"); nothing else writes during the gradient exchange.
double BytesWritten() {
  std::ifstream in("/proc/self/io");
  std::string key;
  double value = 0;
  while (in >> key >> value) {
    if (key == "wchar:") return value;
  }
  return 0;
}

double PeakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Datasets {
  ImageSet train;
  ImageSet test;
};

Datasets LoadData(const DataOptions& options) {
  if (options.dataset == "fashion-mnist") {
    return {LoadFashionMnist(options.data_dir, true), LoadFashionMnist(options.data_dir, false)};
  }
  if (options.dataset == "synthetic") {
    return {MakeSyntheticImageSet(options.synthetic_train, options.synthetic_size,
                                  options.synthetic_classes, 7, 1),
            MakeSyntheticImageSet(options.synthetic_test, options.synthetic_size,
                                  options.synthetic_classes, 7, 2)};
  }
  throw UsageError("--dataset '" + options.dataset + "': expected fashion-mnist or synthetic");
}

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

// Test accuracy of the (replicated) model; each rank scores every world-th sample.
double Evaluate(BlockModel& model, const ImageSet& test, int rank, int world, GlooGroups& groups) {
  torch::NoGradGuard no_grad;
  double correct = 0;
  double total = 0;
  std::vector<int64_t> chunk;
  for (int64_t i = rank; i < test.count; i += world) {
    chunk.push_back(i);
    if (chunk.size() == 1000 || i + world >= test.count) {
      torch::Tensor predicted = model->forward(BatchImages(test, chunk)).argmax(1);
      correct += predicted.eq(BatchLabels(test, chunk)).sum().item<double>();
      total += static_cast<double>(chunk.size());
      chunk.clear();
    }
  }
  if (world > 1) {
    std::vector<torch::Tensor> counts = {torch::tensor({correct, total}, torch::kFloat64)};
    groups.Get(Everyone(world)).allreduce(counts)->wait();
    correct = counts[0][0].item<double>();
    total = counts[0][1].item<double>();
  }
  return total > 0 ? correct / total : 0;
}

// Makes every replica start from rank 0's parameters.
void BroadcastParameters(BlockModel& model, int world, GlooGroups& groups) {
  if (world < 2) return;
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> flat;
  for (const torch::Tensor& p : model->parameters()) flat.push_back(p.reshape({-1}));
  std::vector<torch::Tensor> buffer = {torch::cat(flat)};
  groups.Get(Everyone(world)).broadcast(buffer)->wait();
  int64_t offset = 0;
  for (torch::Tensor p : model->parameters()) {
    p.copy_(buffer[0].narrow(0, offset, p.numel()).view_as(p));
    offset += p.numel();
  }
}

std::string CheckpointPath(const TrainOptions& options) { return options.out + "/checkpoint.pt"; }

void SaveCheckpoint(const std::string& path, BlockModel& model, torch::optim::SGD& optimizer,
                    int epochs_done, const std::vector<double>& accuracies, int world) {
  torch::serialize::OutputArchive archive;
  torch::serialize::OutputArchive model_archive;
  model->save(model_archive);
  archive.write("model", model_archive);
  torch::serialize::OutputArchive optimizer_archive;
  optimizer.save(optimizer_archive);
  archive.write("optimizer", optimizer_archive);
  archive.write("epochs_done", torch::tensor(static_cast<int64_t>(epochs_done)));
  archive.write("world", torch::tensor(static_cast<int64_t>(world)));
  torch::Tensor accuracy_tensor =
      torch::zeros({static_cast<int64_t>(accuracies.size())}, torch::kFloat64);
  for (size_t i = 0; i < accuracies.size(); ++i) accuracy_tensor[i] = accuracies[i];
  archive.write("accuracies", accuracy_tensor);
  const std::string temp = path + ".tmp";
  archive.save_to(temp);
  std::filesystem::rename(temp, path);
}

int LoadCheckpoint(const std::string& path, BlockModel& model, torch::optim::SGD& optimizer,
                   std::vector<double>* accuracies) {
  torch::serialize::InputArchive archive;
  archive.load_from(path);
  torch::serialize::InputArchive model_archive;
  archive.read("model", model_archive);
  model->load(model_archive);
  torch::serialize::InputArchive optimizer_archive;
  archive.read("optimizer", optimizer_archive);
  optimizer.load(optimizer_archive);
  torch::Tensor epochs_done;
  archive.read("epochs_done", epochs_done);
  torch::Tensor accuracy_tensor;
  archive.read("accuracies", accuracy_tensor);
  accuracies->clear();
  for (int64_t i = 0; i < accuracy_tensor.numel(); ++i) {
    accuracies->push_back(accuracy_tensor[i].item<double>());
  }
  return static_cast<int>(epochs_done.item<int64_t>());
}

// Workers of the run that wrote the checkpoint; 0 for checkpoints older than issue 12.
int CheckpointWorld(const std::string& path) {
  torch::serialize::InputArchive archive;
  archive.load_from(path);
  torch::Tensor world;
  return archive.try_read("world", world) ? static_cast<int>(world.item<int64_t>()) : 0;
}

// --resume continues a run with the same number of workers only: the data order, the plan's
// depths and the iterations per epoch all depend on it.
void RequireSameWorld(const TrainOptions& options, int world) {
  const std::string checkpoint = CheckpointPath(options);
  if (!options.resume || !std::filesystem::exists(checkpoint)) return;
  const int saved = CheckpointWorld(checkpoint);
  if (saved > 0 && saved != world) {
    throw UsageError("--resume: " + checkpoint + " was written by a run with " +
                     std::to_string(saved) + " workers, this run has " + std::to_string(world) +
                     " (expected --workers " + std::to_string(saved) +
                     ", or a new --out without --resume)");
  }
}

// Rows of earlier runs (kept on --resume) for epochs before `first_epoch`.
std::vector<std::string> EarlierRows(const std::string& path, int first_epoch) {
  std::vector<std::string> rows;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (!line.empty() && ParseRow(line).epoch < first_epoch) rows.push_back(line);
  }
  return rows;
}

// After each epoch rank 0 collects every rank's rows of the epoch through the store (keys are
// per epoch and rank, so nothing is overwritten) and appends them to *all_rows in iteration order.
void GatherRows(c10d::Store& store, int rank, int world, int epoch, std::vector<IterationRow>* rows,
                std::vector<IterationRow>* all_rows) {
  const std::string prefix = "rows/" + std::to_string(epoch) + "/";
  if (rank != 0) {
    std::string text;
    for (const IterationRow& r : *rows) text += FormatRow(r) + "\n";
    store.set(prefix + std::to_string(rank), std::vector<uint8_t>(text.begin(), text.end()));
    rows->clear();
    return;
  }
  std::vector<IterationRow> epoch_rows = std::move(*rows);
  rows->clear();
  for (int k = 1; k < world; ++k) {
    std::vector<uint8_t> bytes = store.get(prefix + std::to_string(k));
    std::istringstream in(std::string(bytes.begin(), bytes.end()));
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty()) epoch_rows.push_back(ParseRow(line));
    }
  }
  std::stable_sort(
      epoch_rows.begin(), epoch_rows.end(), [](const IterationRow& a, const IterationRow& b) {
        return a.iteration != b.iteration ? a.iteration < b.iteration : a.rank < b.rank;
      });
  all_rows->insert(all_rows->end(), epoch_rows.begin(), epoch_rows.end());
}

struct RunInfo {
  int blocks = 0;
  int64_t iterations_per_epoch = 0;
  int first_epoch = 0;
  std::vector<int64_t> parameter_bytes;
  std::vector<double> accuracies;
};

Json Predictions(const TrainOptions& options, const SpbPlan& plan, int world, const RunInfo& info) {
  ModelProfile profile = ReadProfile(options.profile);
  if (static_cast<int>(profile.blocks.size()) != info.blocks) {
    throw InputError(options.profile, 0,
                     "profile has " + std::to_string(profile.blocks.size()) +
                         " blocks, the model has " + std::to_string(info.blocks));
  }
  std::vector<double> backward;
  std::vector<double> bytes;
  for (int t = 0; t < PlanPeriod(plan, world); ++t) {
    std::vector<int> depths = WorkerDepths(plan, info.blocks, world, t);
    std::vector<Collective> collectives =
        PlanCollectives(BlockContributors(depths, info.blocks), world);
    for (int k = 0; k < world; ++k) {
      backward.push_back(PredictBackwardS(profile, depths[k], options.batch));
      bytes.push_back(PredictBytesSent(profile, collectives, k));
    }
  }
  Json predictions = {{"profile", options.profile},
                      {"predicted_mean_backward_s", RoundTo(Mean(backward), 6)},
                      {"predicted_bytes_sent_per_iter", RoundTo(Mean(bytes), 0)}};
  // The whole iteration needs a communication model for more than one worker
  // (bench/spb_estimate.sh compares it with the measured iterations).
  if (world == 1 || !profile.comm.empty()) {
    try {
      const SpbIterationEstimate estimate =
          EstimateSpbIteration(profile, profile.comm, world, plan, options.batch);
      predictions["predicted_iter_s"] = RoundTo(estimate.iteration_s, 6);
    } catch (const std::exception&) {
      // A comm model without the collective kinds this plan uses: no whole-iteration estimate.
    }
  }
  return predictions;
}

void WriteOutputs(const TrainOptions& options, const SpbPlan& plan, int world, const RunInfo& info,
                  const std::vector<std::string>& earlier, const std::vector<IterationRow>& rows) {
  std::string csv = std::string(kCsvHeader) + "\n";
  for (const std::string& line : earlier) csv += line + "\n";
  for (const IterationRow& r : rows) csv += FormatRow(r) + "\n";
  ResultSet results(options.out);  // iterations.csv and summary.json of one epoch, as a unit
  results.Add("iterations.csv", csv);

  auto mean_of = [&](auto field, int rank) {
    std::vector<double> values;
    for (const IterationRow& r : rows) {
      if (rank < 0 || r.rank == rank) values.push_back(r.*field);
    }
    return Mean(values);
  };
  Json per_worker = Json::array();
  double peak_rss_mb = 0;
  for (int k = 0; k < world; ++k) {
    double peak = 0;
    for (const IterationRow& r : rows) {
      if (r.rank == k) peak = std::max(peak, r.peak_rss_mb);
    }
    peak_rss_mb = std::max(peak_rss_mb, peak);
    per_worker.push_back(
        {{"rank", k},
         {"mean_forward_s", RoundTo(mean_of(&IterationRow::forward_s, k), 6)},
         {"mean_backward_s", RoundTo(mean_of(&IterationRow::backward_s, k), 6)},
         {"mean_comm_s", RoundTo(mean_of(&IterationRow::comm_s, k), 6)},
         {"bytes_sent_per_iter", RoundTo(mean_of(&IterationRow::bytes_sent, k), 0)},
         {"wire_bytes_per_iter", RoundTo(mean_of(&IterationRow::wire_bytes, k), 0)},
         {"mean_retained_mb", RoundTo(mean_of(&IterationRow::retained_mb, k), 3)},
         {"peak_rss_mb", RoundTo(peak, 1)}});
  }
  Json summary;
  summary["model"] = options.model;
  summary["dataset"] = options.data.dataset;
  summary["spb"] = plan.text;
  summary["workers"] = world;
  summary["blocks"] = info.blocks;
  summary["batch_per_worker"] = options.batch;
  summary["epochs"] = options.epochs;
  summary["epochs_done"] = info.accuracies.size();
  summary["iterations_per_epoch"] = info.iterations_per_epoch;
  summary["resumed_from_epoch"] = info.first_epoch;
  summary["test_accuracy"] = info.accuracies.empty() ? 0.0 : RoundTo(info.accuracies.back(), 4);
  Json epochs = Json::array();
  for (double a : info.accuracies) epochs.push_back(RoundTo(a, 4));
  summary["epoch_test_accuracy"] = epochs;
  summary["mean_iter_s"] = RoundTo(mean_of(&IterationRow::iter_s, -1), 6);
  summary["mean_forward_s"] = RoundTo(mean_of(&IterationRow::forward_s, -1), 6);
  summary["mean_backward_s"] = RoundTo(mean_of(&IterationRow::backward_s, -1), 6);
  summary["mean_comm_s"] = RoundTo(mean_of(&IterationRow::comm_s, -1), 6);
  summary["bytes_sent_per_iter"] = RoundTo(mean_of(&IterationRow::bytes_sent, -1), 0);
  summary["wire_bytes_per_iter"] = RoundTo(mean_of(&IterationRow::wire_bytes, -1), 0);
  summary["mean_retained_mb"] = RoundTo(mean_of(&IterationRow::retained_mb, -1), 3);
  summary["peak_rss_mb"] = RoundTo(peak_rss_mb, 1);
  summary["parameter_bytes_per_block"] = info.parameter_bytes;
  if (!options.profile.empty()) summary.update(Predictions(options, plan, world, info));
  summary["per_worker"] = per_worker;
  results.Add("summary.json", summary.dump(2) + "\n");
  results.Commit();
}

std::pair<std::string, int> SplitHostPort(const std::string& address) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size() ||
      address.find_first_not_of("0123456789", colon + 1) != std::string::npos) {
    throw UsageError("--master '" + address + "': expected HOST:PORT");
  }
  int port = std::stoi(address.substr(colon + 1));
  if (port < 1 || port > 65535) throw UsageError("--master '" + address + "': port out of range");
  return {address.substr(0, colon), port};
}

// The documented ranges of the options (docs/limits.md); UsageError naming the option.
void ValidateTrainOptions(const TrainOptions& options) {
  if (options.rank < 0) RequireCountInRange("--workers", options.workers, 1, kMaxLocalWorkers);
  RequireCountInRange("--epochs", options.epochs, 1, 1'000'000);
  RequireCountInRange("--batch", options.batch, 1, kMaxBatchSize);
  RequireCountInRange("--max-iters-per-epoch", options.max_iters_per_epoch, 0, 1'000'000'000);
  RequireOptionInRange("--lr", options.lr, 0, 1e3);
  RequireOptionInRange("--momentum", options.momentum, 0, 1);
  RequireCountInRange("--threads", options.threads, 1, 1024);
  RequireOptionInRange("--timeout-s", options.timeout_s, 0.01, 1e6);
}

// Exits without unwinding: Gloo's threads may still be blocked on the dead peer.
[[noreturn]] void FailWorker(const TrainOptions& options, const std::string& message) {
  std::fprintf(stderr, "jigsaw: train: worker %d: %s\n", options.rank, message.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

int RunRank(const TrainOptions& options) {
  if (options.world < 1 || options.rank >= options.world) {
    throw UsageError("--rank must be in [0, --world)");
  }
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(options.timeout_s * 1000));
  try {
    c10::intrusive_ptr<c10d::Store> store;
    bool local = true;
    if (!options.rendezvous_file.empty()) {
      // Local workers (the launcher's): a file in the launcher's private folder, so the
      // rendezvous listens on no network interface at all (TCPStore binds every interface).
      store = c10::make_intrusive<c10d::FileStore>(options.rendezvous_file, options.world);
      store->setTimeout(timeout);
    } else {
      auto [host, port] = SplitHostPort(options.master);
      c10d::TCPStoreOptions store_options;
      store_options.port = static_cast<uint16_t>(port);
      store_options.isServer = options.rank == 0;
      store_options.numWorkers = options.world;
      store_options.timeout = timeout;
      store = c10::make_intrusive<c10d::TCPStore>(host, store_options);
      local = host == "127.0.0.1" || host == "localhost";
    }
    const std::string gloo_host =
        !options.gloo_host.empty() ? options.gloo_host : (local ? "127.0.0.1" : "");
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
  torch::set_num_threads(options.threads);
  torch::manual_seed(options.seed);
  const SpbPlan plan = ParseSpbPlan(options.spb);
  if (options.batch < 1 || options.epochs < 1) {
    throw UsageError("--batch and --epochs must be >= 1");
  }
  Datasets data = LoadData(options.data);
  BlockModel model = MakeModel(options.model, data.train.channels, data.train.height,
                               data.train.width, data.train.classes);
  torch::optim::SGD optimizer(model->parameters(),
                              torch::optim::SGDOptions(options.lr).momentum(options.momentum));
  RunInfo info;
  info.blocks = model->num_blocks();
  info.parameter_bytes = BlockParameterBytes(model);
  WorkerDepths(plan, info.blocks, world, 0);  // validates the plan against the model

  std::vector<std::vector<int>> groups = PlanGroups(plan, info.blocks, world);
  if (world > 1 && !std::binary_search(groups.begin(), groups.end(), Everyone(world))) {
    groups.push_back(Everyone(world));
    std::sort(groups.begin(), groups.end());
  }
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(options.timeout_s * 1000));
  GlooGroups gloo(store, rank, groups, host, timeout);

  if (rank == 0) MakeDirectories(options.out);
  const std::string checkpoint = CheckpointPath(options);
  RequireSameWorld(options, world);
  if (options.resume && std::filesystem::exists(checkpoint)) {
    info.first_epoch = LoadCheckpoint(checkpoint, model, optimizer, &info.accuracies);
    if (rank == 0 && !options.quiet) {
      std::fprintf(stderr, "train: resuming after epoch %d from %s\n", info.first_epoch,
                   checkpoint.c_str());
    }
  }
  BroadcastParameters(model, world, gloo);
  std::vector<std::string> earlier;
  if (rank == 0 && info.first_epoch > 0) {
    earlier = EarlierRows(options.out + "/iterations.csv", info.first_epoch);
  }

  info.iterations_per_epoch = data.train.count / (int64_t{world} * options.batch);
  if (options.max_iters_per_epoch > 0) {
    info.iterations_per_epoch =
        std::min<int64_t>(info.iterations_per_epoch, options.max_iters_per_epoch);
  }
  if (info.iterations_per_epoch < 1) {
    throw UsageError("the training set is smaller than one global batch (workers x --batch)");
  }
  std::vector<IterationRow> rows;      // this rank, this epoch
  std::vector<IterationRow> all_rows;  // rank 0: every rank, every epoch of this run
  for (int epoch = info.first_epoch; epoch < options.epochs; ++epoch) {
    std::vector<int64_t> order = EpochOrder(data.train.count, options.seed, epoch);
    for (int64_t it = 0; it < info.iterations_per_epoch; ++it) {
      const int64_t global_iteration = epoch * info.iterations_per_epoch + it;
      if (rank == options.kill_rank && global_iteration == options.kill_at_iter) {
        raise(options.stall_instead_of_kill ? SIGSTOP : SIGKILL);
      }
      const Clock::time_point start = Clock::now();
      const int64_t first = (it * world + rank) * options.batch;
      std::vector<int64_t> indices(order.begin() + first, order.begin() + first + options.batch);
      std::vector<int> depths = WorkerDepths(plan, info.blocks, world, global_iteration);
      SpbStepResult step = ComputeSpbGradients(model, BatchImages(data.train, indices),
                                               BatchLabels(data.train, indices), depths[rank]);
      const Clock::time_point comm_start = Clock::now();
      const double written_before = BytesWritten();
      double bytes = ExchangeGradients(
          model, PlanCollectives(BlockContributors(depths, info.blocks), world), gloo);
      const double comm_s = SecondsSince(comm_start);
      const double wire_bytes = BytesWritten() - written_before;
      optimizer.step();
      rows.push_back({rank, epoch, global_iteration, depths[rank], step.forward_s, step.backward_s,
                      comm_s, SecondsSince(start), bytes, wire_bytes, step.loss,
                      step.retained_bytes / (1024.0 * 1024.0), PeakRssMb()});
    }
    info.accuracies.push_back(Evaluate(model, data.test, rank, world, gloo));
    const double last_loss = rows.empty() ? 0.0 : rows.back().loss;
    GatherRows(*store, rank, world, epoch, &rows, &all_rows);
    if (rank == 0) {
      // Outputs first: a crash in between leaves rows of a newer epoch, which --resume drops.
      WriteOutputs(options, plan, world, info, earlier, all_rows);
      SaveCheckpoint(checkpoint, model, optimizer, epoch + 1, info.accuracies, world);
      if (!options.quiet) {
        std::fprintf(stderr, "train: epoch %d/%d: test accuracy %.4f, last loss %.4f\n", epoch + 1,
                     options.epochs, info.accuracies.back(), last_loss);
      }
    }
  }
}

int RunTrain(const TrainOptions& options) {
  // Fail fast, before any worker starts.
  ParseSpbPlan(options.spb);
  ValidateTrainOptions(options);
  if (options.rank < 0) RequireSameWorld(options, options.workers);
  return options.rank < 0 ? LaunchLocalWorkers(options.workers, options.timeout_s + 5)
                          : RunRank(options);
}

}  // namespace jigsaw
