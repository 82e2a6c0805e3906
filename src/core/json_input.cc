#include "core/json_input.h"

#include <cctype>
#include <cstdlib>

namespace jigsaw {

namespace {

// Calls visit(i, c, line) for every character of `text` outside string literals (escapes
// included); visit returns the index of the last character it consumed (i for just c).
template <typename Visit>
void ScanOutsideStrings(std::string_view text, Visit visit) {
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
      continue;
    }
    i = visit(i, c, line);
  }
}

}  // namespace

void CheckJsonText(const std::string& name, std::string_view text) {
  int depth = 0;
  ScanOutsideStrings(text, [&](size_t i, char c, int line) {
    if (c == '{' || c == '[') {
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
      return end - 1;
    }
    return i;
  });
}

std::vector<int> JsonArrayEntryLines(std::string_view text) {
  std::vector<int> lines;
  std::vector<char> stack;
  ScanOutsideStrings(text, [&](size_t i, char c, int line) {
    if (c == '{' || c == '[') {
      if (c == '{' && stack.size() == 2 && stack[0] == '{' && stack[1] == '[') {
        lines.push_back(line);
      }
      stack.push_back(c);
    } else if ((c == '}' || c == ']') && !stack.empty()) {
      stack.pop_back();
    }
    return i;
  });
  return lines;
}

}  // namespace jigsaw
