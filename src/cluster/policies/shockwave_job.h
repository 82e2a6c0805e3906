// ShockwaveJob: what Shockwave knows about one admitted job (its JobMetaData).
//
// Built from the job's profile: a per-epoch batch-size schedule and per-epoch durations (seconds,
// each rounded to a whole second and at least 1). Tracks the epochs completed so far and the
// throughput measured in every round the job ran. From these it predicts the job's remaining run
// time with a Dirichlet posterior over how many epochs each batch size will take, after
// calibrating the profiled durations against the measurements when they disagree by over 40%.
// Not thread-safe; cheap to copy.
#ifndef JIGSAW_CLUSTER_POLICIES_SHOCKWAVE_JOB_H_
#define JIGSAW_CLUSTER_POLICIES_SHOCKWAVE_JOB_H_

#include <map>
#include <utility>
#include <vector>

namespace jigsaw {

class ShockwaveJob {
 public:
  // `batch_schedule` and `epoch_durations_s` have one entry per epoch (at least one).
  // `samples_per_epoch` is the dataset size; `round_s` the scheduler's round length.
  ShockwaveJob(int id, int gpus, std::vector<int> batch_schedule,
               std::vector<double> epoch_durations_s, double samples_per_epoch, double round_s,
               double submit_s);

  int id() const { return id_; }
  int gpus() const { return gpus_; }
  int epochs() const { return static_cast<int>(batch_schedule_.size()); }
  int progress() const { return progress_; }
  double submit_s() const { return submit_s_; }
  const std::vector<double>& epoch_durations() const { return durations_; }

  // Epochs completed, clamped to [0, epochs()].
  void SetProgress(int epochs_done);
  // The job ran round `round_key` - 1 (rounds counted from the start of the simulation) at
  // `iterations_per_s` with `batch_size`.
  void RecordThroughput(int round_key, double iterations_per_s, int batch_size);

  // Rescales the profiled durations by profiled/measured samples when the two disagree by more
  // than 40% over the wall-clock span the measurements cover; otherwise keeps the current ones.
  void Calibrate();
  // Dirichlet-posterior estimate of the run time still needed, in seconds (1 when done).
  double RemainingRuntime() const;
  // Mean (calibrated) duration of the epochs up to and including the current one.
  double InterpolatedEpochDuration() const;
  // Profiled run time of the epochs already completed.
  double CompletedRuntime() const;

 private:
  int id_;
  int gpus_;
  std::vector<int> batch_schedule_;
  std::vector<double> profiled_;
  std::vector<double> durations_;  // profiled, possibly calibrated
  double samples_per_epoch_;
  double round_s_;
  double submit_s_;
  int progress_ = 0;
  std::map<int, std::pair<double, int>> measurements_;  // round key -> (it/s, batch size)
  std::map<int, double> prior_;                         // batch size -> Dirichlet prior
};

// Momentum-averaged finish-time target: the estimates in `series` ((round, finish time), in
// round order) weighted by how many rounds each stayed current up to `round`, blended 0.9/0.1
// with the latest estimate.
double MomentumFinishTime(const std::vector<std::pair<int, double>>& series, int round);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_SHOCKWAVE_JOB_H_
