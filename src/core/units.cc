#include "core/units.h"

#include <charconv>
#include <cmath>

namespace jigsaw {
namespace {

// Splits "12.5Gbps" into 12.5 and "Gbps"; false if there is no leading number.
bool SplitNumber(std::string_view text, double* value, std::string_view* suffix) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, *value);
  if (ec != std::errc() || ptr == begin || !std::isfinite(*value) || *value < 0) return false;
  *suffix = std::string_view(ptr, static_cast<size_t>(end - ptr));
  return true;
}

struct Unit {
  std::string_view name;
  double scale;
};

// bare_scale > 0: a number without a unit is taken in that scale; 0: rejected.
template <size_t N>
bool Scale(std::string_view text, const Unit (&units)[N], double bare_scale, double* out) {
  double value;
  std::string_view suffix;
  if (!SplitNumber(text, &value, &suffix)) return false;
  if (suffix.empty()) {
    if (!(bare_scale > 0)) return false;
    *out = value * bare_scale;
    return true;
  }
  for (const Unit& unit : units) {
    if (suffix == unit.name) {
      *out = value * unit.scale;
      return true;
    }
  }
  return false;
}

constexpr Unit kDurationUnitsPs[] = {{"h", 3600e12}, {"min", 60e12}, {"m", 60e12}, {"s", 1e12},
                                     {"ms", 1e9},    {"us", 1e6},    {"ns", 1e3},  {"ps", 1.0}};

}  // namespace

bool ParseRateBps(std::string_view text, uint64_t* bits_per_second) {
  static constexpr Unit kUnits[] = {{"Tbps", 1e12}, {"Gbps", 1e9}, {"Mbps", 1e6},
                                    {"Kbps", 1e3},  {"bps", 1.0},  {"T", 1e12},
                                    {"G", 1e9},     {"M", 1e6},    {"K", 1e3}};
  double value;
  if (!Scale(text, kUnits, 0, &value) || value < 1.0 || value > 1e15) return false;
  *bits_per_second = static_cast<uint64_t>(std::llround(value));
  return true;
}

bool ParseDurationPs(std::string_view text, int64_t* picoseconds, double bare_unit_ps) {
  double value;
  if (!Scale(text, kDurationUnitsPs, bare_unit_ps, &value) || value > 9e18) return false;
  *picoseconds = static_cast<int64_t>(std::llround(value));
  return true;
}

bool ParseDurationSeconds(std::string_view text, double* seconds, bool bare_is_seconds) {
  double value;
  if (!Scale(text, kDurationUnitsPs, bare_is_seconds ? 1e12 : 0, &value)) return false;
  *seconds = value / 1e12;
  return std::isfinite(*seconds);
}

bool ParseBytes(std::string_view text, uint64_t* bytes) {
  static constexpr Unit kUnits[] = {{"B", 1.0},
                                    {"KB", 1e3},
                                    {"MB", 1e6},
                                    {"GB", 1e9},
                                    {"KiB", 1024.0},
                                    {"MiB", 1024.0 * 1024},
                                    {"GiB", 1024.0 * 1024 * 1024}};
  double value;
  if (!Scale(text, kUnits, 1.0, &value) || value > 1e15) return false;
  *bytes = static_cast<uint64_t>(std::llround(value));
  return true;
}

bool ParseRatio(std::string_view text, double max, double* ratio) {
  static constexpr Unit kUnits[] = {{"%", 0.01}};
  double value;
  if (!Scale(text, kUnits, 1.0, &value) || !(value > 0) || value > max) return false;
  *ratio = value;
  return true;
}

}  // namespace jigsaw
