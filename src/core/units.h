// The one parser for unit-bearing quantities on command lines and in input files: durations,
// sizes and rates ("200Gbps", "100G", "0.005ms", "1us", "2m", "2MB", "1MiB"). Every subcommand
// goes through it (net/units.h wraps it in the network simulator's integer units; tlights
// durations use it too). Functions return false instead of throwing so callers can report
// file:line or the option's name.
#ifndef JIGSAW_CORE_UNITS_H_
#define JIGSAW_CORE_UNITS_H_

#include <cstdint>
#include <string_view>

namespace jigsaw {

// "200Gbps", "25Gbps", "100Mbps", "1Tbps", "400Kbps", "100bps"; the short forms "100G", "50M".
// At least 1 bps, at most 10^15.
bool ParseRateBps(std::string_view text, uint64_t* bits_per_second);
// "500ps", "1000ns", "1us", "0.005ms", "2s", "2m" / "2min", "1h"; a bare number is rejected
// unless bare_unit_scale > 0 (then it is taken in that unit, as a count of picoseconds).
bool ParseDurationPs(std::string_view text, int64_t* picoseconds, double bare_unit_ps = 0);
// The same spellings, in seconds (a bare number is seconds when bare_is_seconds).
bool ParseDurationSeconds(std::string_view text, double* seconds, bool bare_is_seconds = false);
// "2MB" (10^6), "1MiB" (2^20), "64KB", "4KiB", "1GB", "1500B" or a bare byte count.
bool ParseBytes(std::string_view text, uint64_t* bytes);
// "30%" (0.3) or a bare "0.3"; true only for a value in (0, max].
bool ParseRatio(std::string_view text, double max, double* ratio);

}  // namespace jigsaw

#endif  // JIGSAW_CORE_UNITS_H_
