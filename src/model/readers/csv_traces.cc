// Philly-derived CSV (Pollux artifact) and Pollux workload CSV.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/limits.h"
#include "core/text_input.h"
#include "model/trace_readers.h"

namespace jigsaw {
namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
long long DaysFromCivil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

// "YYYY-MM-DD HH:MM:SS" -> seconds since the Unix epoch.
double ParseTimestamp(const TextFile& file, std::string_view text) {
  text = Trim(text);
  auto fail = [&] {
    file.Fail("expected a timestamp 'YYYY-MM-DD HH:MM:SS' in column 1 (timestamp), got '" +
              Excerpt(text) + "'");
  };
  if (text.size() != 19 || text[4] != '-' || text[7] != '-' || text[10] != ' ' || text[13] != ':' ||
      text[16] != ':') {
    fail();
  }
  auto number = [&](size_t at, size_t len) {
    long long value = 0;
    for (size_t i = at; i < at + len; ++i) {
      if (text[i] < '0' || text[i] > '9') fail();
      value = value * 10 + (text[i] - '0');
    }
    return value;
  };
  long long year = number(0, 4), month = number(5, 2), day = number(8, 2);
  long long hour = number(11, 2), minute = number(14, 2), second = number(17, 2);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    fail();
  }
  return static_cast<double>(DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 +
                             second);
}

void RequireHeader(TextFile& file, std::string_view expected) {
  std::string_view line;
  while (file.NextLine(&line)) {
    if (Trim(line).empty()) continue;
    if (Trim(line) != expected) {
      file.Fail("expected the header '" + std::string(expected) + "', got '" + Excerpt(line) + "'");
    }
    return;
  }
  file.Fail("expected the header '" + std::string(expected) + "', got an empty file");
}

int PositiveGpus(const TextFile& file, std::string_view field, const char* what) {
  if (file.ParseInt(field, what) < 1) {
    file.Fail(std::string("expected a positive GPU count in ") + what + ", got '" + Excerpt(field) +
              "'");
  }
  return static_cast<int>(file.ParseIntInRange(field, what, 1, kMaxGpus));
}

}  // namespace

Trace ParsePhillyCsv(TextFile& file) {
  RequireHeader(file, "timestamp,duration,num_gpus,gpu_time,cluster");
  Trace trace;
  std::vector<int> lines;
  double earliest = std::numeric_limits<double>::infinity();
  std::string_view line;
  while (file.NextLine(&line)) {
    if (Trim(line).empty()) continue;
    auto f = SplitFields(line, ',');
    file.RequireColumns(f, 5, "timestamp,duration,num_gpus,gpu_time,cluster");
    JobSpec job;
    job.arrival_s = ParseTimestamp(file, f[0]);
    if (!(file.ParseDouble(f[1], "column 2 (duration)") > 0)) {
      file.Fail("expected a positive duration in column 2 (duration), got '" + Excerpt(f[1]) + "'");
    }
    job.duration_s = file.ParseDoubleInRange(f[1], "column 2 (duration)", 0, kMaxTraceSeconds);
    job.scale_factor = PositiveGpus(file, f[2], "column 3 (num_gpus)");
    job.total_steps = job.duration_s;
    job.source = file.name() + ":" + std::to_string(file.line_number());
    earliest = std::min(earliest, job.arrival_s);
    trace.jobs.push_back(std::move(job));
    lines.push_back(file.line_number());
  }
  for (size_t i = 0; i < trace.jobs.size(); ++i) {
    JobSpec& job = trace.jobs[i];
    job.arrival_s -= earliest;
    if (job.arrival_s > kMaxTraceSeconds) {
      throw InputError(file.name(), lines[i],
                       "expected a timestamp at most " + FormatNumber(kMaxTraceSeconds) +
                           " s after the earliest one in column 1 (timestamp) (docs/limits.md), "
                           "got " +
                           FormatNumber(job.arrival_s) + " s after it");
    }
  }
  return trace;
}

double PolluxNominalGpuHours(const std::string& application) {
  if (application == "cifar10" || application == "ncf") return std::sqrt(1.0 / 60.0);
  if (application == "deepspeech2" || application == "bert") return std::sqrt(10.0);
  if (application == "yolov3") return std::sqrt(10.0 * 100.0);
  if (application == "imagenet") return std::sqrt(100.0 * 1000.0);
  return 0;
}

Trace ParsePolluxCsv(TextFile& file) {
  RequireHeader(file, "name,time,application,num_replicas,batch_size");
  Trace trace;
  std::string_view line;
  while (file.NextLine(&line)) {
    if (Trim(line).empty()) continue;
    auto f = SplitFields(line, ',');
    file.RequireColumns(f, 5, "name,time,application,num_replicas,batch_size");
    JobSpec job;
    job.arrival_s = file.ParseDoubleInRange(f[1], "column 2 (time)", 0, kMaxTraceSeconds);
    const std::string application(Trim(f[2]));
    const double gpu_hours = PolluxNominalGpuHours(application);
    if (gpu_hours <= 0) {
      file.Fail(
          "expected application cifar10, ncf, deepspeech2, bert, yolov3 or imagenet in "
          "column 3 (application), got '" +
          Excerpt(application) + "'");
    }
    job.scale_factor = PositiveGpus(file, f[3], "column 4 (num_replicas)");
    const long long batch = file.ParseIntInRange(f[4], "column 5 (batch_size)", 1, kMaxBatchSize);
    job.batch_size = static_cast<int>(batch);
    job.model = application;
    job.duration_s = gpu_hours * 3600.0 / job.scale_factor;
    job.total_steps = job.duration_s;
    job.source = file.name() + ":" + std::to_string(file.line_number());
    trace.jobs.push_back(std::move(job));
  }
  return trace;
}

}  // namespace jigsaw
