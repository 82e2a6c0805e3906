// One table per enum of the packet simulator's options: each row maps a value to the name the
// command line and summary.json use, with an optional one-line meaning for help text. Parsing,
// naming, help text and the "expected ..." lists of errors all read the same table, so they cannot
// drift apart. Rows marked `alias` are accepted when parsing but never listed or printed.
#ifndef JIGSAW_NET_ENUM_TABLE_H_
#define JIGSAW_NET_ENUM_TABLE_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/limits.h"

namespace jigsaw::net {

template <typename T>
struct EnumName {
  T value;
  const char* name;
  const char* meaning = nullptr;  // for help text; nullptr: none
  bool alias = false;             // accepted by ParseEnum, never listed nor returned by EnumNameOf
};

// The value named `text` (aliases included); false if no row names it.
template <typename T, size_t N>
bool ParseEnum(const EnumName<T> (&table)[N], std::string_view text, T* value) {
  for (const EnumName<T>& row : table) {
    if (text == row.name) {
      *value = row.value;
      return true;
    }
  }
  return false;
}

// The first non-alias name of `value`, or "?" if no row has it.
template <typename T, size_t N>
const char* EnumNameOf(const EnumName<T> (&table)[N], T value) {
  for (const EnumName<T>& row : table) {
    if (!row.alias && row.value == value) return row.name;
  }
  return "?";
}

// "a, b or c": the non-alias names, for "expected ..." in errors.
template <typename T, size_t N>
std::string EnumNames(const EnumName<T> (&table)[N]) {
  std::string names;
  size_t count = 0;
  for (const EnumName<T>& row : table) count += row.alias ? 0 : 1;
  size_t listed = 0;
  for (const EnumName<T>& row : table) {
    if (row.alias) continue;
    if (listed > 0) names += listed + 1 == count ? " or " : ", ";
    names += row.name;
    ++listed;
  }
  return names;
}

// "a (meaning), b, c (meaning)": the non-alias names with their meanings, for help text.
template <typename T, size_t N>
std::string EnumHelp(const EnumName<T> (&table)[N]) {
  std::string help;
  for (const EnumName<T>& row : table) {
    if (row.alias) continue;
    if (!help.empty()) help += ", ";
    help += row.name;
    if (row.meaning != nullptr) help += std::string(" (") + row.meaning + ")";
  }
  return help;
}

// ParseEnum, or UsageError "OPTION 'TEXT': expected a, b or c".
template <typename T, size_t N>
T ParseEnumOption(const EnumName<T> (&table)[N], std::string_view option, std::string_view text) {
  T value{};
  if (ParseEnum(table, text, &value)) return value;
  throw UsageError(std::string(option) + " '" + Excerpt(text) + "': expected " + EnumNames(table));
}

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_ENUM_TABLE_H_
