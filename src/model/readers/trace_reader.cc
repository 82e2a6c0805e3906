#include <algorithm>

#include "core/error.h"
#include "core/limits.h"
#include "core/text_input.h"
#include "model/trace_readers.h"

namespace jigsaw {

TraceFormat ParseTraceFormat(const std::string& name) {
  if (name == "auto") return TraceFormat::kAuto;
  if (name == "shockwave") return TraceFormat::kShockwave;
  if (name == "gavel") return TraceFormat::kGavel;
  if (name == "gavel_msr") return TraceFormat::kGavelMsr;
  if (name == "philly") return TraceFormat::kPhilly;
  if (name == "pollux") return TraceFormat::kPollux;
  throw UsageError("unknown trace format '" + Excerpt(name) +
                   "' (expected auto, shockwave, gavel, gavel_msr, philly or pollux)");
}

namespace {

TraceFormat DetectFormat(const std::string& name, const std::string& text) {
  TextFile probe(name, text);
  std::string_view line;
  while (probe.NextLine(&line)) {
    if (Trim(line).empty() || line[0] == '#') continue;
    if (line.rfind("timestamp,", 0) == 0) return TraceFormat::kPhilly;
    if (line.rfind("name,time,", 0) == 0) return TraceFormat::kPollux;
    const size_t columns = SplitFields(line, '\t').size();
    if (columns == 12) return TraceFormat::kShockwave;
    if (columns == 10) return TraceFormat::kGavel;
    if (columns == 7) return TraceFormat::kGavelMsr;
    probe.Fail(
        "cannot tell the trace format: expected 12 (Shockwave), 10 (Gavel) or 7 (Gavel "
        "msr) tab-separated columns, or a CSV header 'timestamp,duration,...' (Philly) or "
        "'name,time,...' (Pollux); got " +
        std::to_string(columns) + " tab-separated column(s)");
  }
  throw InputError(name, 0, "empty trace: expected at least one job");
}

}  // namespace

Trace ParseTrace(const std::string& name, const std::string& text, TraceFormat format) {
  if (format == TraceFormat::kAuto) format = DetectFormat(name, text);
  TextFile file(name, text);
  Trace trace;
  switch (format) {
    case TraceFormat::kShockwave:
      trace = ParseShockwaveTrace(file);
      break;
    case TraceFormat::kGavel:
      trace = ParseGavelTrace(file);
      break;
    case TraceFormat::kGavelMsr:
      trace = ParseGavelMsrTrace(file);
      break;
    case TraceFormat::kPhilly:
      trace = ParsePhillyCsv(file);
      break;
    case TraceFormat::kPollux:
      trace = ParsePolluxCsv(file);
      break;
    case TraceFormat::kAuto:
      break;
  }
  if (trace.jobs.empty()) throw InputError(name, 0, "empty trace: expected at least one job");
  if (trace.jobs.size() > kMaxTraceJobs) {
    throw InputError(name, 0,
                     "expected at most " + std::to_string(kMaxTraceJobs) +
                         " jobs (docs/limits.md), got " + std::to_string(trace.jobs.size()));
  }
  trace.name = name;
  FinishTrace(&trace);
  return trace;
}

Trace ReadTrace(const std::string& path, TraceFormat format) {
  return ParseTrace(path, ReadWholeFile(path), format);
}

void FinishTrace(Trace* trace) {
  std::stable_sort(trace->jobs.begin(), trace->jobs.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.arrival_s < b.arrival_s; });
  for (size_t i = 0; i < trace->jobs.size(); ++i) trace->jobs[i].id = static_cast<int>(i);
}

}  // namespace jigsaw
