// Seeded synthetic workloads in the Gavel/Shockwave style: the embedded default of `jigsaw sim`.
//
// Jobs follow Shockwave's generator (scripts/utils/generate_trace.py): job types drawn uniformly
// from Gavel's 21 templates, GPUs from the (1, 2, 4, 8) mix (0.6, 0.3, 0.09, 0.01) for
// distributable models, durations from 100 values evenly spaced over [0.2 h, 5 h] in four
// classes with probabilities (0.72, 0.20, 0.05, 0.03), modes (static, accordion, gns) with
// probabilities (0, 0.5, 0.5) (accordion jobs under 1000 s become static), Poisson arrivals with
// the given mean gap (first at 0), and total_steps = duration x isolated throughput.
// SyntheticThroughputTable is a small analytic throughput model for the same job types, used when
// no throughputs.json is given.
#ifndef JIGSAW_MODEL_TRACE_GENERATOR_H_
#define JIGSAW_MODEL_TRACE_GENERATOR_H_

#include <cstdint>
#include <string>

#include "model/job_spec.h"
#include "model/throughput_table.h"

namespace jigsaw {

struct TraceGeneratorOptions {
  int jobs = 120;
  double mean_interarrival_s = 40;
  double min_duration_h = 0.2;
  double max_duration_h = 5.0;
  int duration_values = 100;
  double mode_mix[3] = {0.0, 0.5, 0.5};  // static, accordion, gns
  double scale_factor_mix[4] = {0.6, 0.3, 0.09, 0.01};
  uint64_t seed = 0;
};

// Throws UsageError on invalid options or when `table` lacks a generated (type, sf) pair.
Trace GenerateTrace(const TraceGeneratorOptions& options, const ThroughputTable& table,
                    const std::string& worker_type = "v100");

// Analytic v100 throughputs (iterations/s) for every generated job type at 1, 2, 4 and 8 GPUs:
// time per iteration = fixed overhead + batch / samples-per-second, and multi-GPU throughput
// scaled by 0.9 per doubling. Synthetic: not measurements.
ThroughputTable SyntheticThroughputTable();

// Gives each type-less job (Philly-style: GPUs and a duration only) a job type drawn uniformly,
// with `seed`, from the generator's templates that `table` has at the job's GPU count (single-GPU
// templates only for 1-GPU jobs), as Gavel does when it types the Philly trace. Its work becomes
// duration x isolated throughput iterations, so it still runs for its traced duration alone.
// Jobs whose GPU count no template covers stay type-less. Returns how many were typed.
int AssignJobTypes(Trace* trace, const ThroughputTable& table, const std::string& worker_type,
                   uint64_t seed);

// Writes jobs in Shockwave's 12-column format (readable by ReadTrace).
std::string FormatShockwaveTrace(const Trace& trace);

}  // namespace jigsaw

#endif  // JIGSAW_MODEL_TRACE_GENERATOR_H_
