#include "net/units.h"

#include "core/output.h"
#include "core/units.h"

namespace jigsaw::net {

// The network simulator's spellings are core/units.h's (one parser for every subcommand).
bool ParseRate(std::string_view text, uint64_t* bits_per_second) {
  return ParseRateBps(text, bits_per_second);
}

bool ParseDuration(std::string_view text, Time* time) { return ParseDurationPs(text, time); }

bool ParseBytes(std::string_view text, uint64_t* bytes) { return jigsaw::ParseBytes(text, bytes); }

double RoundedMicroseconds(Time t) { return RoundTo(ToMicroseconds(t), 3); }

}  // namespace jigsaw::net
