#include "net/rack_options.h"

#include "core/error.h"
#include "core/limits.h"
#include "core/units.h"
#include "net/units.h"

namespace jigsaw::net {

RackWorkloadSpec RackOptions::Validate(uint64_t seed) const {
  RackWorkloadSpec spec;
  if (!ParseRatio(load, 100, &spec.load)) {
    throw UsageError("--load '" + Excerpt(load) + "': expected a load like 400% or 4 (0..10000%)");
  }
  RequireOptionInRange("--rpc-load", rpc_load, 0, 0.99);
  spec.rpc_load = rpc_load;
  if (!ParseDuration(duration, &spec.duration) || spec.duration <= 0 ||
      spec.duration > 10 * kSecond) {
    throw UsageError("--duration '" + Excerpt(duration) +
                     "': expected a duration of at most 10s like 10ms");
  }
  if (!ParseDuration(drain, &spec.drain) || spec.drain > 10 * kSecond) {
    throw UsageError("--drain '" + Excerpt(drain) +
                     "': expected a duration of at most 10s like 5ms");
  }
  if (!ParseBytes(ml_bytes, &spec.ml_bytes) || spec.ml_bytes > (uint64_t{1} << 40)) {
    throw UsageError("--ml-bytes '" + Excerpt(ml_bytes) +
                     "': expected a size like 102MB (0 = no training job)");
  }
  RequireCountInRange("--ml-hosts", ml_hosts, 2, 4096);
  RequireCountInRange("--ml-chunks", ml_chunks, 1, kMaxChunks);
  spec.ml_hosts = static_cast<uint32_t>(ml_hosts);
  spec.ml_chunks = ml_chunks;
  spec.ml_with_server = ParseEnumOption(kMlPlacements, "--ml-placement", ml_placement);
  spec.ml_pattern = ParseEnumOption(kMlPatterns, "--ml-pattern", ml_pattern);
  spec.seed = seed;
  return spec;
}

}  // namespace jigsaw::net
