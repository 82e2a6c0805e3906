// Simulated time and the unit-bearing quantities of network inputs.
//
// Time is an integer count of picoseconds (int64: ~106 days of simulated time), so event order
// never depends on floating-point rounding. No event may lie past kMaxTime (10^6 s simulated,
// core/limits.h): the event queue refuses it with a UsageError (a link too slow for the traffic
// or a workload too long), so time arithmetic never overflows. Rates are bits per second. The
// Parse* helpers accept the spellings used by ns-3/HPCC topology files and by the CLI ("200Gbps",
// "100G", "0.005ms", "1us", "2MB", "1MiB"); they return false instead of throwing so callers can
// report file:line.
#ifndef JIGSAW_NET_UNITS_H_
#define JIGSAW_NET_UNITS_H_

#include <cstdint>
#include <string_view>

#include "core/limits.h"

namespace jigsaw::net {

using Time = int64_t;  // picoseconds

inline constexpr Time kPicosecond = 1;
inline constexpr Time kNanosecond = 1000;
inline constexpr Time kMicrosecond = 1000 * kNanosecond;
inline constexpr Time kMillisecond = 1000 * kMicrosecond;
inline constexpr Time kSecond = 1000 * kMillisecond;
inline constexpr Time kNever = INT64_MAX;
inline constexpr Time kMaxTime = kMaxNetTimePs;
// What a duration saturates to: past the horizon, yet now + it cannot overflow.
inline constexpr Time kPastHorizon = kMaxTime + 1;

// Time to put `bytes` on a wire of `rate_bps` (rounded down to a picosecond; kPastHorizon if
// longer than the horizon).
inline Time SerializationTime(uint64_t bytes, uint64_t rate_bps) {
  const unsigned __int128 ps =
      static_cast<unsigned __int128>(bytes) * 8 * 1'000'000'000'000ULL / rate_bps;
  return ps > static_cast<unsigned __int128>(kMaxTime) ? kPastHorizon : static_cast<Time>(ps);
}

// A duration in picoseconds from a floating-point count (NaN, negative and huge values
// saturate to 0 and kPastHorizon, never an undefined cast).
inline Time SaturatingTime(double picoseconds) {
  if (!(picoseconds > 0)) return 0;
  if (picoseconds > static_cast<double>(kMaxTime)) return kPastHorizon;
  return static_cast<Time>(picoseconds);
}

inline double ToMicroseconds(Time t) { return static_cast<double>(t) / kMicrosecond; }
// Microseconds rounded to 3 decimals (the nanosecond), as summary.json prints times.
double RoundedMicroseconds(Time t);

// "200Gbps", "25Gbps", "100Mbps", "1Tbps", "400Kbps", "100bps"; the short forms "100G", "50M" too.
bool ParseRate(std::string_view text, uint64_t* bits_per_second);
// "0.005ms", "1000ns", "1us", "2s", "500ps"; a bare number is rejected (units are mandatory).
bool ParseDuration(std::string_view text, Time* time);
// "2MB" (10^6), "1MiB" (2^20), "64KB", "4KiB", "1GB", "1500B" or a bare byte count.
bool ParseBytes(std::string_view text, uint64_t* bytes);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_UNITS_H_
