#include "model/arrival_stream.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/output.h"
#include "core/rng.h"

namespace jigsaw {

double NominalDurationS(const JobSpec& job) {
  if (job.duration_s > 0) return job.duration_s;
  return job.typed() ? 0 : job.total_steps;
}

Trace MakeArrivalStream(const Trace& source, const ArrivalStreamOptions& options) {
  if (options.jobs <= 0) throw UsageError("the arrival stream needs a positive number of jobs");
  if (!(options.rate_per_hour > 0) || !std::isfinite(options.rate_per_hour)) {
    throw UsageError("--arrival-rate-jph must be a positive number of jobs per hour");
  }
  if (!(options.max_duration_h >= 0)) {
    throw UsageError("--stream-max-hours must be >= 0 (0: no limit)");
  }
  std::vector<const JobSpec*> pool;
  for (const JobSpec& job : source.jobs) {
    if (options.max_duration_h > 0 && !(NominalDurationS(job) <= 3600 * options.max_duration_h)) {
      continue;
    }
    pool.push_back(&job);
  }
  if (pool.empty()) {
    throw UsageError("no job of " + source.name + " qualifies for the arrival stream");
  }
  Rng draw(options.seed), gaps(options.seed + 1);
  const double mean_gap_s = 3600.0 / options.rate_per_hour;
  Trace stream;
  stream.name = source.name + " as a stream (" + std::to_string(options.jobs) + " jobs, " +
                FormatFixed(options.rate_per_hour, 3) + " jobs/h, seed " +
                std::to_string(options.seed) + ")";
  double arrival = 0;
  for (int i = 0; i < options.jobs; ++i) {
    JobSpec job = *pool[draw.UniformInt(pool.size())];
    if (i > 0) arrival += gaps.Exponential(mean_gap_s);
    job.arrival_s = arrival;
    job.id = i;
    job.source = "stream job " + std::to_string(i) + " from " + job.source;
    stream.jobs.push_back(std::move(job));
  }
  return stream;
}

void ScaleArrivalRate(Trace* trace, double load) {
  if (!(load > 0 && load <= 1e6)) {
    throw UsageError("--load must be in (0, 1e6], got " + std::to_string(load));
  }
  for (JobSpec& job : trace->jobs) job.arrival_s /= load;
}

}  // namespace jigsaw
