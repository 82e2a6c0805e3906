#include "net/traffic.h"

#include <numeric>

#include "core/error.h"
#include "core/limits.h"
#include "core/rng.h"
#include "core/text_input.h"

namespace jigsaw::net {

TrafficSpec ParseTrafficSpec(const std::string& text) {
  auto fields = SplitFields(text, ':');
  TrafficSpec spec;
  auto fail = [&]() -> TrafficSpec {
    throw UsageError("--traffic '" + Excerpt(text) +
                     "': expected permutation:<bytes> or incast:<senders>:<bytes>, at most " +
                     std::to_string(kMaxCollectiveBytes) + " bytes per flow (docs/limits.md)");
  };
  if (fields.size() == 2 && fields[0] == "permutation") {
    spec.kind = TrafficSpec::Kind::kPermutation;
    if (!ParseBytes(fields[1], &spec.bytes) || spec.bytes == 0 ||
        spec.bytes > kMaxCollectiveBytes) {
      fail();
    }
    return spec;
  }
  if (fields.size() == 3 && fields[0] == "incast") {
    spec.kind = TrafficSpec::Kind::kIncast;
    uint64_t senders = 0;
    if (!ParseBytes(fields[1], &senders) || senders == 0 || senders > 1'000'000) fail();
    spec.senders = static_cast<int>(senders);
    if (!ParseBytes(fields[2], &spec.bytes) || spec.bytes == 0 ||
        spec.bytes > kMaxCollectiveBytes) {
      fail();
    }
    return spec;
  }
  return fail();
}

std::vector<uint32_t> AddTraffic(Network* network, const TrafficSpec& spec, uint64_t seed) {
  const uint32_t hosts = network->num_hosts();
  std::vector<uint32_t> ids;
  if (spec.kind == TrafficSpec::Kind::kIncast) {
    if (static_cast<uint32_t>(spec.senders) >= hosts) {
      throw UsageError("incast of " + std::to_string(spec.senders) + " senders needs more than " +
                       std::to_string(hosts) + " hosts");
    }
    for (int s = 1; s <= spec.senders; ++s) ids.push_back(network->AddFlow(s, 0, spec.bytes, 0, 0));
    return ids;
  }
  if (hosts < 2) throw UsageError("a permutation needs at least 2 hosts");
  // Sattolo's algorithm: a uniformly random single cycle, so no host sends to itself.
  std::vector<uint32_t> target(hosts);
  std::iota(target.begin(), target.end(), 0);
  Rng rng(seed);
  for (uint32_t i = hosts - 1; i > 0; --i) {
    uint32_t j = static_cast<uint32_t>(rng.UniformInt(i));
    std::swap(target[i], target[j]);
  }
  for (uint32_t h = 0; h < hosts; ++h)
    ids.push_back(network->AddFlow(h, target[h], spec.bytes, 0, 0));
  return ids;
}

}  // namespace jigsaw::net
