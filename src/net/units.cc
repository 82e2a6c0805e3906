#include "net/units.h"

#include <charconv>
#include <cmath>
#include <string>

namespace jigsaw::net {
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

template <size_t N>
bool Scale(std::string_view text, const Unit (&units)[N], bool allow_bare, double* out) {
  double value;
  std::string_view suffix;
  if (!SplitNumber(text, &value, &suffix)) return false;
  if (suffix.empty()) {
    if (!allow_bare) return false;
    *out = value;
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

}  // namespace

bool ParseRate(std::string_view text, uint64_t* bits_per_second) {
  static constexpr Unit kUnits[] = {{"Tbps", 1e12}, {"Gbps", 1e9}, {"Mbps", 1e6},
                                    {"Kbps", 1e3},  {"bps", 1.0},  {"T", 1e12},
                                    {"G", 1e9},     {"M", 1e6},    {"K", 1e3}};
  double value;
  if (!Scale(text, kUnits, false, &value) || value < 1.0 || value > 1e15) return false;
  *bits_per_second = static_cast<uint64_t>(std::llround(value));
  return true;
}

bool ParseDuration(std::string_view text, Time* time) {
  static constexpr Unit kUnits[] = {
      {"s", 1e12}, {"ms", 1e9}, {"us", 1e6}, {"ns", 1e3}, {"ps", 1.0}};
  double value;
  if (!Scale(text, kUnits, false, &value) || value > 9e18) return false;
  *time = static_cast<Time>(std::llround(value));
  return true;
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
  if (!Scale(text, kUnits, true, &value) || value > 1e15) return false;
  *bytes = static_cast<uint64_t>(std::llround(value));
  return true;
}

}  // namespace jigsaw::net
