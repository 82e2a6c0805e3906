// Reading JSON inputs within the limits of core/limits.h, with file:line errors.
//
// ParseJsonInput checks the text before nlohmann's parser sees it: nesting (objects and arrays)
// at most kMaxJsonDepth deep, every number finite as a double (1e400 is refused, not turned into
// a parser exception with exit 1). Errors are InputError(name, line, "<expected>: ...") with at
// most kMaxEchoBytes of the input quoted. JsonInteger / JsonNumber convert a parsed value with a
// range check: nlohmann's get<int>() of 1e300 is an undefined cast, these throw JsonValueError
// (a std::invalid_argument naming `what` and the range) instead; readers turn it into
// InputError at the entry's line.
#ifndef JIGSAW_CORE_JSON_INPUT_H_
#define JIGSAW_CORE_JSON_INPUT_H_

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/limits.h"
#include "core/text_input.h"

namespace jigsaw {

class JsonValueError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Throws InputError(name, line, ...) if `text` nests deeper than kMaxJsonDepth or holds a number
// that is not finite as a double.
void CheckJsonText(const std::string& name, std::string_view text);

// 1-based line of every object that is an element of an array that is a value of the root
// object, in file order: the entries of {"entries": [{...}, ...]} (for file:line errors).
std::vector<int> JsonArrayEntryLines(std::string_view text);

// CheckJsonText, then parse; a syntax error is InputError(name, its line, expected + ": " + the
// parser's message).
template <typename JsonType>
JsonType ParseJsonInput(const std::string& name, const std::string& text,
                        const std::string& expected) {
  CheckJsonText(name, text);
  try {
    return JsonType::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(name, LineOfOffset(text, e.byte > 0 ? e.byte - 1 : 0),
                     expected + ": " + BoundedMessage(e.what()));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(name, 0, expected + ": " + BoundedMessage(e.what()));
  }
}

template <typename JsonType>
long long JsonInteger(const JsonType& value, std::string_view what, long long lo, long long hi) {
  double number = std::numeric_limits<double>::quiet_NaN();
  if (value.is_number_unsigned()) {
    const auto u = value.template get<typename JsonType::number_unsigned_t>();
    number = u > static_cast<unsigned long long>(hi) ? std::numeric_limits<double>::infinity()
                                                     : static_cast<double>(u);
    if (u <= static_cast<unsigned long long>(hi) && static_cast<long long>(u) >= lo) {
      return static_cast<long long>(u);
    }
  } else if (value.is_number_integer()) {
    const long long v = value.template get<long long>();
    if (v >= lo && v <= hi) return v;
    number = static_cast<double>(v);
  } else if (value.is_number_float()) {
    number = value.template get<double>();
    if (number == std::floor(number) && number >= static_cast<double>(lo) &&
        number <= static_cast<double>(hi)) {
      return static_cast<long long>(number);
    }
  }
  throw JsonValueError(std::string(what) + ": expected an integer in [" + std::to_string(lo) +
                       ", " + std::to_string(hi) + "] (docs/limits.md), got " +
                       (value.is_number() ? FormatNumber(number) : Excerpt(value.dump())));
}

template <typename JsonType>
double JsonNumber(const JsonType& value, std::string_view what, double lo, double hi) {
  if (value.is_number()) {
    const double number = value.template get<double>();
    if (number >= lo && number <= hi) return number;
    throw JsonValueError(std::string(what) + ": expected a number in [" + FormatNumber(lo) + ", " +
                         FormatNumber(hi) + "] (docs/limits.md), got " + FormatNumber(number));
  }
  throw JsonValueError(std::string(what) + ": expected a number, got " + Excerpt(value.dump()));
}

}  // namespace jigsaw

#endif  // JIGSAW_CORE_JSON_INPUT_H_
