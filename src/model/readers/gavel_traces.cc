// Shockwave (12-column), Gavel (10-column) and Gavel legacy msr (7-column) traces.
#include <cmath>
#include <string>

#include "core/limits.h"
#include "core/text_input.h"
#include "model/adaptation.h"
#include "model/trace_readers.h"

namespace jigsaw {
namespace {

constexpr const char* kShockwaveLayout =
    "job_type, command, working_directory, num_steps_arg, needs_data_dir, total_steps, "
    "scale_factor, mode, priority_weight, SLO, duration, arrival_time; tab-separated";
constexpr const char* kGavelLayout =
    "job_type, command, working_directory, num_steps_arg, needs_data_dir, total_steps, "
    "scale_factor, priority_weight, SLO, arrival_time; tab-separated";
constexpr const char* kMsrLayout =
    "job_type, command, num_steps_arg, needs_data_dir, total_steps, arrival_time, scale_factor; "
    "tab-separated";

bool SkippableLine(std::string_view line) { return Trim(line).empty() || line[0] == '#'; }

void SetJobType(const TextFile& file, std::string_view field, JobSpec* job) {
  job->job_type = std::string(Trim(field));
  if (job->job_type.empty()) file.Fail("expected a job type in column 1, got an empty field");
  if (!ParseJobType(job->job_type, &job->model, &job->batch_size)) {
    job->model = job->job_type;  // Types without a batch size, e.g. "A3C", "CycleGAN".
    job->batch_size = 0;
  }
  if (job->batch_size > kMaxBatchSize) {
    file.Fail("expected a batch size of at most " + std::to_string(kMaxBatchSize) +
              " in column 1 (job_type) (docs/limits.md), got '" + Excerpt(job->job_type) + "'");
  }
}

int ScaleFactor(const TextFile& file, std::string_view field, const char* what) {
  if (file.ParseInt(field, what) < 1) {
    file.Fail(std::string("expected a positive GPU count in ") + what + ", got '" + Excerpt(field) +
              "'");
  }
  return static_cast<int>(file.ParseIntInRange(field, what, 1, kMaxGpus));
}

double NonNegative(const TextFile& file, std::string_view field, const char* what, double max) {
  return file.ParseDoubleInRange(field, what, 0, max);
}

// Steps in [1, kMaxTotalSteps] (a job runs at least one iteration: a denormal step count made an
// isolated time of zero and an infinite rho); with a dataset model, at most kMaxEpochs epochs
// (the simulator and Shockwave keep per-epoch schedules).
double PositiveSteps(const TextFile& file, std::string_view field, const char* what,
                     const JobSpec& job) {
  const double steps = file.ParseDouble(field, what);
  if (!(steps >= 1)) {
    file.Fail(std::string("expected a positive step count (at least 1) in ") + what + ", got '" +
              Excerpt(field) + "'");
  }
  if (steps > kMaxTotalSteps) {
    file.Fail(std::string("expected at most ") + FormatNumber(kMaxTotalSteps) + " steps in " +
              what + " (docs/limits.md), got '" + Excerpt(Trim(field)) + "'");
  }
  if (DatasetSize(job.model) > 0 && job.batch_size > 0) {
    const double epochs = std::ceil(steps / IterationsPerEpoch(job.model, job.batch_size));
    if (epochs > static_cast<double>(kMaxEpochs)) {
      file.Fail(std::string("expected at most ") + std::to_string(kMaxEpochs) + " epochs of " +
                job.model + " (" + std::to_string(IterationsPerEpoch(job.model, job.batch_size)) +
                " steps each) in " + what + " (docs/limits.md), got " + FormatNumber(steps) +
                " steps");
    }
  }
  return steps;
}

double Slo(const TextFile& file, std::string_view field, const char* what) {
  return file.ParseDoubleInRange(field, what, -kMaxAbsSlo, kMaxAbsSlo);
}

AdaptationMode ParseMode(const TextFile& file, std::string_view field) {
  std::string_view mode = Trim(field);
  if (mode == "static") return AdaptationMode::kStatic;
  if (mode == "accordion") return AdaptationMode::kAccordion;
  if (mode == "gns") return AdaptationMode::kGns;
  file.Fail("expected mode static, accordion or gns in column 8 (mode), got '" + Excerpt(field) +
            "'");
}

std::string Source(const TextFile& file) {
  return file.name() + ":" + std::to_string(file.line_number());
}

}  // namespace

Trace ParseShockwaveTrace(TextFile& file) {
  Trace trace;
  std::string_view line;
  while (file.NextLine(&line)) {
    if (SkippableLine(line)) continue;
    auto f = SplitFields(line, '\t');
    file.RequireColumns(f, 12, kShockwaveLayout);
    JobSpec job;
    SetJobType(file, f[0], &job);
    job.total_steps = PositiveSteps(file, f[5], "column 6 (total_steps)", job);
    job.scale_factor = ScaleFactor(file, f[6], "column 7 (scale_factor)");
    job.mode = ParseMode(file, f[7]);
    job.priority_weight = NonNegative(file, f[8], "column 9 (priority_weight)", kMaxPriorityWeight);
    job.slo = Slo(file, f[9], "column 10 (SLO)");
    job.duration_s = NonNegative(file, f[10], "column 11 (duration)", kMaxTraceSeconds);
    job.arrival_s = NonNegative(file, f[11], "column 12 (arrival_time)", kMaxTraceSeconds);
    job.source = Source(file);
    trace.jobs.push_back(std::move(job));
  }
  return trace;
}

Trace ParseGavelTrace(TextFile& file) {
  Trace trace;
  std::string_view line;
  while (file.NextLine(&line)) {
    if (SkippableLine(line)) continue;
    auto f = SplitFields(line, '\t');
    file.RequireColumns(f, 10, kGavelLayout);
    JobSpec job;
    SetJobType(file, f[0], &job);
    job.total_steps = PositiveSteps(file, f[5], "column 6 (total_steps)", job);
    job.scale_factor = ScaleFactor(file, f[6], "column 7 (scale_factor)");
    job.priority_weight = NonNegative(file, f[7], "column 8 (priority_weight)", kMaxPriorityWeight);
    job.slo = Slo(file, f[8], "column 9 (SLO)");
    job.arrival_s = NonNegative(file, f[9], "column 10 (arrival_time)", kMaxTraceSeconds);
    job.source = Source(file);
    trace.jobs.push_back(std::move(job));
  }
  return trace;
}

Trace ParseGavelMsrTrace(TextFile& file) {
  Trace trace;
  std::string_view line;
  while (file.NextLine(&line)) {
    if (SkippableLine(line)) continue;
    auto f = SplitFields(line, '\t');
    file.RequireColumns(f, 7, kMsrLayout);
    JobSpec job;
    SetJobType(file, f[0], &job);
    job.total_steps = PositiveSteps(file, f[4], "column 5 (total_steps)", job);
    job.arrival_s = NonNegative(file, f[5], "column 6 (arrival_time)", kMaxTraceSeconds);
    job.scale_factor = ScaleFactor(file, f[6], "column 7 (scale_factor)");
    job.source = Source(file);
    trace.jobs.push_back(std::move(job));
  }
  return trace;
}

}  // namespace jigsaw
