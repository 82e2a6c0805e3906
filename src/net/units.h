// Simulated time and the unit-bearing quantities of network inputs.
//
// Time is an integer count of picoseconds (int64: ~106 days of simulated time), so event order
// never depends on floating-point rounding. Rates are bits per second. The Parse* helpers accept
// the spellings used by ns-3/HPCC topology files and by the CLI ("200Gbps", "100G", "0.005ms",
// "1us", "2MB", "1MiB"); they return false instead of throwing so callers can report file:line.
#ifndef JIGSAW_NET_UNITS_H_
#define JIGSAW_NET_UNITS_H_

#include <cstdint>
#include <string_view>

namespace jigsaw::net {

using Time = int64_t;  // picoseconds

inline constexpr Time kPicosecond = 1;
inline constexpr Time kNanosecond = 1000;
inline constexpr Time kMicrosecond = 1000 * kNanosecond;
inline constexpr Time kMillisecond = 1000 * kMicrosecond;
inline constexpr Time kSecond = 1000 * kMillisecond;
inline constexpr Time kNever = INT64_MAX;

// Time to put `bytes` on a wire of `rate_bps` (rounded down to a picosecond).
inline Time SerializationTime(uint64_t bytes, uint64_t rate_bps) {
  return static_cast<Time>(bytes * 8 * 1'000'000'000'000ULL / rate_bps);
}

inline double ToMicroseconds(Time t) { return static_cast<double>(t) / kMicrosecond; }

// "200Gbps", "25Gbps", "100Mbps", "1Tbps", "400Kbps", "100bps"; the short forms "100G", "50M" too.
bool ParseRate(std::string_view text, uint64_t* bits_per_second);
// "0.005ms", "1000ns", "1us", "2s", "500ps"; a bare number is rejected (units are mandatory).
bool ParseDuration(std::string_view text, Time* time);
// "2MB" (10^6), "1MiB" (2^20), "64KB", "4KiB", "1GB", "1500B" or a bare byte count.
bool ParseBytes(std::string_view text, uint64_t* bytes);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_UNITS_H_
