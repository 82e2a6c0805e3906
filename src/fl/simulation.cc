#include "fl/simulation.h"

#include <ATen/record_function.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/error.h"
#include "fl/batched_training.h"
#include "fl/cluster_math.h"

namespace jigsaw {

std::vector<double> EvaluateClients(FlModel& model, const FederatedData& data,
                                    const std::vector<torch::Tensor>& weights_of_cohort,
                                    const std::vector<int>& cohort_of_client) {
  RECORD_USER_SCOPE("fl::evaluation");
  std::vector<double> accuracy(data.clients.size(), 0.0);
  for (size_t m = 0; m < weights_of_cohort.size(); ++m) {
    for (size_t c = 0; c < data.clients.size(); ++c) {
      if (cohort_of_client[c] != static_cast<int>(m) || data.clients[c].test_index.empty()) {
        continue;
      }
      accuracy[c] =
          static_cast<double>(CountCorrect(model, weights_of_cohort[m], data, data.clients[c])) /
          data.clients[c].test_index.size();
    }
  }
  return accuracy;
}

void AccuracySummary(const std::vector<double>& accuracy, double* mean, double* worst10,
                     double* stddev) {
  *mean = *worst10 = *stddev = 0.0;
  if (accuracy.empty()) return;
  std::vector<double> sorted = accuracy;
  std::sort(sorted.begin(), sorted.end());
  for (double a : sorted) *mean += a / sorted.size();
  const size_t worst = std::max<size_t>(1, sorted.size() / 10);
  for (size_t i = 0; i < worst; ++i) *worst10 += sorted[i] / worst;
  for (double a : sorted) *stddev += (a - *mean) * (a - *mean) / sorted.size();
  *stddev = std::sqrt(*stddev);
}

uint64_t LocalTrainingSeed(uint64_t seed, int round, int client) {
  return seed * 1000003ULL + static_cast<uint64_t>(round) * 65537ULL +
         static_cast<uint64_t>(client);
}

FlResult RunFlSimulation(const FederatedData& data, const FlOptions& options,
                         const std::function<void(const RoundRecord&)>& on_round) {
  const CohortTrainer in_process = [&](FlModel& model, int round, const torch::Tensor& global,
                                       const std::vector<int>& clients) {
    RECORD_USER_SCOPE("fl::local_training");
    const LocalTrainOptions local = RoundTrainOptions(options.local, round);
    CohortUpdates result;
    if (options.batched_training && SupportsBatchedTraining(model.name())) {
      std::vector<const ClientData*> members;
      std::vector<uint64_t> seeds;
      for (int c : clients) {
        members.push_back(&data.clients[c]);
        seeds.push_back(LocalTrainingSeed(options.seed, round, c));
      }
      result.trained = clients;
      result.updates = TrainLocallyBatched(model, global, data, members, local, seeds);
      return result;
    }
    for (int c : clients) {
      result.trained.push_back(c);
      result.updates.push_back(TrainLocally(model, global, data, data.clients[c], local,
                                            LocalTrainingSeed(options.seed, round, c)));
    }
    return result;
  };
  return RunFlRounds(data, options, in_process, on_round);
}

namespace {

bool AllFinite(const torch::Tensor& weights) { return torch::isfinite(weights).all().item<bool>(); }

// Appends the clients and signatures of `updates`' finite updates: all of them when `only` is
// null (the stragglers'), else only those of the clients listed in `only`.
void AddLateSignatures(const CohortUpdates& updates, const std::vector<RejectedUpdate>* only,
                       const torch::Tensor& global, std::vector<int>* clients, Rows* signatures) {
  for (size_t i = 0; i < updates.updates.size(); ++i) {
    const int client = updates.trained[i];
    if (only != nullptr &&
        std::none_of(only->begin(), only->end(),
                     [client](const RejectedUpdate& r) { return r.client == client; })) {
      continue;
    }
    const LocalUpdate& update = updates.updates[i];
    if (!std::isfinite(update.loss) || !AllFinite(update.weights)) continue;
    clients->push_back(client);
    signatures->push_back(SignatureOf(global, update.weights));
  }
}

}  // namespace

std::vector<int> CohortSlots(int participants, const std::vector<int>& sizes, bool proportional) {
  const int cohorts = static_cast<int>(sizes.size());
  if (!proportional) return std::vector<int>(cohorts, std::max(1, participants / cohorts));
  long total = 0;
  for (int size : sizes) total += size;
  if (total <= 0) return CohortSlots(participants, sizes, false);
  std::vector<int> slots(cohorts);
  std::vector<std::pair<long, int>> remainders;  // (-remainder, cohort): largest first
  int given = 0;
  for (int m = 0; m < cohorts; ++m) {
    const long share = static_cast<long>(participants) * sizes[m];
    slots[m] = static_cast<int>(share / total);
    given += slots[m];
    remainders.emplace_back(-(share % total), m);
  }
  std::sort(remainders.begin(), remainders.end());
  for (int i = 0; given < participants; ++i, ++given) ++slots[remainders[i % cohorts].second];
  for (int m = 0; m < cohorts; ++m) {
    if (slots[m] >= 1) continue;
    const int richest =
        static_cast<int>(std::max_element(slots.begin(), slots.end()) - slots.begin());
    if (slots[richest] > 1) --slots[richest];
    slots[m] = 1;
  }
  return slots;
}

FlResult RunFlRounds(const FederatedData& data, const FlOptions& options,
                     const CohortTrainer& trainer,
                     const std::function<void(const RoundRecord&)>& on_round,
                     const std::function<bool(int)>& reachable) {
  const int num_clients = static_cast<int>(data.clients.size());
  if (num_clients < 1) throw UsageError("the population has no clients");
  if (options.rounds < 1 || options.participants < 1) {
    throw UsageError("--rounds and --participants must be at least 1");
  }
  if (options.eval_every < 1) throw UsageError("--eval-every must be at least 1");
  const auto start = std::chrono::steady_clock::now();
  FlModel model(options.model, data.height, data.width, data.classes, options.seed);
  std::vector<torch::Tensor> cohort_weights = {model.GetWeights()};
  std::vector<double> cohort_median_norm = {0.0};  // last kept median update distance (guard)
  const torch::Tensor initial_weights = cohort_weights[0].clone();
  ClientPopulation population(num_clients, options.population, options.seed * 7919 + 1);
  CohortTable table(num_clients, options.cohort);
  const std::vector<int> truth = data.groups();
  FlResult result;
  double simulated = 0.0;
  for (int round = 1; round <= options.rounds; ++round) {
    population.Advance();
    const std::vector<int> online = population.Online();
    const int cohorts = static_cast<int>(cohort_weights.size());
    std::vector<int> sizes(cohorts, 0);
    for (int c = 0; c < num_clients; ++c) ++sizes[options.auxo ? table.affiliation(c) : 0];
    const std::vector<int> quota =
        CohortSlots(options.participants, sizes, options.auxo && options.proportional_slots);
    RoundRecord record;
    record.round = round;
    double round_time = 0.0;
    double loss_sum = 0.0;
    std::vector<torch::Tensor> next_weights = cohort_weights;
    std::vector<std::pair<int, int>> splits;  // (parent, child)
    for (int m = 0; m < cohorts; ++m) {
      std::vector<int> candidates;
      std::vector<double> work;
      for (int c : online) {
        if (options.auxo && table.affiliation(c) != m) continue;
        if (reachable && !reachable(c)) continue;
        candidates.push_back(c);
        work.push_back(static_cast<double>(options.local.local_steps) * options.local.batch);
      }
      const Selection selection = population.Select(candidates, work, quota[m]);
      if (selection.kept.empty()) continue;
      round_time = std::max(round_time, selection.round_time);
      record.participants += static_cast<int>(selection.kept.size());
      record.dropped += static_cast<int>(selection.dropped.size());
      CohortUpdates trained = trainer(model, round, cohort_weights[m], selection.kept);
      record.participants -= static_cast<int>(trained.lost.size());
      record.dropped += static_cast<int>(trained.lost.size());
      record.lost_clients.insert(record.lost_clients.end(), trained.lost.begin(),
                                 trained.lost.end());
      if (trained.updates.empty()) continue;
      const ScreenedUpdates screened =
          ScreenUpdates(cohort_weights[m], trained.updates, trained.trained, m,
                        options.max_update_ratio, cohort_median_norm[m]);
      if (screened.kept_median_norm > 0) cohort_median_norm[m] = screened.kept_median_norm;
      record.participants -= static_cast<int>(screened.rejected.size());
      record.dropped += static_cast<int>(screened.rejected.size());
      record.rejected.insert(record.rejected.end(), screened.rejected.begin(),
                             screened.rejected.end());
      if (screened.kept.empty()) continue;
      const bool update_table = options.auxo && round >= options.auxo_start_round;
      Rows signatures;
      std::vector<LocalUpdate> updates;
      std::vector<int> updated_clients;
      for (int i : screened.kept) {
        const LocalUpdate& update = trained.updates[i];
        loss_sum += update.loss;
        if (update_table) signatures.push_back(SignatureOf(cohort_weights[m], update.weights));
        updates.push_back(update);
        updated_clients.push_back(trained.trained[i]);
      }
      next_weights[m] = FedAvg(updates);
      if (update_table) {
        std::vector<int> table_clients = updated_clients;
        if (options.late_signatures) {
          const int before = static_cast<int>(signatures.size());
          AddLateSignatures(trained, &screened.rejected, cohort_weights[m], &table_clients,
                            &signatures);
          if (!selection.dropped.empty()) {
            const CohortUpdates late = trainer(model, round, cohort_weights[m], selection.dropped);
            AddLateSignatures(late, nullptr, cohort_weights[m], &table_clients, &signatures);
          }
          record.late_signatures += static_cast<int>(signatures.size()) - before;
        }
        const Rows centered = CenterRows(signatures);
        const int child = table.Update(m, table_clients, NormalizeRows(centered), centered,
                                       round <= options.auxo_stop_round);
        if (child >= 0) splits.emplace_back(m, child);
      }
    }
    cohort_weights = next_weights;
    for (const auto& [parent, child] : splits) {
      if (static_cast<int>(cohort_weights.size()) != child) {
        throw std::logic_error("cohort table and models disagree on the cohort count");
      }
      cohort_weights.push_back(cohort_weights[parent].clone());
      cohort_median_norm.push_back(cohort_median_norm[parent]);
    }
    simulated += round_time;
    record.cohorts = static_cast<int>(cohort_weights.size());
    record.train_loss = record.participants > 0 ? loss_sum / record.participants : 0.0;
    record.simulated_s = simulated;
    record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (round % options.eval_every == 0 || round == options.rounds) {
      std::vector<int> cohort_of(num_clients, 0);
      if (options.auxo) cohort_of = table.Assignments();
      result.client_accuracy = EvaluateClients(model, data, cohort_weights, cohort_of);
      result.cohort_of_client = cohort_of;
      record.evaluated = true;
      AccuracySummary(result.client_accuracy, &record.mean_accuracy, &record.worst10_accuracy,
                      &record.accuracy_stddev);
      record.wall_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (options.target_accuracy > 0 && result.rounds_to_target < 0 &&
          record.mean_accuracy >= options.target_accuracy) {
        result.rounds_to_target = round;
        result.wall_to_target_s = record.wall_s;
        result.simulated_to_target_s = record.simulated_s;
      }
    }
    result.rounds.push_back(record);
    if (on_round) on_round(record);
  }
  result.cohorts = static_cast<int>(cohort_weights.size());
  result.weight_change = (cohort_weights[0] - initial_weights).norm().item<double>();
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (data.has_groups()) {
    result.ari = AdjustedRandIndex(result.cohort_of_client, truth);
    result.purity = Purity(result.cohort_of_client, truth);
  }
  return result;
}

}  // namespace jigsaw
