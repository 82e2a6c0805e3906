#include "net/net_options.h"

#include <exception>

#include "core/error.h"
#include "core/limits.h"
#include "core/text_input.h"
#include "core/units.h"
#include "net/packet.h"
#include "net/units.h"

namespace jigsaw::net {
namespace {

// Exactly one traffic source, or only --background (docs/net.md).
void RequireOneSource(const NetOptions& options) {
  const bool rack = options.rack.given();
  const bool background = !options.background.cdf.empty();
  const int sources = static_cast<int>(!options.jobs.workloads.empty()) +
                      static_cast<int>(!options.traffic.empty()) +
                      static_cast<int>(!options.flows.empty()) + static_cast<int>(rack) +
                      static_cast<int>(options.ps.any_given()) +
                      static_cast<int>(options.chakra.any_given());
  if (sources > 1 || (sources == 0 && !background) || (rack && background)) {
    throw UsageError(
        "give one of --workload (one or more), --chakra (one or more), --traffic, --flows, "
        "--ps-jobs or --load, or only --background (which may also join any of them but --load)");
  }
}

JobSettings ValidateJobs(const JobOptions& options) {
  RequireCountInRange("--iterations", options.iterations, 1, kMaxNetIterations);
  RequireCountInRange("--chunks", options.chunks, 1, kMaxChunks);
  RequireCountInRange("--max-active", options.max_active, 1, kMaxActiveCollectives);
  RequireOptionInRange("--cycle-ns", options.cycle_ns, 0, kMaxCycleNs);
  JobSettings jobs;
  jobs.workloads = options.workloads;
  jobs.iterations = options.iterations;
  jobs.chunks = options.chunks;
  jobs.dims = ParseDims(options.dims);
  jobs.placement = ParseJobPlacement(options.placement);
  jobs.max_active = options.max_active;
  jobs.cycle_ns = options.cycle_ns;
  return jobs;
}

BackgroundSpec ValidateBackground(const BackgroundOptions& options, uint64_t seed) {
  BackgroundSpec spec;
  if (!ParseRatio(options.load, 1, &spec.load)) {
    throw UsageError("--background-load '" + Excerpt(options.load) +
                     "': expected a fraction like 0.3 or 30% (0..100%)");
  }
  if (!ParseDuration(options.start, &spec.start) || spec.start > 1000 * kSecond) {
    throw UsageError("--background-start '" + Excerpt(options.start) +
                     "': expected a duration like 0us");
  }
  if (!ParseDuration(options.duration, &spec.duration) || spec.duration <= 0 ||
      spec.duration > 1000 * kSecond) {
    throw UsageError("--background-duration '" + Excerpt(options.duration) +
                     "': expected a positive duration like 1ms");
  }
  RequireCountInRange("--background-priority", options.priority, 0, kNumPriorities - 1);
  spec.priority = static_cast<uint8_t>(options.priority);
  spec.seed = seed ^ 0x6261636b67726f75ULL;  // its own stream
  return spec;
}

// --stop, --timeseries, --sample-interval, --fail-link, --out, --quiet.
void ValidateOutput(const OutputOptions& options, NetRunSpec* spec) {
  if (!options.stop.empty() && !ParseDuration(options.stop, &spec->stop)) {
    throw UsageError("--stop '" + Excerpt(options.stop) + "': expected a duration like 10ms");
  }
  if (options.timeseries_given) {
    if (!ParseEnum(kTimeseriesPorts, options.timeseries, &spec->timeseries_all)) {
      throw UsageError("--timeseries '" + Excerpt(options.timeseries) + "': expected nothing, " +
                       EnumNames(kTimeseriesPorts));
    }
    if (!ParseDuration(options.sample_interval, &spec->sample_interval) ||
        spec->sample_interval <= 0 || spec->sample_interval > kSecond) {
      throw UsageError("--sample-interval '" + Excerpt(options.sample_interval) +
                       "': expected a positive duration of at most 1s like 10us");
    }
  }
  for (const std::string& text : options.fail_links) spec->failures.push_back(ParseFailLink(text));
  spec->out = options.out;
  spec->quiet = options.quiet;
}

}  // namespace

NetRunSpec NetOptions::Validate() const {
  RequireOneSource(*this);
  NetRunSpec spec;
  spec.topology = topology;
  spec.seed = seed;
  spec.fabric = fabric.Validate(seed);
  spec.fabric.config.progress = !output.quiet;
  ValidateOutput(output, &spec);
  spec.jobs = ValidateJobs(jobs);
  spec.traffic = traffic;
  spec.flows = flows;
  if (rack.given()) spec.rack = rack.Validate(seed);
  if (ps.any_given()) {
    PsJobsOptions seeded = ps;
    seeded.seed = seed;
    spec.ps = seeded.Validate();
  }
  if (chakra.any_given()) spec.chakra = chakra.Validate();
  if (!background.cdf.empty()) {
    spec.background_cdf = background.cdf;
    spec.background = ValidateBackground(background, seed);
  }
  return spec;
}

std::vector<int> ParseDims(const std::string& text) {
  std::vector<int> dims;
  if (text.empty()) return dims;
  for (std::string_view part : SplitFields(text, 'x')) {
    int value = 0;
    try {
      size_t used = 0;
      value = std::stoi(std::string(part), &used);
      if (used != part.size()) value = 0;
    } catch (const std::exception&) {
      value = 0;
    }
    if (value < 1 || value > 1'000'000 || dims.size() >= 8) {
      throw UsageError("--dims '" + Excerpt(text) +
                       "': expected at most 8 sizes of 1..1000000 like 8x16");
    }
    dims.push_back(value);
  }
  return dims;
}

LinkFailure ParseFailLink(const std::string& text) {
  auto fail = [&]() -> LinkFailure {
    throw UsageError("--fail-link '" + Excerpt(text) +
                     "': expected NODE-NODE@TIME (node ids of the topology), e.g. 0-16@100us");
  };
  const size_t at = text.find('@');
  const size_t dash = text.find('-');
  if (at == std::string::npos || dash == std::string::npos || dash > at) return fail();
  const std::string a_text = text.substr(0, dash);
  const std::string b_text = text.substr(dash + 1, at - dash - 1);
  auto all_digits = [](const std::string& t) {
    return !t.empty() && t.size() <= 9 && t.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!all_digits(a_text) || !all_digits(b_text)) return fail();
  LinkFailure failure;
  failure.a = static_cast<uint32_t>(std::stoull(a_text));
  failure.b = static_cast<uint32_t>(std::stoull(b_text));
  if (!ParseDuration(text.substr(at + 1), &failure.at) || failure.at > 1000 * kSecond) {
    return fail();
  }
  return failure;
}

}  // namespace jigsaw::net
