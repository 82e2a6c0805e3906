#include "runtime/train_outputs.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "core/error.h"
#include "core/result_set.h"
#include "core/result_summary.h"
#include "core/stats.h"
#include "core/text_input.h"
#include "spb/balanced_exchange.h"
#include "spb/cost_model.h"
#include "spb/iteration_estimate.h"

namespace jigsaw {

const char kIterationsCsvHeader[] =
    "rank,epoch,iteration,phase,depth,contributors,lr,forward_s,backward_s,comm_s,iter_s,"
    "bytes_sent,bytes_received,wire_sent,wire_received,loss,activation_mb,exchange_mb,state_mb,"
    "peak_rss_mb";

namespace {

constexpr char kEvalsCsvHeader[] = "iteration,epoch,samples,test_accuracy";
constexpr char kDecisionsCsvHeader[] = "iteration,frozen_blocks,contributors,plasticity,reason";

std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) fields.push_back(field);
  return fields;
}

double MeanOf(const std::vector<IterationRow>& rows, int rank, double IterationRow::*field) {
  std::vector<double> values;
  for (const IterationRow& r : rows) {
    if (rank < 0 || r.rank == rank) values.push_back(r.*field);
  }
  return values.empty() ? 0.0 : Mean(values);
}

double SumOf(const std::vector<IterationRow>& rows, int rank, double IterationRow::*field) {
  double sum = 0;
  for (const IterationRow& r : rows) {
    if (r.rank == rank) sum += r.*field;
  }
  return sum;
}

double MaxOf(const std::vector<IterationRow>& rows, int rank, double IterationRow::*field) {
  double best = 0;
  for (const IterationRow& r : rows) {
    if (r.rank == rank) best = std::max(best, r.*field);
  }
  return best;
}

Json Predictions(const TrainOptions& options, const SpbPlan& plan, int world,
                 const TrainRecord& record) {
  ModelProfile profile = ReadProfile(options.profile);
  if (static_cast<int>(profile.blocks.size()) != record.blocks) {
    throw InputError(options.profile, 0,
                     "profile has " + std::to_string(profile.blocks.size()) +
                         " blocks, the model has " + std::to_string(record.blocks));
  }
  std::vector<int64_t> block_bytes;
  for (const BlockProfile& b : profile.blocks) block_bytes.push_back(b.parameter_bytes);
  std::vector<double> backward;
  std::vector<double> bytes;
  for (int t = 0; t < PlanPeriod(plan, world); ++t) {
    std::vector<int> depths = WorkerDepths(plan, record.blocks, world, t);
    std::vector<std::vector<int>> contributors = BlockContributors(depths, record.blocks);
    std::vector<Collective> collectives = PlanCollectives(contributors, world);
    std::vector<ExchangeBucket> buckets =
        PlanBuckets(contributors, block_bytes, int64_t{options.bucket_kb} * 1024);
    for (int k = 0; k < world; ++k) {
      backward.push_back(PredictBackwardS(profile, depths[k], options.batch));
      if (options.exchange == "tree") {
        bytes.push_back(PredictBytesSent(profile, collectives, k));
      } else {
        double sent = 0;
        for (const ExchangeBucket& bucket : buckets) sent += BalancedBytesSent(bucket, k, world);
        bytes.push_back(sent);
      }
    }
  }
  Json predictions = {{"profile", options.profile},
                      {"predicted_mean_backward_s", RoundTo(Mean(backward), 6)},
                      {"predicted_bytes_sent_per_iter", RoundTo(Mean(bytes), 0)}};
  // The whole iteration needs the profile's communication model for more than one worker; it
  // models the tree exchange (bench/spb_estimate.sh compares it with measured iterations).
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

std::string FormatDecision(const AdaptiveDecision& d) {
  std::string plasticity;
  for (size_t b = 0; b < d.plasticity.size(); ++b) {
    if (b > 0) plasticity += '-';
    plasticity += FormatFixed(d.plasticity[b], 3);
  }
  return std::to_string(d.iteration) + "," + std::to_string(d.frozen_blocks) + "," +
         JoinInts(d.contributors) + "," + plasticity + "," + d.reason;
}

}  // namespace

std::string JoinInts(const std::vector<int>& values) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += '-';
    text += std::to_string(values[i]);
  }
  return text;
}

std::string FormatIterationRow(const IterationRow& r) {
  return std::to_string(r.rank) + "," + std::to_string(r.epoch) + "," +
         std::to_string(r.iteration) + "," + r.phase + "," + std::to_string(r.depth) + "," +
         r.contributors + "," + FormatFixed(r.lr, 6) + "," + FormatFixed(r.forward_s, 6) + "," +
         FormatFixed(r.backward_s, 6) + "," + FormatFixed(r.comm_s, 6) + "," +
         FormatFixed(r.iter_s, 6) + "," + FormatFixed(r.bytes_sent, 0) + "," +
         FormatFixed(r.bytes_received, 0) + "," + FormatFixed(r.wire_sent, 0) + "," +
         FormatFixed(r.wire_received, 0) + "," + FormatFixed(r.loss, 5) + "," +
         FormatFixed(r.activation_mb, 3) + "," + FormatFixed(r.exchange_mb, 3) + "," +
         FormatFixed(r.state_mb, 3) + "," + FormatFixed(r.peak_rss_mb, 1);
}

IterationRow ParseIterationRow(const std::string& line) {
  std::vector<std::string> f = SplitCsv(line);
  IterationRow r;
  if (f.size() != 20) return r;
  r.rank = std::stoi(f[0]);
  r.epoch = std::stoi(f[1]);
  r.iteration = std::stoll(f[2]);
  r.phase = f[3];
  r.depth = std::stoi(f[4]);
  r.contributors = f[5];
  double* doubles[] = {&r.lr,
                       &r.forward_s,
                       &r.backward_s,
                       &r.comm_s,
                       &r.iter_s,
                       &r.bytes_sent,
                       &r.bytes_received,
                       &r.wire_sent,
                       &r.wire_received,
                       &r.loss,
                       &r.activation_mb,
                       &r.exchange_mb,
                       &r.state_mb,
                       &r.peak_rss_mb};
  for (size_t i = 0; i < 14; ++i) *doubles[i] = std::stod(f[6 + i]);
  return r;
}

void ReadEarlierRecord(const std::string& out, int first_epoch, TrainRecord* record) {
  std::ifstream rows(out + "/iterations.csv");
  std::string line;
  std::getline(rows, line);
  while (std::getline(rows, line)) {
    if (line.empty()) continue;
    IterationRow r = ParseIterationRow(line);
    if (r.epoch < first_epoch) record->rows.push_back(r);
  }
  std::ifstream evals(out + "/evals.csv");
  std::getline(evals, line);
  while (std::getline(evals, line)) {
    std::vector<std::string> f = SplitCsv(line);
    if (f.size() != 4 || std::stoi(f[1]) >= first_epoch) continue;
    record->evals.push_back({std::stoll(f[0]), std::stoi(f[1]), std::stoi(f[2]), std::stod(f[3])});
  }
}

std::string MixedOutputs(const std::string& out, int checkpoint_epochs) {
  const std::string path = out + "/summary.json";
  if (!std::filesystem::exists(path)) {
    return "checkpoint.pt is at epoch " + std::to_string(checkpoint_epochs) +
           ", summary.json is missing";
  }
  int summary_epochs = -1;
  try {
    const Json summary = Json::parse(ReadWholeFile(path));
    summary_epochs = summary.at("epochs_done").get<int>();
  } catch (const std::exception&) {
    return "summary.json is unreadable";
  }
  if (summary_epochs == checkpoint_epochs) return "";
  return "summary.json is at epoch " + std::to_string(summary_epochs) +
         ", checkpoint.pt at epoch " + std::to_string(checkpoint_epochs);
}

void WriteTrainOutputs(const TrainOptions& options, const SpbPlan& plan, int world,
                       const TrainRecord& record, const std::string& checkpoint) {
  const std::vector<IterationRow>& rows = record.rows;
  std::string csv = std::string(kIterationsCsvHeader) + "\n";
  for (const IterationRow& r : rows) csv += FormatIterationRow(r) + "\n";
  ResultSet results(options.out);  // every output of one epoch, as a unit
  results.Add("iterations.csv", std::move(csv));

  std::string evals = std::string(kEvalsCsvHeader) + "\n";
  for (const EvalRow& e : record.evals) {
    evals += std::to_string(e.iteration) + "," + std::to_string(e.epoch) + "," +
             std::to_string(e.samples) + "," + FormatFixed(e.accuracy, 4) + "\n";
  }
  results.Add("evals.csv", std::move(evals));
  if (plan.kind == SpbPlanKind::kAdaptive) {
    std::string decisions = std::string(kDecisionsCsvHeader) + "\n";
    for (const AdaptiveDecision& d : record.decisions) decisions += FormatDecision(d) + "\n";
    results.Add("decisions.csv", std::move(decisions));
  }

  Json per_worker = Json::array();
  double max_backward = 0, max_backward_total = 0, max_activation = 0, max_peak_activation = 0;
  double max_wire = 0, max_iter = 0, max_state = 0, max_exchange = 0, peak_rss = 0;
  for (int k = 0; k < world; ++k) {
    const double backward = MeanOf(rows, k, &IterationRow::backward_s);
    const double backward_total = SumOf(rows, k, &IterationRow::backward_s);
    const double activation = MeanOf(rows, k, &IterationRow::activation_mb);
    const double peak_activation = MaxOf(rows, k, &IterationRow::activation_mb);
    const double sent = MeanOf(rows, k, &IterationRow::wire_sent);
    const double received = MeanOf(rows, k, &IterationRow::wire_received);
    const double iter = MeanOf(rows, k, &IterationRow::iter_s);
    const double state = MaxOf(rows, k, &IterationRow::state_mb);
    const double exchange = MaxOf(rows, k, &IterationRow::exchange_mb);
    const double rss = MaxOf(rows, k, &IterationRow::peak_rss_mb);
    max_backward = std::max(max_backward, backward);
    max_backward_total = std::max(max_backward_total, backward_total);
    max_activation = std::max(max_activation, activation);
    max_peak_activation = std::max(max_peak_activation, peak_activation);
    max_wire = std::max(max_wire, sent + received);
    max_iter = std::max(max_iter, iter);
    max_state = std::max(max_state, state);
    max_exchange = std::max(max_exchange, exchange);
    peak_rss = std::max(peak_rss, rss);
    per_worker.push_back(
        {{"rank", k},
         {"mean_backward_s", RoundTo(backward, 6)},
         {"total_backward_s", RoundTo(backward_total, 3)},
         {"mean_activation_mb", RoundTo(activation, 3)},
         {"peak_activation_mb", RoundTo(peak_activation, 3)},
         {"wire_sent_per_iter", RoundTo(sent, 0)},
         {"wire_received_per_iter", RoundTo(received, 0)},
         {"bytes_sent_per_iter", RoundTo(MeanOf(rows, k, &IterationRow::bytes_sent), 0)},
         {"bytes_received_per_iter", RoundTo(MeanOf(rows, k, &IterationRow::bytes_received), 0)},
         {"mean_forward_s", RoundTo(MeanOf(rows, k, &IterationRow::forward_s), 6)},
         {"mean_comm_s", RoundTo(MeanOf(rows, k, &IterationRow::comm_s), 6)},
         {"mean_iter_s", RoundTo(iter, 6)},
         {"max_state_mb", RoundTo(state, 3)},
         {"max_exchange_mb", RoundTo(exchange, 3)},
         {"peak_rss_mb", RoundTo(rss, 1)}});
  }
  Json summary;
  summary["model"] = options.model;
  summary["dataset"] = options.data.dataset;
  summary["spb"] = plan.text;
  summary["spb_scale"] = options.spb_scale;
  summary["spb_frozen_chunk"] = options.spb_frozen_chunk;
  summary["exchange"] = options.exchange;
  summary["device"] = options.device;
  summary["stage_through_host"] = options.stage_through_host || options.device != "cpu";
  summary["overlap"] = options.exchange == "balanced" && options.overlap;
  summary["workers"] = world;
  summary["blocks"] = record.blocks;
  summary["batch_per_worker"] = options.batch;
  summary["epochs"] = options.epochs;
  summary["seed"] = options.seed;
  summary["epochs_done"] = record.accuracies.size();
  summary["iterations_per_epoch"] = record.iterations_per_epoch;
  summary["resumed_from_epoch"] = record.first_epoch;
  summary["test_accuracy"] = record.accuracies.empty() ? 0.0 : RoundTo(record.accuracies.back(), 4);
  Json epochs = Json::array();
  for (double a : record.accuracies) epochs.push_back(RoundTo(a, 4));
  summary["epoch_test_accuracy"] = epochs;
  // The busiest rank first: what bounds a co-located job and the network.
  summary["max_rank_backward_s"] = RoundTo(max_backward, 6);
  summary["max_rank_backward_total_s"] = RoundTo(max_backward_total, 3);
  summary["max_rank_activation_mb"] = RoundTo(max_activation, 3);
  summary["max_rank_peak_activation_mb"] = RoundTo(max_peak_activation, 3);
  summary["max_rank_wire_bytes_per_iter"] = RoundTo(max_wire, 0);
  summary["max_rank_iter_s"] = RoundTo(max_iter, 6);
  summary["max_rank_state_mb"] = RoundTo(max_state, 3);
  summary["max_rank_exchange_mb"] = RoundTo(max_exchange, 3);
  summary["mean_iter_s"] = RoundTo(MeanOf(rows, -1, &IterationRow::iter_s), 6);
  summary["mean_forward_s"] = RoundTo(MeanOf(rows, -1, &IterationRow::forward_s), 6);
  summary["mean_backward_s"] = RoundTo(MeanOf(rows, -1, &IterationRow::backward_s), 6);
  summary["mean_comm_s"] = RoundTo(MeanOf(rows, -1, &IterationRow::comm_s), 6);
  summary["mean_activation_mb"] = RoundTo(MeanOf(rows, -1, &IterationRow::activation_mb), 3);
  summary["bytes_sent_per_iter"] = RoundTo(MeanOf(rows, -1, &IterationRow::bytes_sent), 0);
  summary["bytes_received_per_iter"] = RoundTo(MeanOf(rows, -1, &IterationRow::bytes_received), 0);
  summary["wire_sent_per_iter"] = RoundTo(MeanOf(rows, -1, &IterationRow::wire_sent), 0);
  summary["wire_received_per_iter"] = RoundTo(MeanOf(rows, -1, &IterationRow::wire_received), 0);
  summary["peak_rss_mb"] = RoundTo(peak_rss, 1);
  summary["parameter_bytes_per_block"] = record.parameter_bytes;
  if (!record.decisions.empty()) {
    const AdaptiveDecision& last = record.decisions.back();
    summary["final_frozen_blocks"] = last.frozen_blocks;
    summary["final_contributors"] = JoinInts(last.contributors);
  }
  if (!options.profile.empty()) summary.update(Predictions(options, plan, world, record));
  summary["per_worker"] = per_worker;
  results.Add("summary.json", summary.dump(2) + "\n");
  results.Add("checkpoint.pt", checkpoint);
  results.Drop("checkpoint.pt.tmp");
  results.Commit();
}

void PrintTrainSummary(const std::string& out) {
  Json s;
  try {
    s = Json::parse(ReadWholeFile(out + "/summary.json"));
  } catch (const std::exception&) {
    return;  // no summary: the run's own error said why
  }
  auto number = [&](const char* key, int decimals) {
    return s.contains(key) && s[key].is_number() ? FormatFixed(s[key].get<double>(), decimals)
                                                 : std::string("-");
  };
  ResultSummary summary("train: " + s.value("model", "") + " on " + s.value("dataset", "") + ", " +
                        std::to_string(s.value("workers", 0)) + " workers, plan " +
                        s.value("spb", ""));
  summary.Add("epochs done", number("epochs_done", 0) + " of " + number("epochs", 0) + " (" +
                                 number("iterations_per_epoch", 0) + " iterations each)");
  summary.Add("test accuracy", number("test_accuracy", 4));
  summary.Add("mean iteration", number("mean_iter_s", 4) + " s (slowest worker " +
                                    number("max_rank_iter_s", 4) + " s)");
  summary.Add("busiest backward", number("max_rank_backward_s", 4) + " s per iteration");
  summary.Add("wire bytes/iter", number("max_rank_wire_bytes_per_iter", 0) + " (busiest worker)");
  if (s.contains("final_frozen_blocks")) {
    summary.Add("frozen blocks", number("final_frozen_blocks", 0) + " (contributors " +
                                     s.value("final_contributors", "") + ")");
  }
  summary.AddFile(out, "summary.json", "the figures above and per-worker means");
  summary.AddFile(out, "iterations.csv", "per rank and iteration: phase, times, bytes, loss");
  summary.AddFile(out, "evals.csv", "test accuracy over the run");
  if (s.value("spb", "") == "adaptive") {
    summary.AddFile(out, "decisions.csv", "the adaptive plan's decisions");
  }
  summary.AddFile(out, "checkpoint.pt", "model and optimiser state (--resume)");
  summary.Print();
}

}  // namespace jigsaw
