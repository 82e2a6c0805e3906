// Continuous arrival streams for steady-state measurement, as Gavel's sweeps use them.
//
// Gavel measures a scheduler at a given load by generating jobs continuously at a fixed arrival
// rate (jobs per hour) and measuring only the jobs in a window of ids [start, end), well after the
// cluster has filled up and while arrivals continue (its `run_sweep_continuous`). MakeArrivalStream
// builds such a stream from a trace's jobs: `jobs` jobs drawn uniformly at random, with
// replacement, from the source (optionally only those no longer than `max_duration_h` alone,
// e.g. to mirror Gavel's Philly-like generator, which draws at most 10^4 minutes), with Poisson
// arrivals at `rate_per_hour` (exponential gaps, the first job at 0). Job ids are renumbered
// 0..jobs-1 in arrival order; each job's source names the stream and the original job's source.
// The same source, options and seed always give the same stream.
#ifndef JIGSAW_MODEL_ARRIVAL_STREAM_H_
#define JIGSAW_MODEL_ARRIVAL_STREAM_H_

#include <cstdint>

#include "model/job_spec.h"

namespace jigsaw {

struct ArrivalStreamOptions {
  int jobs = 0;               // > 0
  double rate_per_hour = 0;   // > 0
  double max_duration_h = 0;  // > 0: only source jobs at most this long alone; 0: all
  uint64_t seed = 0;
};

// Throws UsageError on invalid options or when no source job qualifies.
Trace MakeArrivalStream(const Trace& source, const ArrivalStreamOptions& options);

// Load scaling (`jigsaw sim --load X`, a sweep's load axis): divides every arrival time by X, so
// the arrival rate is X times the trace's (the jobs themselves are unchanged). Throws UsageError
// unless 0 < X <= 10^6.
void ScaleArrivalRate(Trace* trace, double load);

// A job's duration alone in seconds: the trace's duration if given, else the work of a
// type-less job; 0 if unknown.
double NominalDurationS(const JobSpec& job);

}  // namespace jigsaw

#endif  // JIGSAW_MODEL_ARRIVAL_STREAM_H_
