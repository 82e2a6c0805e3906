// `jigsaw fl`: federated learning (FedAvg, FedProx, Auxo on either) with simulated clients
// (src/fl). Writes OUT/summary.json, OUT/rounds.csv, OUT/clients.csv and OUT/rejected.csv (the
// updates the aggregation rejected, update_guard.h).
#include <malloc.h>
#include <sys/resource.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "core/data_files.h"
#include "core/error.h"
#include "core/output.h"
#include "core/progress.h"
#include "core/units.h"
#include "fl/batched_training.h"
#include "fl/blobs.h"
#include "fl/fl_remote.h"
#include "fl/leaf_reader.h"
#include "fl/partition.h"
#include "fl/simulation.h"
#include "runtime/image_data.h"

namespace jigsaw {
namespace {

constexpr char kFemnistDir[] = "datasets/femnist";

struct FlCommandOptions {
  FlOptions run;
  std::string dataset = "femnist";
  std::string data_dir;
  std::string algorithm = "fedavg";
  std::string split_epochs = "50,100";
  int max_clients = 0;
  std::string client_list;  // femnist: keep only these writers, in the file's order
  int clients = 100;
  int groups = 4;
  double alpha = 0.3;
  int samples_per_client = 100;
  int test_per_client = 50;
  int known_clients = 0;
  int min_cohort_clients = 0;
  double blob_separation = 10.0;
  // Adaptive split rules added to the reference's (cohort_table.h); 0 turns each off.
  double min_side_separation = 3.0;
  int rebipartition_epochs = 50;
  // Adaptive split test: the sides' size ratio must lie in (1 / this, this) (the reference: 2).
  double max_side_ratio = 2.0;
  int threads = 1;
  std::string out = "out/fl";
  bool quiet = false;
  bool torch_profile = false;  // LibTorch's per-operator profile of the simulation
  // Real mode (--serve).
  bool serve = false;
  std::string listen = "127.0.0.1";
  int port = 0;
  int expect_clients = 0;  // 0: the whole population
  std::string join_timeout = "60s";
  std::string round_timeout = "60s";
  std::string port_file;
  std::string token;
  std::string token_file;
};

struct FlClientCommandOptions {
  FlCommandOptions population;
  std::string server;
  std::string client_id;
  std::string connect_timeout = "30s";
  std::string idle_timeout = "10min";
  int die_after_rounds = 0;
  std::string token;
  std::string token_file;
};

double DurationOption(const std::string& text, const std::string& name) {
  double seconds = 0;
  if (!ParseDurationSeconds(text, &seconds, true) || !(seconds > 0) || seconds > 86400) {
    throw UsageError(name + " '" + text + "': expected a duration in (0, 1 day], e.g. 30s");
  }
  return seconds;
}

std::string DefaultFemnistDir() { return SharedDataPath(kFemnistDir); }

std::vector<int> ParseEpochList(const std::string& text) {
  std::vector<int> result;
  if (text.empty() || text == "adaptive") return result;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    try {
      size_t used = 0;
      const int value = std::stoi(item, &used);
      if (used != item.size() || value < 1) throw std::invalid_argument(item);
      result.push_back(value);
    } catch (const std::exception&) {
      throw UsageError("--split-epochs '" + text +
                       "': expected positive integers separated by commas, or 'adaptive'");
    }
  }
  return result;
}

// Client indices separated by ';' (a CSV cell).
std::string JoinLost(const std::vector<int>& clients) {
  std::string text;
  for (int c : clients) text += (text.empty() ? "" : ";") + std::to_string(c);
  return text;
}

// %.6g: losses and distances of rejected updates span many magnitudes (and may be nan or inf).
std::string FormatShortest(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  return text;
}

FederatedData FromImageSets(const ImageSet& train, const ImageSet& test) {
  FederatedData data;
  data.height = train.height;
  data.width = train.width;
  data.classes = train.classes;
  data.train_pixels = train.pixels;
  data.test_pixels = test.pixels;
  return data;
}

void RequireFemnistForClientList(const FlCommandOptions& options) {
  if (!options.client_list.empty() && options.dataset != "femnist") {
    throw UsageError("--client-list selects LEAF writers: it needs --dataset femnist");
  }
}

FederatedData LoadPopulation(const FlCommandOptions& options) {
  RequireFemnistForClientList(options);
  if (options.dataset == "femnist") {
    if (!options.client_list.empty() && options.max_clients > 0) {
      throw UsageError("--client-list and --max-clients both choose the writers: give one");
    }
    FederatedData data = ReadFemnist(
        options.data_dir.empty() ? DefaultFemnistDir() : options.data_dir, options.max_clients);
    if (!options.client_list.empty()) KeepListedClients(options.client_list, &data);
    return data;
  }
  if (options.clients < 1 || options.clients > 100000) {
    throw UsageError("--clients must be in [1, 100000]");
  }
  const std::string dir =
      options.data_dir.empty() ? "/usr/share/datasets/fashion-mnist" : options.data_dir;
  const ImageSet train = LoadFashionMnist(dir, true);
  const ImageSet test = LoadFashionMnist(dir, false);
  FederatedData data = FromImageSets(train, test);
  const std::vector<int> train_labels(train.labels.begin(), train.labels.end());
  const std::vector<int> test_labels(test.labels.begin(), test.labels.end());
  if (options.dataset == "fashion-dirichlet") {
    const auto train_parts = DirichletPartition(train_labels, train.classes, options.clients,
                                                options.alpha, options.run.seed);
    // Each client's test set follows its training label mix: test samples of its classes in
    // proportion (a Dirichlet partition of the test set with the same seed would not match).
    std::vector<std::vector<int>> test_by_class(test.classes);
    for (size_t i = 0; i < test_labels.size(); ++i) test_by_class[test_labels[i]].push_back(i);
    Rng rng(options.run.seed + 17);
    for (int c = 0; c < options.clients; ++c) {
      ClientData client;
      client.id = "client" + std::to_string(c);
      for (int i : train_parts[c]) {
        client.train_index.push_back(i);
        client.train_label.push_back(train_labels[i]);
      }
      const size_t want = std::min<size_t>(options.test_per_client, train_parts[c].size());
      for (size_t s = 0; s < want; ++s) {
        const int y = train_labels[train_parts[c][rng.UniformInt(train_parts[c].size())]];
        const int i = test_by_class[y][rng.UniformInt(test_by_class[y].size())];
        client.test_index.push_back(i);
        client.test_label.push_back(y);
      }
      data.clients.push_back(std::move(client));
    }
    return data;
  }
  if (options.dataset == "fashion-groups") {
    const GroupedClients grouped =
        PermutationGroups(train_labels, test_labels, train.classes, options.clients, options.groups,
                          options.samples_per_client, options.test_per_client, options.run.seed);
    for (int c = 0; c < options.clients; ++c) {
      ClientData client;
      client.id = "client" + std::to_string(c);
      client.group = grouped.group[c];
      client.train_index = grouped.train_index[c];
      client.train_label = grouped.train_label[c];
      client.test_index = grouped.test_index[c];
      client.test_label = grouped.test_label[c];
      data.clients.push_back(std::move(client));
    }
    return data;
  }
  throw UsageError("--dataset '" + options.dataset +
                   "': expected femnist, fashion-dirichlet, fashion-groups or blobs");
}

// The opt-in cohort rules (not in the reference) a run used, for both summaries.
void AddOptInCohortRules(const CohortOptions& cohort, Json* json) {
  (*json)["gate_first_split"] = cohort.gate_first_split;
  (*json)["median_rewards"] = cohort.median_rewards;
  (*json)["pooled_sides"] = cohort.pooled_sides;
}

Json ResultJson(const FlCommandOptions& options, const FederatedData& data,
                const FlResult& result) {
  Json json;
  json["dataset"] = options.dataset;
  json["algorithm"] = (options.run.auxo ? "auxo+" : "") + options.algorithm;
  json["clients"] = data.clients.size();
  json["rounds"] = options.run.rounds;
  json["participants_per_round"] = options.run.participants;
  json["model"] = options.run.model;
  json["seed"] = options.run.seed;
  const LocalTrainOptions& local = options.run.local;
  json["lr"] = local.lr;
  json["final_lr"] = LearningRateOfRound(local, options.run.rounds);
  json["lr_decay"] = local.lr_decay;
  json["lr_decay_rounds"] = local.lr_decay_rounds;
  json["min_lr"] = local.min_lr;
  json["momentum"] = local.momentum;
  json["weight_decay"] = local.weight_decay;
  const RoundRecord* last = nullptr;
  for (const RoundRecord& r : result.rounds) {
    if (r.evaluated) last = &r;
  }
  if (last != nullptr) {
    json["final_mean_accuracy"] = RoundTo(last->mean_accuracy, 4);
    json["final_worst10_accuracy"] = RoundTo(last->worst10_accuracy, 4);
    json["final_accuracy_stddev"] = RoundTo(last->accuracy_stddev, 4);
  }
  json["cohorts"] = result.cohorts;
  if (result.ari >= -0.5) {
    json["ari"] = RoundTo(result.ari, 4);
    json["purity"] = RoundTo(result.purity, 4);
  }
  json["target_accuracy"] = options.run.target_accuracy;
  // null when the target was not reached (or none was set); docs/outputs.md.
  const bool reached = result.rounds_to_target >= 0;
  json["rounds_to_target"] = reached ? Json(result.rounds_to_target) : Json();
  json["wall_to_target_s"] = reached ? Json(RoundTo(result.wall_to_target_s, 3)) : Json();
  json["simulated_to_target_s"] = reached ? Json(RoundTo(result.simulated_to_target_s, 3)) : Json();
  json["wall_s"] = RoundTo(result.wall_s, 3);
  json["mode"] = options.serve ? "serve" : "simulation";
  json["weight_change"] = RoundTo(result.weight_change, 6);
  int lost = 0;
  for (const RoundRecord& r : result.rounds) lost += static_cast<int>(r.lost_clients.size());
  json["lost_updates"] = lost;
  int rejected = 0;
  for (const RoundRecord& r : result.rounds) rejected += static_cast<int>(r.rejected.size());
  json["rejected_updates"] = rejected;
  json["late_signatures_option"] = options.run.late_signatures;
  AddOptInCohortRules(options.run.cohort, &json);
  json["proportional_slots"] = options.run.proportional_slots;
  int late = 0;
  for (const RoundRecord& r : result.rounds) late += r.late_signatures;
  json["late_signatures"] = late;
  json["rounds_per_s"] = RoundTo(result.wall_s > 0 ? options.run.rounds / result.wall_s : 0.0, 3);
  json["local_training"] =
      options.run.batched_training && SupportsBatchedTraining(options.run.model) && !options.serve
          ? "batched"
          : "sequential";
  // The whole process (data loading included), user + system: comparable on a shared machine.
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double cpu_s = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 +
                       usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6;
  json["cpu_s"] = RoundTo(cpu_s, 3);
  return json;
}

// FedScale's playground: no training, the clients' points are their signatures.
int RunBlobs(FlCommandOptions options) {
  if (options.clients < 2 || options.clients > 1000000 || options.groups < 1 ||
      options.groups > options.clients) {
    throw UsageError("blobs: --clients in [2, 1000000] and --groups in [1, clients]");
  }
  options.run.cohort.split_epochs = ParseEpochList(options.split_epochs);
  if (!(options.min_side_separation >= 0) || options.rebipartition_epochs < 0) {
    throw UsageError("--min-side-separation and --rebipartition-epochs must be >= 0");
  }
  if (!(options.max_side_ratio > 1.0)) throw UsageError("--max-side-ratio must be above 1");
  options.run.cohort.max_side_ratio = options.max_side_ratio;
  options.run.cohort.seed = options.run.seed;
  options.run.cohort.min_side_separation = options.min_side_separation;
  options.run.cohort.rebipartition_epochs = options.rebipartition_epochs;
  options.run.cohort.known_clients =
      options.known_clients > 0 ? options.known_clients : std::max(1, options.clients / 20);
  options.run.cohort.min_cohort_clients =
      options.min_cohort_clients > 0
          ? options.min_cohort_clients
          : static_cast<int>(100.0 * options.clients / options.run.participants);
  const BlobPopulation population = MakeBlobs(options.clients, options.groups, 2.0, 2,
                                              options.blob_separation, 100 + options.run.seed);
  const BlobDiscoveryResult result =
      RunBlobDiscovery(population, options.run.cohort, options.run.rounds, options.run.participants,
                       options.run.seed);
  MakeDirectories(options.out);
  Json json;
  json["dataset"] = "blobs";
  json["clients"] = options.clients;
  json["blobs"] = options.groups;
  json["epochs"] = options.run.rounds;
  json["per_epoch"] = options.run.participants;
  json["seed"] = options.run.seed;
  json["cohorts"] = result.cohorts;
  json["ari"] = RoundTo(result.ari, 4);
  json["purity"] = RoundTo(result.purity, 4);
  json["split_epochs"] = result.split_epochs;
  json["min_side_separation"] = options.min_side_separation;
  json["rebipartition_epochs"] = options.rebipartition_epochs;
  json["max_side_ratio"] = options.max_side_ratio;
  AddOptInCohortRules(options.run.cohort, &json);
  WriteJsonFile(options.out + "/summary.json", json);
  std::string clients = "client,group,cohort\n";
  for (int c = 0; c < options.clients; ++c) {
    clients += std::to_string(c) + "," + std::to_string(population.blob[c]) + "," +
               std::to_string(result.assignment[c]) + "\n";
  }
  WriteFileAtomically(options.out + "/clients.csv", clients);
  std::printf("%s\n", json.dump(2).c_str());
  return 0;
}

int RunFl(FlCommandOptions options) {
  if (options.serve && options.dataset == "blobs") {
    throw UsageError("--serve trains a model: blobs has none (use a fashion-* or femnist dataset)");
  }
  RequireFemnistForClientList(options);  // blobs never loads a population
  if (options.dataset == "blobs") return RunBlobs(options);
  if (options.run.late_signatures && !options.run.auxo) {
    throw UsageError("--late-signatures feeds Auxo's cohort table: it needs --auxo");
  }
  if (options.run.proportional_slots && !options.run.auxo) {
    throw UsageError("--proportional-slots shares slots among Auxo's cohorts: it needs --auxo");
  }
  if (options.run.cohort.pooled_sides && !options.run.auxo) {
    throw UsageError("--pooled-sides draws Auxo's cohort sides: it needs --auxo");
  }
  if (options.run.late_signatures && options.serve) {
    throw UsageError(
        "--late-signatures is simulation only (real mode does not wait for stragglers)");
  }
  if (options.algorithm == "fedavg") {
    options.run.local.prox_mu = 0.0;
  } else if (options.algorithm != "fedprox") {
    throw UsageError("--algorithm '" + options.algorithm + "': expected fedavg or fedprox");
  } else if (!(options.run.local.prox_mu > 0)) {
    throw UsageError("--mu must be > 0 for fedprox");
  }
  if (options.run.local.local_steps < 1 || options.run.local.batch < 1 ||
      !(options.run.local.lr > 0)) {
    throw UsageError("--local-steps, --batch and --lr must be positive");
  }
  const LocalTrainOptions& local = options.run.local;
  if (!(local.momentum >= 0 && local.momentum < 1))
    throw UsageError("--momentum must be in [0, 1)");
  if (!(local.weight_decay >= 0) || !std::isfinite(local.weight_decay)) {
    throw UsageError("--weight-decay must be a finite number >= 0");
  }
  if (!(local.lr_decay > 0 && local.lr_decay <= 1))
    throw UsageError("--lr-decay must be in (0, 1]");
  if (local.lr_decay_rounds < 1) throw UsageError("--lr-decay-rounds must be at least 1");
  if (!(local.min_lr >= 0) || !std::isfinite(local.min_lr)) {
    throw UsageError("--min-lr must be a finite number >= 0");
  }
  if (!(options.run.max_update_ratio >= 0) || !std::isfinite(options.run.max_update_ratio)) {
    throw UsageError("--max-update-ratio must be a finite number >= 0");
  }
  if (options.threads < 1 || options.threads > 256) throw UsageError("--threads in [1, 256]");
  options.run.cohort.split_epochs = ParseEpochList(options.split_epochs);
  if (!(options.min_side_separation >= 0) || options.rebipartition_epochs < 0) {
    throw UsageError("--min-side-separation and --rebipartition-epochs must be >= 0");
  }
  if (!(options.max_side_ratio > 1.0)) throw UsageError("--max-side-ratio must be above 1");
  options.run.cohort.max_side_ratio = options.max_side_ratio;
  // Batched training uses the threads for whole stacks of clients (one LibTorch thread each);
  // sequential training for LibTorch's intra-operator parallelism.
  if (options.run.batched_training && SupportsBatchedTraining(options.run.model)) {
    options.run.local.workers = options.threads;
    torch::set_num_threads(1);
  } else {
    torch::set_num_threads(options.threads);
  }
  // Training allocates and frees the same large tensors every step: keep freed memory in the heap
  // (up to the largest mmap threshold, 32 MB) instead of unmapping it and faulting it in again.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  const FederatedData data = LoadPopulation(options);
  const int n = static_cast<int>(data.clients.size());
  // The reference's adaptive-split constants: known_clt = N / 20, min_clt = 100 / (K / N).
  options.run.cohort.min_side_separation = options.min_side_separation;
  options.run.cohort.rebipartition_epochs = options.rebipartition_epochs;
  options.run.cohort.known_clients =
      options.known_clients > 0 ? options.known_clients : std::max(1, n / 20);
  options.run.cohort.min_cohort_clients =
      options.min_cohort_clients > 0
          ? options.min_cohort_clients
          : static_cast<int>(100.0 * n / std::max(1, options.run.participants));
  options.run.cohort.seed = options.run.seed;
  MakeDirectories(options.out);
  Progress progress("fl", !options.quiet);
  progress.Final(std::to_string(n) + " clients, " + std::to_string(options.run.rounds) +
                 " rounds of " + std::to_string(options.run.participants) + " participants, " +
                 (options.run.auxo ? "auxo+" : "") + options.algorithm);
  const auto on_round = [&](const RoundRecord& r) {
    if (progress.Due() || r.round == options.run.rounds) {
      std::string line = "round " + std::to_string(r.round) + "/" +
                         std::to_string(options.run.rounds) + ", " + std::to_string(r.cohorts) +
                         " cohort(s), loss " + FormatFixed(r.train_loss, 3);
      if (r.evaluated) line += ", mean acc " + FormatFixed(r.mean_accuracy, 3);
      progress.Report(r.round, options.run.rounds, line + ", " + FormatFixed(r.wall_s, 1) + " s");
    }
    for (const RejectedUpdate& u : r.rejected) {
      progress.Final("round " + std::to_string(r.round) + ", cohort " + std::to_string(u.cohort) +
                     ": rejected client " + std::to_string(u.client) + "'s update (loss " +
                     FormatShortest(u.loss) + ", distance " + FormatShortest(u.norm) +
                     " vs reference " + FormatShortest(u.reference_norm) + ")");
    }
  };
  FlResult result;
  if (!options.serve) {
    std::unique_ptr<torch::autograd::profiler::RecordProfile> profile;
    if (options.torch_profile) {
      profile = std::make_unique<torch::autograd::profiler::RecordProfile>(options.out +
                                                                           "/torch_profile.json");
    }
    result = RunFlSimulation(data, options.run, on_round);
    profile.reset();  // writes the trace
  } else {
    FlServeOptions serve;
    serve.host = options.listen;
    serve.port = options.port;
    serve.expected_clients = options.expect_clients > 0 ? options.expect_clients : n;
    if (serve.expected_clients > n) throw UsageError("--expect-clients exceeds the population");
    serve.join_timeout_s = DurationOption(options.join_timeout, "--join-timeout");
    serve.round_timeout_s = DurationOption(options.round_timeout, "--round-timeout");
    serve.token = wire::ResolveToken(options.token, options.token_file, true);
    const int64_t num_weights =
        FlModel(options.run.model, data.height, data.width, data.classes, options.run.seed)
            .num_weights();
    FlServer server(serve, n, num_weights, options.run.local);
    const auto log = [&](const std::string& line) { progress.Final(line); };
    // Announced even with --quiet: with --port 0 this is how clients learn the port.
    std::fprintf(stderr, "fl: serving on %s:%d\n", options.listen.c_str(), server.port());
    std::fflush(stderr);
    if (!options.port_file.empty()) {
      WriteFileAtomically(options.port_file, std::to_string(server.port()) + "\n");
    }
    if (server.WaitForClients(log) == 0) {
      throw std::runtime_error("no client joined within --join-timeout " + options.join_timeout);
    }
    // Who takes part is decided by who is connected: every joined client is online and selected.
    options.run.population.availability = 1.0;
    options.run.population.overcommit = 1.0;
    result = RunFlRounds(
        data, options.run,
        [&](FlModel&, int round, const torch::Tensor& global, const std::vector<int>& clients) {
          return server.Train(round, global, clients, log);
        },
        on_round, [&](int client) { return server.IsConnected(client); });
    server.Finish();
  }
  std::string csv =
      "round,cohorts,participants,dropped,train_loss,simulated_s,wall_s,mean_accuracy,"
      "worst10_accuracy,accuracy_stddev,rejected,lost_clients\n";
  std::string rejected = "round,cohort,client,loss,distance,reference_distance\n";
  for (const RoundRecord& r : result.rounds) {
    csv +=
        std::to_string(r.round) + "," + std::to_string(r.cohorts) + "," +
        std::to_string(r.participants) + "," + std::to_string(r.dropped) + "," +
        FormatFixed(r.train_loss, 4) + "," + FormatFixed(r.simulated_s, 3) + "," +
        FormatFixed(r.wall_s, 3) + "," +
        (r.evaluated ? FormatFixed(r.mean_accuracy, 4) + "," + FormatFixed(r.worst10_accuracy, 4) +
                           "," + FormatFixed(r.accuracy_stddev, 4)
                     : std::string(",,")) +
        "," + std::to_string(r.rejected.size()) + "," + JoinLost(r.lost_clients) + "\n";
    for (const RejectedUpdate& u : r.rejected) {
      rejected += std::to_string(r.round) + "," + std::to_string(u.cohort) + "," +
                  data.clients[u.client].id + "," + FormatShortest(u.loss) + "," +
                  FormatShortest(u.norm) + "," + FormatShortest(u.reference_norm) + "\n";
    }
  }
  WriteFileAtomically(options.out + "/rounds.csv", csv);
  WriteFileAtomically(options.out + "/rejected.csv", rejected);
  std::string clients = "client,group,cohort,accuracy\n";
  for (int c = 0; c < n; ++c) {
    // group: empty where the data set has no ground truth (FEMNIST).
    const int group = data.clients[c].group;
    clients += data.clients[c].id + "," + (group >= 0 ? std::to_string(group) : "") + "," +
               std::to_string(result.cohort_of_client[c]) + "," +
               FormatFixed(result.client_accuracy[c], 4) + "\n";
  }
  WriteFileAtomically(options.out + "/clients.csv", clients);
  const Json summary = ResultJson(options, data, result);
  WriteJsonFile(options.out + "/summary.json", summary);
  std::printf("%s\n", summary.dump(2).c_str());
  return 0;
}

int RunFlClientCommand(const FlClientCommandOptions& options) {
  const FlCommandOptions& population = options.population;
  if (population.dataset == "blobs") throw UsageError("fl-client: blobs has no model to train");
  if (population.threads < 1 || population.threads > 256) {
    throw UsageError("--threads in [1, 256]");
  }
  if (options.die_after_rounds < 0) throw UsageError("--die-after-rounds must be >= 0");
  FlClientOptions client;
  wire::ParseHostPort(options.server, "--server", &client.host, &client.port);
  client.seed = population.run.seed;
  client.connect_timeout_s = DurationOption(options.connect_timeout, "--connect-timeout");
  client.idle_timeout_s = DurationOption(options.idle_timeout, "--idle-timeout");
  client.die_after_rounds = options.die_after_rounds;
  client.token = wire::ResolveToken(options.token, options.token_file, false);
  torch::set_num_threads(population.threads);
  const FederatedData data = LoadPopulation(population);
  client.client = -1;
  for (size_t c = 0; c < data.clients.size(); ++c) {
    if (data.clients[c].id == options.client_id) client.client = static_cast<int>(c);
  }
  if (client.client < 0) {
    size_t used = 0;
    try {
      client.client = std::stoi(options.client_id, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != options.client_id.size() || client.client < 0 ||
        client.client >= static_cast<int>(data.clients.size())) {
      throw UsageError("--client-id '" + options.client_id + "': no such client id, and not an " +
                       "index in [0, " + std::to_string(data.clients.size()) + ")");
    }
  }
  Progress progress("fl-client " + options.client_id, true);
  const int rounds = RunFlClient(data, population.run.model, client,
                                 [&](const std::string& line) { progress.Final(line); });
  progress.Final("done after " + std::to_string(rounds) + " rounds");
  return 0;
}

// The options that determine the population and the model: a client process must be given the
// same ones as the server to hold the same partition.
void AddPopulationOptions(CLI::App* command, FlCommandOptions* options) {
  command
      ->add_option("--dataset", options->dataset,
                   "femnist (LEAF JSON), fashion-dirichlet (label skew), fashion-groups "
                   "(label permutation per ground-truth group) or blobs (FedScale's "
                   "playground: cohort discovery only, --clients points in --groups blobs, "
                   "--participants per epoch, --rounds epochs)")
      ->capture_default_str();
  command->add_option(
      "--data-dir", options->data_dir,
      "LEAF folder with train/ and test/ (default " + SharedDataPathHelp(kFemnistDir) +
          ") "
          "or Fashion-MNIST IDX folder (default /usr/share/datasets/fashion-mnist)");
  command->add_option("--max-clients", options->max_clients, "femnist: keep the first N (0: all)")
      ->capture_default_str();
  command->add_option("--client-list", options->client_list,
                      "femnist: keep only the writers listed in this file (one LEAF writer id a "
                      "line, '#' comments), in its order (default: all)");
  command->add_option("--clients", options->clients, "fashion-*: population size")
      ->capture_default_str();
  command->add_option("--groups", options->groups, "fashion-groups: ground-truth groups")
      ->capture_default_str();
  command->add_option("--alpha", options->alpha, "fashion-dirichlet: Dirichlet concentration")
      ->capture_default_str();
  command
      ->add_option("--samples-per-client", options->samples_per_client,
                   "fashion-groups: training samples per client")
      ->capture_default_str();
  command->add_option("--test-per-client", options->test_per_client, "fashion-*: test samples")
      ->capture_default_str();
  command->add_option("--model", options->run.model, "mlp, lenet or resnet")->capture_default_str();
  command
      ->add_option("--seed", options->run.seed,
                   "seed of the population, the sampling and the model initialisation")
      ->capture_default_str();
  command
      ->add_option("--threads", options->threads,
                   "CPU threads: stacks of clients trained in parallel (batched training), "
                   "else LibTorch intra-op threads")
      ->capture_default_str();
}

}  // namespace

void AddFlCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<FlCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "fl", "Federated learning with simulated clients: FedAvg, FedProx, Auxo cohorts (LibTorch)");
  AddPopulationOptions(command, options.get());
  command->add_option("--algorithm", options->algorithm, "fedavg or fedprox")
      ->capture_default_str();
  command->add_option("--mu", options->run.local.prox_mu, "FedProx proximal coefficient")
      ->capture_default_str();
  command->add_flag(
      "--sequential-training", [options](int64_t) { options->run.batched_training = false; },
      "train a round's clients one after the other instead of batched (mlp, lenet)");
  command->add_flag("--torch-profile", options->torch_profile,
                    "write LibTorch's per-operator trace of the simulation to "
                    "<out>/torch_profile.json (slows the run down; bench/fl_profile.py sums it)");
  command->add_flag("--auxo", options->run.auxo, "Auxo cohort discovery on top of the algorithm");
  command
      ->add_option("--split-epochs", options->split_epochs,
                   "Auxo: cohort epochs at which cohorts split (comma list), or 'adaptive'")
      ->capture_default_str();
  command
      ->add_option("--auxo-start-round", options->run.auxo_start_round,
                   "auxo: first round whose signatures update the cohort table")
      ->capture_default_str();
  command->add_flag("--late-signatures", options->run.late_signatures,
                    "Auxo, not in the reference: stragglers still train (their updates arrive too "
                    "late to be averaged) and their and guard-rejected clients' signatures inform "
                    "the cohort table");
  command
      ->add_option("--known-clients", options->known_clients,
                   "Auxo adaptive split: side size bar (0: clients / 20, as the reference)")
      ->capture_default_str();
  command
      ->add_option("--min-cohort-clients", options->min_cohort_clients,
                   "Auxo adaptive split: cohort size bar (0: 100 x clients / participants)")
      ->capture_default_str();
  command
      ->add_option("--min-side-separation", options->min_side_separation,
                   "Auxo adaptive split: after the first split, sides must be this separated "
                   "(centroid distance / projected spread; 0: off, as the reference)")
      ->capture_default_str();
  command
      ->add_option("--rebipartition-epochs", options->rebipartition_epochs,
                   "Auxo adaptive split: redraw a cohort's sides after this many cohort epochs "
                   "without a split (0: never, as the reference)")
      ->capture_default_str();
  command->add_flag("--proportional-slots", options->run.proportional_slots,
                    "Auxo, not in the reference (which splits them equally): each cohort's share "
                    "of a round's participants is proportional to its affiliated clients");
  command->add_flag("--gate-first-split", options->run.cohort.gate_first_split,
                    "Auxo adaptive split, not in the reference: the --min-side-separation gate "
                    "applies to the first split too");
  command->add_flag("--median-rewards", options->run.cohort.median_rewards,
                    "Auxo, not in the reference: main rewards measure distances to the "
                    "coordinate-wise median of the known clients' signatures instead of their "
                    "mean (a minority fragment of another cluster no longer stays)");
  command->add_flag("--pooled-sides", options->run.cohort.pooled_sides,
                    "Auxo, not in the reference: a cohort's sides are drawn by 2-means over the "
                    "latest signatures of all of its known clients (once there are more than the "
                    "side size bar), not over one round's participants");
  command
      ->add_option("--max-side-ratio", options->max_side_ratio,
                   "Auxo adaptive split: after the first split, the sides' size ratio must lie "
                   "in (1/R, R) (the reference: 2, which refuses a 1-vs-2 split of 3 equal groups)")
      ->capture_default_str();
  command
      ->add_option("--blob-separation", options->blob_separation,
                   "blobs: least distance between blob centres (std 2)")
      ->capture_default_str();
  command->add_option("--rounds", options->run.rounds, "training rounds")->capture_default_str();
  command->add_option("--participants", options->run.participants, "kept participants per round")
      ->capture_default_str();
  command
      ->add_option("--local-steps", options->run.local.local_steps,
                   "local SGD steps per client and round")
      ->capture_default_str();
  command->add_option("--batch", options->run.local.batch, "local batch size")
      ->capture_default_str();
  command->add_option("--lr", options->run.local.lr, "learning rate of round 1")
      ->capture_default_str();
  command
      ->add_option("--lr-decay", options->run.local.lr_decay,
                   "multiply the lr by this every --lr-decay-rounds rounds (1: constant; the "
                   "reference, FedScale: 0.98)")
      ->capture_default_str();
  command
      ->add_option("--lr-decay-rounds", options->run.local.lr_decay_rounds,
                   "rounds between lr decays (FedScale: 10)")
      ->capture_default_str();
  command->add_option("--min-lr", options->run.local.min_lr, "the decayed lr stops at this")
      ->capture_default_str();
  command
      ->add_option("--momentum", options->run.local.momentum,
                   "local SGD momentum, restarted every round (FedScale: 0.9)")
      ->capture_default_str();
  command
      ->add_option("--weight-decay", options->run.local.weight_decay,
                   "local SGD weight decay (L2; FedScale: 5e-4)")
      ->capture_default_str();
  command
      ->add_option(
          "--max-update-ratio", options->run.max_update_ratio,
          "reject a local update farther from its cohort's model than this many times "
          "the round's median distance, or the cohort's previous median where smaller (0: reject "
          "only non-finite updates)")
      ->capture_default_str();
  command
      ->add_option("--availability", options->run.population.availability,
                   "stationary share of clients online")
      ->capture_default_str();
  command
      ->add_option("--session-rounds", options->run.population.session_rounds,
                   "mean online session, in rounds")
      ->capture_default_str();
  command
      ->add_option("--overcommit", options->run.population.overcommit,
                   "sampled / kept participants (stragglers dropped)")
      ->capture_default_str();
  command
      ->add_option("--speed-sigma", options->run.population.speed_sigma,
                   "log-normal spread of device speeds")
      ->capture_default_str();
  command
      ->add_option("--eval-every", options->run.eval_every,
                   "evaluate the clients every N rounds (and after the last)")
      ->capture_default_str();
  command
      ->add_option("--target", options->run.target_accuracy,
                   "mean accuracy for rounds/time-to-target (0: none)")
      ->capture_default_str();
  command->add_option("--out", options->out, "output folder")->capture_default_str();
  command->add_flag("--quiet", options->quiet, "no progress on stderr");
  command->add_flag("--serve", options->serve,
                    "real mode: train with `jigsaw fl-client` processes over TCP instead of "
                    "simulated clients");
  command->add_option("--listen", options->listen, "--serve: address to listen on")
      ->capture_default_str();
  command->add_option("--port", options->port, "--serve: port (0: any free one, announced)")
      ->capture_default_str();
  command
      ->add_option("--port-file", options->port_file,
                   "--serve: also write the chosen port to this file")
      ->capture_default_str();
  command
      ->add_option("--expect-clients", options->expect_clients,
                   "--serve: clients to wait for before round 1 (0: the whole population)")
      ->capture_default_str();
  command
      ->add_option("--join-timeout", options->join_timeout,
                   "--serve: start with whoever joined after this long")
      ->capture_default_str();
  command
      ->add_option("--round-timeout", options->round_timeout,
                   "--serve: a cohort's updates not back after this long are dropped")
      ->capture_default_str();
  command->add_option("--token", options->token,
                      "--serve: the job's secret token (32 hex digits; prefer --token-file)");
  command->add_option("--token-file", options->token_file,
                      "--serve: file holding the token (created with a random one if missing)");
  command->callback([options, action] { *action = [options] { return RunFl(*options); }; });
}

void AddFlClientCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<FlClientCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "fl-client",
      "A federated-learning client process for `jigsaw fl --serve` (LibTorch); give it the "
      "server's population options");
  AddPopulationOptions(command, &options->population);
  command->add_option("--server", options->server, "HOST:PORT of `jigsaw fl --serve`")->required();
  command
      ->add_option("--client-id", options->client_id,
                   "which client of the population this is: its id (e.g. client3, a FEMNIST "
                   "writer) or its index")
      ->required();
  command
      ->add_option("--connect-timeout", options->connect_timeout,
                   "give up connecting to the server after this long")
      ->capture_default_str();
  command
      ->add_option("--idle-timeout", options->idle_timeout,
                   "longest wait for the server's next message")
      ->capture_default_str();
  command->add_option("--die-after-rounds", options->die_after_rounds,
                      "fault injection: SIGKILL itself when round N + 1's model arrives");
  command->add_option("--token", options->token, "the job's secret token (32 hex digits)");
  command->add_option("--token-file", options->token_file, "file holding the job's token");
  command->callback(
      [options, action] { *action = [options] { return RunFlClientCommand(*options); }; });
}

}  // namespace jigsaw
