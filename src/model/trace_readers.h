// Readers for the trace formats of the systems jigsaw is compared with.
//
// Each reader returns jobs sorted by arrival (ties keep file order) with ids in that order, and
// throws InputError naming file:line and what was expected on malformed input. Blank lines and
// lines starting with '#' are skipped in the tab-separated formats.
//
//   shockwave   12 tab-separated columns: job_type, command, working_directory, num_steps_arg,
//               needs_data_dir, total_steps, scale_factor, mode, priority_weight, SLO, duration,
//               arrival_time
//   gavel       10 columns: job_type, command, working_directory, num_steps_arg, needs_data_dir,
//               total_steps, scale_factor, priority_weight, SLO, arrival_time
//   gavel_msr   7 columns (legacy Philly-derived): job_type, command, num_steps_arg,
//               needs_data_dir, total_steps, arrival_time, scale_factor
//   philly      CSV with header timestamp,duration,num_gpus,gpu_time,cluster; arrival is seconds
//               after the earliest timestamp; jobs are type-less (work = duration seconds)
//   pollux      CSV with header name,time,application,num_replicas,batch_size; jobs are
//               type-less with a nominal per-application GPU time (see PolluxNominalGpuHours)
#ifndef JIGSAW_MODEL_TRACE_READERS_H_
#define JIGSAW_MODEL_TRACE_READERS_H_

#include <string>

#include "model/job_spec.h"

namespace jigsaw {

enum class TraceFormat { kAuto, kShockwave, kGavel, kGavelMsr, kPhilly, kPollux };

// "auto", "shockwave", "gavel", "gavel_msr", "philly", "pollux"; throws UsageError otherwise.
TraceFormat ParseTraceFormat(const std::string& name);

// Reads `path` in `format`; kAuto looks at the CSV header or the tab-column count of the first
// data line.
Trace ReadTrace(const std::string& path, TraceFormat format = TraceFormat::kAuto);
// Same, from text in memory (`name` appears in error messages).
Trace ParseTrace(const std::string& name, const std::string& text,
                 TraceFormat format = TraceFormat::kAuto);

// Nominal GPU-hours per Pollux application: the geometric middle of the GPU-time bucket the
// Pollux workload generator drew that application from (cifar10/ncf < 1 h, deepspeech2/bert
// 1-10 h, yolov3 10-100 h, imagenet 100-1000 h). Returns 0 for an unknown application.
double PolluxNominalGpuHours(const std::string& application);

// Internal, per format (text already loaded).
class TextFile;
Trace ParseShockwaveTrace(TextFile& file);
Trace ParseGavelTrace(TextFile& file);
Trace ParseGavelMsrTrace(TextFile& file);
Trace ParsePhillyCsv(TextFile& file);
Trace ParsePolluxCsv(TextFile& file);
// Sorts by arrival (stable) and renumbers ids.
void FinishTrace(Trace* trace);

}  // namespace jigsaw

#endif  // JIGSAW_MODEL_TRACE_READERS_H_
