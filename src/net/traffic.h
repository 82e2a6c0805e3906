// Synthetic traffic for benchmarks and tests: a random permutation (every host sends `bytes` to a
// distinct other host, a derangement drawn from the seed) and N:1 incast (hosts 1..N to host 0).
#ifndef JIGSAW_NET_TRAFFIC_H_
#define JIGSAW_NET_TRAFFIC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "net/network.h"

namespace jigsaw::net {

struct TrafficSpec {
  enum class Kind { kPermutation, kIncast } kind = Kind::kPermutation;
  int senders = 0;  // incast only
  uint64_t bytes = 0;
};

// "permutation:2MB" or "incast:16:1MB"; throws UsageError otherwise.
TrafficSpec ParseTrafficSpec(const std::string& text);
// Adds the flows at time 0 and returns their ids.
std::vector<uint32_t> AddTraffic(Network* network, const TrafficSpec& spec, uint64_t seed);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_TRAFFIC_H_
