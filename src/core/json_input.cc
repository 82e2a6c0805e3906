#include "core/json_input.h"

#include <cctype>
#include <cstdlib>

namespace jigsaw {

void CheckJsonText(const std::string& name, std::string_view text) {
  int depth = 0;
  int line = 1;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth) {
        throw InputError(name, line,
                         "JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                             " levels (docs/limits.md)");
      }
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t end = i + 1;
      while (end < text.size() &&
             (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.' ||
              text[end] == 'e' || text[end] == 'E' || text[end] == '+' || text[end] == '-')) {
        ++end;
      }
      const std::string token(text.substr(i, end - i));
      const double value = std::strtod(token.c_str(), nullptr);
      if (std::isinf(value)) {
        throw InputError(
            name, line,
            "number '" + Excerpt(token) + "' is out of range (expected a finite double)");
      }
      i = end - 1;
    }
  }
}

}  // namespace jigsaw
