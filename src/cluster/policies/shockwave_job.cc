#include "cluster/policies/shockwave_job.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace jigsaw {

ShockwaveJob::ShockwaveJob(int id, int gpus, std::vector<int> batch_schedule,
                           std::vector<double> epoch_durations_s, double samples_per_epoch,
                           double round_s, double submit_s)
    : id_(id),
      gpus_(gpus),
      batch_schedule_(std::move(batch_schedule)),
      profiled_(std::move(epoch_durations_s)),
      durations_(profiled_),
      samples_per_epoch_(samples_per_epoch),
      round_s_(round_s),
      submit_s_(submit_s) {
  std::map<int, int> distinct;
  for (int batch : batch_schedule_) ++distinct[batch];
  for (const auto& [batch, unused] : distinct) {
    prior_[batch] = static_cast<double>(epochs()) / static_cast<double>(distinct.size());
  }
}

void ShockwaveJob::SetProgress(int epochs_done) {
  progress_ = std::clamp(epochs_done, 0, epochs());
}

void ShockwaveJob::RecordThroughput(int round_key, double iterations_per_s, int batch_size) {
  measurements_[round_key] = {iterations_per_s, batch_size};
}

void ShockwaveJob::Calibrate() {
  if (measurements_.empty()) return;
  // Measured samples extrapolate each measurement back to the previous one (or round 0).
  int previous_key = 0;
  double measured_samples = 0;
  for (const auto& [key, measurement] : measurements_) {
    measured_samples += measurement.first * round_s_ * (key - previous_key) * measurement.second;
    previous_key = key;
  }
  const double span_s = round_s_ * measurements_.rbegin()->first;
  double profiled_span_s = 0;
  double profiled_samples = 0;
  size_t epoch = 0;
  for (; epoch < profiled_.size(); ++epoch) {
    if (profiled_span_s + profiled_[epoch] > span_s) break;
    profiled_span_s += profiled_[epoch];
    profiled_samples += samples_per_epoch_;
  }
  epoch = std::min(epoch, profiled_.size() - 1);
  const double partial_s = span_s - profiled_span_s;
  // Shockwave divides by the current (possibly calibrated) duration here, not the profiled one.
  if (partial_s > 0) profiled_samples += samples_per_epoch_ * partial_s / durations_[epoch];
  if (measured_samples <= 0 || profiled_samples <= 0 ||
      std::abs(measured_samples - profiled_samples) / profiled_samples <= 0.4) {
    return;
  }
  const double amplification = profiled_samples / measured_samples;
  for (size_t e = 0; e < durations_.size(); ++e) durations_[e] = profiled_[e] * amplification;
}

double ShockwaveJob::RemainingRuntime() const {
  const int observed = std::min(progress_ + 1, epochs());
  std::map<int, double> posterior = prior_;
  for (int e = 0; e < observed; ++e) posterior[batch_schedule_[e]] += 1;
  double concentration = 0;
  for (const auto& [batch, alpha] : posterior) concentration += alpha;
  std::map<int, double> rebased;
  for (const auto& [batch, alpha] : posterior) rebased[batch] = epochs() * alpha / concentration;
  for (int e = 0; e < observed; ++e) {
    double& left = rebased[batch_schedule_[e]];
    if (left >= 1) left -= 1;
  }
  double rebased_total = 0;
  for (const auto& [batch, epochs_left] : rebased) rebased_total += epochs_left;
  const int remaining_epochs = epochs() - progress_;
  const int inflated_epochs = std::max(static_cast<int>(rebased_total + 1), remaining_epochs);
  if (inflated_epochs <= 0 || remaining_epochs <= 0) return 1.0;

  std::map<int, std::pair<double, int>> per_batch;  // batch -> (sum of durations, epochs)
  for (int e = 0; e < epochs(); ++e) {
    auto& entry = per_batch[batch_schedule_[e]];
    entry.first += durations_[e];
    ++entry.second;
  }
  double runtime = 0;
  for (const auto& [batch, epochs_left] : rebased) {
    const auto& entry = per_batch.at(batch);
    runtime += epochs_left * entry.first / entry.second;
  }
  return runtime * remaining_epochs / inflated_epochs;
}

double ShockwaveJob::InterpolatedEpochDuration() const {
  const int count = std::min(progress_ + 1, epochs());
  return std::accumulate(durations_.begin(), durations_.begin() + count, 0.0) / count;
}

double ShockwaveJob::CompletedRuntime() const {
  return std::accumulate(durations_.begin(), durations_.begin() + progress_, 0.0);
}

double MomentumFinishTime(const std::vector<std::pair<int, double>>& series, int round) {
  if (series.empty()) return 0;
  std::vector<double> weights(series.size());
  double total = 0;
  for (size_t i = 0; i < series.size(); ++i) {
    const int next = i + 1 < series.size() ? series[i + 1].first : round;
    weights[i] = std::max(0, next - series[i].first);
    total += weights[i];
  }
  double average = 0;
  for (size_t i = 0; i < series.size(); ++i) {
    const double weight = total > 0 ? weights[i] / total : 1.0 / series.size();
    average += weight * series[i].second;
  }
  return 0.9 * average + 0.1 * series.back().second;
}

}  // namespace jigsaw
