#include "cluster/policies/shockwave_job.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/repeated_sum.h"

namespace jigsaw {
namespace {

std::vector<EpochRun> RunsOf(const std::vector<int>& batches,
                             const std::vector<double>& durations) {
  std::vector<EpochRun> runs;
  for (size_t e = 0; e < batches.size() && e < durations.size(); ++e) {
    if (!runs.empty() && runs.back().batch_size == batches[e] &&
        runs.back().duration_s == durations[e]) {
      ++runs.back().epochs;
    } else {
      runs.push_back({batches[e], durations[e], 1});
    }
  }
  return runs;
}

}  // namespace

ShockwaveJob::ShockwaveJob(int id, int gpus, std::vector<EpochRun> runs, double samples_per_epoch,
                           double round_s, double submit_s)
    : id_(id),
      gpus_(gpus),
      samples_per_epoch_(samples_per_epoch),
      round_s_(round_s),
      submit_s_(submit_s) {
  for (const EpochRun& run : runs) {
    if (run.epochs <= 0) continue;
    batches_.push_back(run.batch_size);
    epochs_ += run.epochs;
  }
  if (epochs_ == 0) throw std::logic_error("ShockwaveJob needs at least one epoch");
  std::sort(batches_.begin(), batches_.end());
  batches_.erase(std::unique(batches_.begin(), batches_.end()), batches_.end());
  for (const EpochRun& run : runs) {
    if (run.epochs <= 0) continue;
    const auto it = std::lower_bound(batches_.begin(), batches_.end(), run.batch_size);
    runs_.push_back({run, static_cast<int>(it - batches_.begin())});
  }
  prior_.assign(batches_.size(),
                static_cast<double>(epochs_) / static_cast<double>(batches_.size()));
  UpdateDurations();
}

ShockwaveJob::ShockwaveJob(int id, int gpus, const std::vector<int>& batch_schedule,
                           const std::vector<double>& epoch_durations_s, double samples_per_epoch,
                           double round_s, double submit_s)
    : ShockwaveJob(id, gpus, RunsOf(batch_schedule, epoch_durations_s), samples_per_epoch, round_s,
                   submit_s) {}

long long MostRepeatsWithin(double sum, double term, long long count, double limit) {
  if (count <= 0) return 0;
  if (RepeatedSum(sum, term, count) <= limit) return count;
  // The answer is below `count`. Galloping from 1 (a walk resumed with a span that grew little,
  // or not at all, fits few more epochs), then bisection in the bracket: the largest n whose
  // sum stays within the limit, as a bisection over [0, count - 1] finds it (monotone in n).
  if (count - 1 < 1 || RepeatedSum(sum, term, 1) > limit) return 0;
  long long lo = 1, step = 2;
  while (step <= count - 1 && RepeatedSum(sum, term, step) <= limit) {
    lo = step;
    step *= 2;
  }
  long long hi = std::min(step - 1, count - 1);
  while (lo < hi) {
    const long long mid = lo + (hi - lo + 1) / 2;
    if (RepeatedSum(sum, term, mid) <= limit) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

double ShockwaveJob::EpochDuration(long long epoch) const {
  for (const Run& run : runs_) {
    if (epoch < run.epochs.epochs) return run.epochs.duration_s * amplification_;
    epoch -= run.epochs.epochs;
  }
  return runs_.back().epochs.duration_s * amplification_;
}

void ShockwaveJob::SetProgress(long long epochs_done) {
  const long long progress = std::clamp(epochs_done, 0LL, epochs_);
  if (progress == progress_) return;
  progress_ = progress;
  UpdateProgress();
}

void ShockwaveJob::RecordThroughput(int round_key, double iterations_per_s, int batch_size) {
  if (measured_ && round_key < last_key_) {
    throw std::logic_error("ShockwaveJob::RecordThroughput: round keys must not decrease");
  }
  if (measured_ && round_key > last_key_) {
    // The last measurement is now final: it covers the rounds back to the one before it.
    earlier_samples_ += last_rate_ * round_s_ * (last_key_ - previous_key_) * last_batch_;
    previous_key_ = last_key_;
  }
  measured_ = true;
  last_key_ = round_key;
  last_rate_ = iterations_per_s;
  last_batch_ = batch_size;
}

void ShockwaveJob::UpdateDurations() {
  batch_duration_.assign(batches_.size(), 0.0);
  batch_epochs_.assign(batches_.size(), 0);
  for (const Run& run : runs_) {
    double& sum = batch_duration_[run.batch_index];
    sum = RepeatedSum(sum, run.epochs.duration_s * amplification_, run.epochs.epochs);
    batch_epochs_[run.batch_index] += run.epochs.epochs;
  }
  UpdateProgress();
}

double ShockwaveJob::ResumedPrefixDuration(long long count) {
  if (!prefix_.valid || prefix_.amplification != amplification_ || count < prefix_.count) {
    prefix_ = Prefix();
    prefix_.valid = true;
    prefix_.amplification = amplification_;
  }
  while (prefix_.count < count && prefix_.run < runs_.size()) {
    const EpochRun& run = runs_[prefix_.run].epochs;
    const long long take = std::min(count - prefix_.count, run.epochs - prefix_.in_run);
    prefix_.sum = RepeatedSum(prefix_.sum, run.duration_s * amplification_, take);
    prefix_.count += take;
    prefix_.in_run += take;
    if (prefix_.in_run == run.epochs) ++prefix_.run, prefix_.in_run = 0;
  }
  return prefix_.sum;
}

void ShockwaveJob::UpdateProgress() {
  completed_s_ = ResumedPrefixDuration(progress_);
  const long long observed = std::min(progress_ + 1, epochs_);
  // The sum over `observed` epochs is one more addition (of epoch progress_'s duration).
  const double observed_s =
      observed == progress_ ? completed_s_ : completed_s_ + EpochDuration(progress_);
  interpolated_s_ = observed_s / static_cast<double>(observed);

  // Dirichlet posterior: the prior plus one per observed epoch of each batch size. Scratch
  // reused across calls (this runs for every job whose progress or durations change).
  thread_local std::vector<long long> seen;
  thread_local std::vector<double> posterior, rebased;
  seen.assign(batches_.size(), 0);
  long long left = observed;
  for (const Run& run : runs_) {
    if (left <= 0) break;
    const long long take = std::min(left, run.epochs.epochs);
    seen[run.batch_index] += take;
    left -= take;
  }
  posterior.resize(batches_.size());
  double concentration = 0;
  for (size_t b = 0; b < batches_.size(); ++b) {
    posterior[b] = RepeatedSum(prior_[b], 1.0, seen[b]);
    concentration += posterior[b];
  }
  // Rebased to the job's epochs, minus one per observed epoch while at least one is left (each
  // subtraction of 1 from a value >= 1 is exact, so subtracting them at once is too).
  double rebased_total = 0;
  rebased.resize(batches_.size());
  for (size_t b = 0; b < batches_.size(); ++b) {
    const double value = static_cast<double>(epochs_) * posterior[b] / concentration;
    const long long whole = value >= 1 ? static_cast<long long>(std::floor(value)) : 0;
    rebased[b] = value - static_cast<double>(std::min(seen[b], whole));
    rebased_total += rebased[b];
  }
  const long long remaining_epochs = epochs_ - progress_;
  const long long inflated_epochs =
      std::max(static_cast<long long>(rebased_total + 1), remaining_epochs);
  if (inflated_epochs <= 0 || remaining_epochs <= 0) {
    remaining_s_ = 1.0;
    return;
  }
  double runtime = 0;
  for (size_t b = 0; b < batches_.size(); ++b) {
    runtime += rebased[b] * batch_duration_[b] / static_cast<double>(batch_epochs_[b]);
  }
  remaining_s_ =
      runtime * static_cast<double>(remaining_epochs) / static_cast<double>(inflated_epochs);
}

void ShockwaveJob::Calibrate() {
  if (!measured_) return;
  // Measured samples extrapolate each measurement back to the previous one (or round 0).
  const double measured_samples =
      earlier_samples_ + last_rate_ * round_s_ * (last_key_ - previous_key_) * last_batch_;
  if (measured_samples <= 0) return;  // nothing to compare (e.g. type-less jobs: batch 0)
  const double span_s = round_s_ * last_key_;
  // Profiled epochs that fit in the span, resuming the previous walk (the span only grows).
  if (span_s < walk_.span_s) walk_ = Walk();
  walk_.span_s = span_s;
  while (walk_.run < runs_.size()) {
    const EpochRun& run = runs_[walk_.run].epochs;
    const long long left = run.epochs - walk_.in_run;
    // The most epochs of this run whose running sum stays within the span (monotone in count).
    const long long fit = MostRepeatsWithin(walk_.profiled_s, run.duration_s, left, span_s);
    walk_.profiled_s = RepeatedSum(walk_.profiled_s, run.duration_s, fit);
    walk_.samples = RepeatedSum(walk_.samples, samples_per_epoch_, fit);
    walk_.in_run += fit;
    if (walk_.in_run < run.epochs) break;
    ++walk_.run;
    walk_.in_run = 0;
  }
  // The epoch the span ends in (the last one if it covers them all).
  const double partial_duration =
      (walk_.run < runs_.size() ? runs_[walk_.run] : runs_.back()).epochs.duration_s *
      amplification_;
  double profiled_samples = walk_.samples;
  const double partial_s = span_s - walk_.profiled_s;
  // Shockwave divides by the current (possibly calibrated) duration here, not the profiled one.
  if (partial_s > 0) profiled_samples += samples_per_epoch_ * partial_s / partial_duration;
  if (profiled_samples <= 0 ||
      std::abs(measured_samples - profiled_samples) / profiled_samples <= 0.4) {
    return;
  }
  amplification_ = profiled_samples / measured_samples;
  UpdateDurations();
}

void FinishTimeTarget::Add(int round, double finish_s) {
  if (count_ > 0) {
    // The previous estimate stayed current until this one.
    const double weight = std::max(0, round - last_round_);
    earlier_weight_ += weight;
    earlier_weighted_finish_ += weight * last_finish_s_;
  }
  ++count_;
  last_round_ = round;
  last_finish_s_ = finish_s;
  finish_sum_ += finish_s;
  if (count_ <= kTermByTermEstimates) {
    series_.push_back({round, finish_s});
  } else if (!series_.empty()) {
    series_ = {};  // from now on the running sums alone
  }
}

double FinishTimeTarget::Value(int round) const {
  if (count_ == 0) return 0;
  double average = 0;
  if (!series_.empty()) {
    // Term by term, in the reference's order of operations.
    double total = 0;
    for (size_t i = 0; i < series_.size(); ++i) {
      const int next = i + 1 < series_.size() ? series_[i + 1].first : round;
      total += std::max(0, next - series_[i].first);
    }
    for (size_t i = 0; i < series_.size(); ++i) {
      const int next = i + 1 < series_.size() ? series_[i + 1].first : round;
      const double weight =
          total > 0 ? std::max(0, next - series_[i].first) / total : 1.0 / series_.size();
      average += weight * series_[i].second;
    }
  } else {
    const double last_weight = std::max(0, round - last_round_);
    const double total = earlier_weight_ + last_weight;
    average = total > 0 ? (earlier_weighted_finish_ + last_weight * last_finish_s_) / total
                        : finish_sum_ / static_cast<double>(count_);
  }
  return 0.9 * average + 0.1 * last_finish_s_;
}

double MomentumFinishTime(const std::vector<std::pair<int, double>>& series, int round) {
  FinishTimeTarget target;
  for (const auto& [at, finish] : series) target.Add(at, finish);
  return target.Value(round);
}

}  // namespace jigsaw
