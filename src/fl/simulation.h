// `jigsaw fl`: federated training with clients simulated in-process.
//
// Every round: the population's online states advance; without Auxo, `participants` clients are
// selected from the online ones (over-commitment, stragglers dropped; population.h), each trains
// locally from the global model (FedAvg, or FedProx with prox_mu > 0) and the kept updates are
// averaged. With Auxo there is one model per cohort: online clients take part in the cohort they
// are affiliated with (CohortTable), each cohort gets participants / cohorts of the round's
// slots (or, with proportional_slots, a share by its size; CohortSlots), is averaged on its own,
// and from auxo_start_round on its participants' signatures update the cohort table (centered for
// the main rewards, centered and L2-normalised for the sides; side labelling stops after round 500
// as in the reference). A split copies the parent's model. With late_signatures (not in the
// reference), the round's stragglers also train from their cohort's model, and their updates, like
// those the guard rejected with finite weights and loss, never reach the average but their
// signatures join the kept clients' in the table update. Every eval_every rounds (and after the
// last) each client is evaluated on its test samples with the model of its assigned cohort
// (CohortTable::AssignedCohort): mean accuracy over clients, mean of the worst 10% of clients, and
// the spread (standard deviation) of per-client accuracy, the model bias.
#ifndef JIGSAW_FL_SIMULATION_H_
#define JIGSAW_FL_SIMULATION_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fl/cohort_table.h"
#include "fl/federated_data.h"
#include "fl/local_training.h"
#include "fl/population.h"
#include "fl/update_guard.h"

namespace jigsaw {

struct FlOptions {
  std::string model = "lenet";
  int rounds = 100;
  int participants = 10;
  LocalTrainOptions local;
  bool auxo = false;
  int auxo_start_round = 0;
  int auxo_stop_round = 500;
  CohortOptions cohort;
  PopulationOptions population;
  int eval_every = 10;
  double target_accuracy = 0.0;  // 0: none
  // Updates farther from their cohort's model than this many times the round's median distance
  // (or the cohort's previous one, where smaller) are rejected (update_guard.h); <= 0: only
  // non-finite updates are.
  double max_update_ratio = 100.0;
  // Auxo, not in the reference: the signatures of the round's stragglers (trained anyway, as if
  // their updates arrived after the round closed) and of finite guard-rejected updates inform the
  // cohort table; none of them is averaged. Costs the stragglers' local training.
  bool late_signatures = false;
  // Auxo, not in the reference (false: participants / cohorts each, the reference's
  // schedule_plan): each cohort's share of the round's participants is proportional to the number
  // of clients affiliated with it (CohortSlots).
  bool proportional_slots = false;
  uint64_t seed = 1;
  // Simulation: train a cohort's clients of a round together (batched_training.h) when the model
  // supports it; false: one after the other with TrainLocally (same weights up to float rounding).
  bool batched_training = true;
};

// Each cohort's participant slots for a round. Equal: max(1, participants / cohorts) each.
// Proportional: participants x size / total size by largest remainders (ties: the lower cohort),
// then every cohort below 1 slot takes one from the cohort with the most; sums to participants
// when participants >= cohorts. `sizes` are the affiliated clients per cohort.
std::vector<int> CohortSlots(int participants, const std::vector<int>& sizes, bool proportional);

struct RoundRecord {
  int round = 0;
  int cohorts = 1;
  int participants = 0;
  int dropped = 0;
  double train_loss = 0.0;
  double simulated_s = 0.0;  // cumulative simulated round time
  double wall_s = 0.0;       // cumulative
  bool evaluated = false;
  double mean_accuracy = 0.0;
  double worst10_accuracy = 0.0;
  double accuracy_stddev = 0.0;
  // Selected clients whose update never came back (real mode: disconnected, timed out or sent
  // garbage); counted in `dropped` too. Always empty in simulation.
  std::vector<int> lost_clients;
  // Updates that came back but were rejected (non-finite or exploding; update_guard.h); counted
  // in `dropped` too.
  std::vector<RejectedUpdate> rejected;
  // Auxo with late_signatures: signatures of stragglers and rejected updates given to the table.
  int late_signatures = 0;
};

struct FlResult {
  std::vector<RoundRecord> rounds;
  std::vector<int> cohort_of_client;  // assigned cohort (0 without Auxo)
  std::vector<double> client_accuracy;
  int cohorts = 1;
  double ari = -1.0;  // against ground-truth groups; -1 when unknown
  double purity = -1.0;
  int rounds_to_target = -1;
  double wall_to_target_s = -1.0;
  double simulated_to_target_s = -1.0;
  double wall_s = 0.0;
  double weight_change = 0.0;  // L2 norm of cohort 0's final weights minus its initial ones
};

// One cohort's local training in one round: the selected `clients` train from `global`, the
// cohort's model. Returns the updates that came back and whose they are (same order); a client
// with no update is listed in `lost` and is treated like a straggler.
struct CohortUpdates {
  std::vector<int> trained;
  std::vector<LocalUpdate> updates;
  std::vector<int> lost;
};
using CohortTrainer = std::function<CohortUpdates(
    FlModel& model, int round, const torch::Tensor& global, const std::vector<int>& clients)>;

// The seed of client `client`'s local training in `round` (the same in both modes).
uint64_t LocalTrainingSeed(uint64_t seed, int round, int client);

// The round loop shared by the simulation and real mode (fl_remote.h): availability, selection,
// per-cohort `trainer` calls, screening of the updates (update_guard.h), FedAvg per cohort,
// cohort-table updates, splits, evaluation. `reachable` (may be empty: all are) excludes clients
// from selection, e.g. disconnected ones.
FlResult RunFlRounds(const FederatedData& data, const FlOptions& options,
                     const CohortTrainer& trainer,
                     const std::function<void(const RoundRecord&)>& on_round,
                     const std::function<bool(int)>& reachable = {});

// RunFlRounds with every client trained in-process. `on_round` (may be empty) is called after every
// round, e.g. for progress lines.
FlResult RunFlSimulation(const FederatedData& data, const FlOptions& options,
                         const std::function<void(const RoundRecord&)>& on_round);

// Per-client accuracies of `weights_of_cohort[cohort_of_client[c]]` on each client's test set.
std::vector<double> EvaluateClients(FlModel& model, const FederatedData& data,
                                    const std::vector<torch::Tensor>& weights_of_cohort,
                                    const std::vector<int>& cohort_of_client);

// Mean, mean of the lowest 10% (at least one value), population standard deviation.
void AccuracySummary(const std::vector<double>& accuracy, double* mean, double* worst10,
                     double* stddev);

}  // namespace jigsaw

#endif  // JIGSAW_FL_SIMULATION_H_
