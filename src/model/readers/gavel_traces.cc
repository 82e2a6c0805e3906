// Shockwave (12-column), Gavel (10-column) and Gavel legacy msr (7-column) traces.
#include <string>

#include "core/text_input.h"
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
}

int ScaleFactor(const TextFile& file, std::string_view field, const char* what) {
  long long sf = file.ParseInt(field, what);
  if (sf < 1 || sf > 1 << 20) {
    file.Fail(std::string("expected a positive GPU count in ") + what + ", got '" +
              std::string(field) + "'");
  }
  return static_cast<int>(sf);
}

double NonNegative(const TextFile& file, std::string_view field, const char* what) {
  double value = file.ParseDouble(field, what);
  if (value < 0) {
    file.Fail(std::string("expected a non-negative value in ") + what + ", got '" +
              std::string(field) + "'");
  }
  return value;
}

double PositiveSteps(const TextFile& file, std::string_view field, const char* what) {
  double steps = file.ParseDouble(field, what);
  if (!(steps > 0)) {
    file.Fail(std::string("expected a positive step count in ") + what + ", got '" +
              std::string(field) + "'");
  }
  return steps;
}

AdaptationMode ParseMode(const TextFile& file, std::string_view field) {
  std::string_view mode = Trim(field);
  if (mode == "static") return AdaptationMode::kStatic;
  if (mode == "accordion") return AdaptationMode::kAccordion;
  if (mode == "gns") return AdaptationMode::kGns;
  file.Fail("expected mode static, accordion or gns in column 8 (mode), got '" +
            std::string(field) + "'");
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
    job.total_steps = PositiveSteps(file, f[5], "column 6 (total_steps)");
    job.scale_factor = ScaleFactor(file, f[6], "column 7 (scale_factor)");
    job.mode = ParseMode(file, f[7]);
    job.priority_weight = NonNegative(file, f[8], "column 9 (priority_weight)");
    job.slo = file.ParseDouble(f[9], "column 10 (SLO)");
    job.duration_s = NonNegative(file, f[10], "column 11 (duration)");
    job.arrival_s = NonNegative(file, f[11], "column 12 (arrival_time)");
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
    job.total_steps = PositiveSteps(file, f[5], "column 6 (total_steps)");
    job.scale_factor = ScaleFactor(file, f[6], "column 7 (scale_factor)");
    job.priority_weight = NonNegative(file, f[7], "column 8 (priority_weight)");
    job.slo = file.ParseDouble(f[8], "column 9 (SLO)");
    job.arrival_s = NonNegative(file, f[9], "column 10 (arrival_time)");
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
    job.total_steps = PositiveSteps(file, f[4], "column 5 (total_steps)");
    job.arrival_s = NonNegative(file, f[5], "column 6 (arrival_time)");
    job.scale_factor = ScaleFactor(file, f[6], "column 7 (scale_factor)");
    job.source = Source(file);
    trace.jobs.push_back(std::move(job));
  }
  return trace;
}

}  // namespace jigsaw
