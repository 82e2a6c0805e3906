// One table per enum: each faas enum (platform, queue policy, duration model) lists its values'
// names once, and parsing, help text and the lists in error messages all come from that table.
#ifndef JIGSAW_FAAS_ENUM_TABLE_H_
#define JIGSAW_FAAS_ENUM_TABLE_H_

#include <span>
#include <string>
#include <string_view>

namespace jigsaw::faas {

template <typename E>
struct EnumName {
  E value;
  const char* name;  // as on the command line and in the outputs
};

template <typename E>
using EnumTable = std::span<const EnumName<E>>;

// True and *value set when `text` is one of the table's names.
template <typename E>
bool ParseEnum(EnumTable<E> table, std::string_view text, E* value) {
  for (const EnumName<E>& entry : table) {
    if (text == entry.name) {
      *value = entry.value;
      return true;
    }
  }
  return false;
}

// The value's name; "?" for a value not in the table.
template <typename E>
const char* EnumNameOf(EnumTable<E> table, E value) {
  for (const EnumName<E>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

// The names joined by `separator`, the last one by `last` ("a, b or c" with ", " and " or ").
template <typename E>
std::string EnumNames(EnumTable<E> table, std::string_view separator, std::string_view last) {
  std::string text;
  for (size_t i = 0; i < table.size(); ++i) {
    if (i > 0) text += i + 1 == table.size() ? last : separator;
    text += table[i].name;
  }
  return text;
}

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_ENUM_TABLE_H_
