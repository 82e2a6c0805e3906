// What `jigsaw train` writes: iterations.csv (one row per rank and iteration), evals.csv (test
// accuracy over the run), decisions.csv (the adaptive plan's decisions), summary.json and
// checkpoint.pt, rewritten by rank 0 after every epoch as one ResultSet (core/result_set.h): a
// kill at any moment leaves all of them at one epoch. Columns and fields: docs/runtime.md.
#ifndef JIGSAW_RUNTIME_TRAIN_OUTPUTS_H_
#define JIGSAW_RUNTIME_TRAIN_OUTPUTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/output.h"
#include "runtime/runtime.h"
#include "spb/adaptive_plan.h"
#include "spb/spb_plan.h"

namespace jigsaw {

struct IterationRow {
  int rank = 0;
  int epoch = 0;
  int64_t iteration = 0;
  // "full": every worker backpropagated every block; "spb": some block had fewer contributors.
  std::string phase = "full";
  int depth = 0;
  std::string contributors;  // per block, dash-separated, block 0 first
  double lr = 0;
  double forward_s = 0;
  double backward_s = 0;
  double comm_s = 0;  // exchange time not hidden behind the backward pass
  double iter_s = 0;
  double bytes_sent = 0;      // estimate
  double bytes_received = 0;  // estimate
  double wire_sent = 0;       // measured
  double wire_received = 0;   // measured
  double loss = 0;
  double activation_mb = 0;  // peak tensor memory of the step above its start, exchange excluded
  double exchange_mb = 0;    // peak of the exchange's buffers in the step
  double state_mb = 0;       // gradient + momentum buffers held
  double peak_rss_mb = 0;
};

std::string FormatIterationRow(const IterationRow& row);
IterationRow ParseIterationRow(const std::string& line);
extern const char kIterationsCsvHeader[];

struct EvalRow {
  int64_t iteration = 0;  // iterations done when evaluated
  int epoch = 0;
  int samples = 0;
  double accuracy = 0;
};

struct TrainRecord {
  int blocks = 0;
  int64_t iterations_per_epoch = 0;
  int first_epoch = 0;
  std::vector<int64_t> parameter_bytes;
  std::vector<double> accuracies;  // per epoch, full test set
  std::vector<EvalRow> evals;      // every evaluation of the run
  std::vector<AdaptiveDecision> decisions;
  std::vector<IterationRow> rows;  // every rank, every iteration of the run
};

// `checkpoint`: the bytes of checkpoint.pt for the same epoch (a leftover checkpoint.pt.tmp of
// an interrupted older writer is dropped in the same commit).
void WriteTrainOutputs(const TrainOptions& options, const SpbPlan& plan, int world,
                       const TrainRecord& record, const std::string& checkpoint);

// "" when `out`'s summary.json is at `checkpoint_epochs` (the epochs checkpoint.pt has done);
// else what differs, e.g. "summary.json is at epoch 2, checkpoint.pt at epoch 1".
std::string MixedOutputs(const std::string& out, int checkpoint_epochs);

// Rows, evaluations and decisions of epochs before `first_epoch` from an earlier run in `out`.
// The one-screen result summary (core/result_summary.h) from OUT/summary.json, on stderr unless
// quiet: accuracy, loss-free headline figures of the busiest worker, and the files written.
void PrintTrainSummary(const std::string& out);

void ReadEarlierRecord(const std::string& out, int first_epoch, TrainRecord* record);

std::string JoinInts(const std::vector<int>& values);

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_TRAIN_OUTPUTS_H_
