// ShockwaveJob: what Shockwave knows about one admitted job (its JobMetaData).
//
// Built from the job's profile: a per-epoch batch-size schedule and per-epoch durations (seconds,
// each rounded to a whole second and at least 1), given as runs of equal epochs. Tracks the
// epochs completed so far and the throughput measured in the rounds the job ran. From these it
// predicts the job's remaining run time with a Dirichlet posterior over how many epochs each
// batch size will take, after calibrating the profiled durations against the measurements when
// they disagree by over 40%.
//
// Cost: every query is O(runs) or better and every update amortised O(runs), independent of the
// number of epochs or rounds (a Philly job can span a million epochs and tens of thousands of
// rounds). The results are bit-for-bit those of the per-epoch loops of Shockwave's JobMetaData:
// sums over runs of equal durations use RepeatedSum (core/repeated_sum.h).
// Not thread-safe; cheap to copy.
#ifndef JIGSAW_CLUSTER_POLICIES_SHOCKWAVE_JOB_H_
#define JIGSAW_CLUSTER_POLICIES_SHOCKWAVE_JOB_H_

#include <cstddef>
#include <utility>
#include <vector>

namespace jigsaw {

// `epochs` consecutive epochs at one batch size, each profiled at `duration_s`.
struct EpochRun {
  int batch_size = 0;
  double duration_s = 1;
  long long epochs = 1;
};

class ShockwaveJob {
 public:
  // `runs` cover the job's epochs in order (at least one epoch). `samples_per_epoch` is the
  // dataset size; `round_s` the scheduler's round length.
  ShockwaveJob(int id, int gpus, std::vector<EpochRun> runs, double samples_per_epoch,
               double round_s, double submit_s);
  // The same, from one batch size and one duration per epoch (equal lengths, at least one).
  ShockwaveJob(int id, int gpus, const std::vector<int>& batch_schedule,
               const std::vector<double>& epoch_durations_s, double samples_per_epoch,
               double round_s, double submit_s);

  int id() const { return id_; }
  int gpus() const { return gpus_; }
  long long epochs() const { return epochs_; }
  long long progress() const { return progress_; }
  double submit_s() const { return submit_s_; }
  // Current (possibly calibrated) duration of epoch `epoch` (0-based, < epochs()).
  double EpochDuration(long long epoch) const;

  // Epochs completed, clamped to [0, epochs()].
  void SetProgress(long long epochs_done);
  // The job ran round `round_key` - 1 (rounds counted from the start of the simulation) at
  // `iterations_per_s` with `batch_size`. Keys must not decrease; a repeated key replaces the
  // previous measurement (throws std::logic_error on a smaller key).
  void RecordThroughput(int round_key, double iterations_per_s, int batch_size);

  // Rescales the profiled durations by profiled/measured samples when the two disagree by more
  // than 40% over the wall-clock span the measurements cover; otherwise keeps the current ones.
  void Calibrate();
  // Dirichlet-posterior estimate of the run time still needed, in seconds (1 when done).
  double RemainingRuntime() const { return remaining_s_; }
  // Mean (calibrated) duration of the epochs up to and including the current one.
  double InterpolatedEpochDuration() const { return interpolated_s_; }
  // (Calibrated) run time of the epochs already completed.
  double CompletedRuntime() const { return completed_s_; }

 private:
  struct Run {
    EpochRun epochs;
    int batch_index = 0;  // into batches_
  };
  // Sum of the current durations of epochs [0, count), in epoch order, resumed from the last
  // call's when `count` did not go back and the durations did not change (the same additions in
  // the same order: RepeatedSum is exact).
  double ResumedPrefixDuration(long long count);
  // Recomputes what depends on the durations (per-batch sums) and on the progress.
  void UpdateDurations();
  void UpdateProgress();

  int id_;
  int gpus_;
  std::vector<Run> runs_;
  std::vector<int> batches_;  // distinct batch sizes, ascending
  long long epochs_ = 0;
  double samples_per_epoch_;
  double round_s_;
  double submit_s_;
  long long progress_ = 0;
  double amplification_ = 1;             // current duration = profiled x amplification_
  std::vector<double> prior_;            // per batch size: Dirichlet prior
  std::vector<double> batch_duration_;   // per batch size: sum of current durations
  std::vector<long long> batch_epochs_;  // per batch size: epochs
  double remaining_s_ = 1;
  double interpolated_s_ = 1;
  double completed_s_ = 0;
  // Measurements: the sum over all but the last, and the last (Shockwave extrapolates each one
  // back to the previous key).
  bool measured_ = false;
  int previous_key_ = 0;
  double earlier_samples_ = 0;
  int last_key_ = 0;
  double last_rate_ = 0;
  int last_batch_ = 0;
  // Calibration's walk over the profiled epochs, resumed while the span it covers grows.
  struct Walk {
    double span_s = -1;  // the span walked so far (-1: not started)
    size_t run = 0;
    long long in_run = 0;  // epochs of runs_[run] inside the span
    double profiled_s = 0;
    double samples = 0;
  } walk_;
  // ResumedPrefixDuration's last sum.
  struct Prefix {
    bool valid = false;
    double amplification = 0;  // the durations' amplification it was summed with
    long long count = 0;       // epochs summed
    size_t run = 0;            // the run of epoch `count`
    long long in_run = 0;      // epochs of runs_[run] summed
    double sum = 0;
  } prefix_;
};

// Momentum-averaged finish-time target: the estimates added ((round, finish time), in round
// order) weighted by how many rounds each stayed current up to `round`, blended 0.9/0.1 with the
// latest estimate. Up to kTermByTermEstimates estimates the average is evaluated term by term in
// the reference's order of operations (so runs of Shockwave's traces, whose jobs collect at most
// 183, match the reference's rounding bit for bit: the planner is chaotic, one ulp in a target
// can change a run); beyond that from running sums, O(1) per query (the same value up to
// rounding), so a job with tens of thousands of estimates costs no more than one with a few.
class FinishTimeTarget {
 public:
  static constexpr long long kTermByTermEstimates = 256;

  void Add(int round, double finish_s);
  bool empty() const { return count_ == 0; }
  double Value(int round) const;

 private:
  std::vector<std::pair<int, double>> series_;  // while term by term
  long long count_ = 0;
  int last_round_ = 0;
  double last_finish_s_ = 0;
  double earlier_weight_ = 0;           // rounds the earlier estimates stayed current
  double earlier_weighted_finish_ = 0;  // their finish times weighted by those rounds
  double finish_sum_ = 0;               // all finish times (for the all-zero-weight case)
};

// The same on a whole series (tests and one-off uses).
// The largest n in [0, count] with RepeatedSum(sum, term, n) <= limit, given term > 0 and
// sum <= limit (ShockwaveJob::Calibrate's walk: the epochs of a run that fit in a span).
long long MostRepeatsWithin(double sum, double term, long long count, double limit);

double MomentumFinishTime(const std::vector<std::pair<int, double>>& series, int round);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_SHOCKWAVE_JOB_H_
