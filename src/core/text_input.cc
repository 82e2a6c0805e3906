#include "core/text_input.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>

#include "core/error.h"
#include "core/limits.h"

namespace jigsaw {

std::vector<std::string_view> SplitFields(std::string_view line, char delim) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    size_t end = line.find(delim, start);
    if (end == std::string_view::npos) {
      fields.push_back(line.substr(start));
      return fields;
    }
    fields.push_back(line.substr(start, end - start));
    start = end + 1;
  }
}

std::vector<std::string_view> SplitOnBlanks(std::string_view line) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::string ReadWholeFile(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> in(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!in) throw InputError(path, 0, "cannot open file for reading");
  std::string contents;
  char buffer[1 << 16];
  size_t got;
  while ((got = std::fread(buffer, 1, sizeof(buffer), in.get())) > 0) {
    if (contents.size() + got > kMaxInputBytes) {
      throw InputError(path, 0,
                       "larger than the input limit of " + std::to_string(kMaxInputBytes >> 20) +
                           " MiB (docs/limits.md)");
    }
    contents.append(buffer, got);
  }
  if (std::ferror(in.get())) throw InputError(path, 0, "read error");
  return contents;
}

int LineOfOffset(std::string_view text, size_t offset) {
  if (offset > text.size()) offset = text.size();
  int line = 1;
  for (size_t i = 0; i < offset; ++i) line += text[i] == '\n';
  return line;
}

TextFile::TextFile(const std::string& path) : name_(path), contents_(ReadWholeFile(path)) {}

TextFile::TextFile(std::string name, std::string contents)
    : name_(std::move(name)), contents_(std::move(contents)) {}

bool TextFile::NextLine(std::string_view* line) {
  if (offset_ >= contents_.size()) return false;
  size_t end = contents_.find('\n', offset_);
  if (end == std::string::npos) end = contents_.size();
  std::string_view view(contents_.data() + offset_, end - offset_);
  if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
  offset_ = end + 1;
  ++line_number_;
  *line = view;
  return true;
}

void TextFile::Fail(const std::string& message) const {
  throw InputError(name_, line_number_, message);
}

double TextFile::ParseDouble(std::string_view field, std::string_view what) const {
  std::string_view text = Trim(field);
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() ||
      !std::isfinite(value)) {
    Fail("expected a number in " + std::string(what) + ", got '" + Excerpt(field) + "'");
  }
  return value;
}

long long TextFile::ParseInt(std::string_view field, std::string_view what) const {
  std::string_view text = Trim(field);
  long long value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    // Accept integral values written as floats ("12.0"), as some generators emit them.
    double as_double = 0;
    auto [dptr, dec] = std::from_chars(text.data(), text.data() + text.size(), as_double);
    if (!text.empty() && dec == std::errc() && dptr == text.data() + text.size() &&
        std::isfinite(as_double) && as_double == std::floor(as_double) &&
        std::fabs(as_double) < 9e15) {
      return static_cast<long long>(as_double);
    }
    Fail("expected an integer in " + std::string(what) + ", got '" + Excerpt(field) + "'");
  }
  return value;
}

double TextFile::ParseDoubleInRange(std::string_view field, std::string_view what, double lo,
                                    double hi) const {
  const double value = ParseDouble(field, what);
  if (!(value >= lo && value <= hi)) {
    Fail("expected a value in [" + FormatNumber(lo) + ", " + FormatNumber(hi) + "] in " +
         std::string(what) + " (docs/limits.md), got '" + Excerpt(Trim(field)) + "'");
  }
  return value;
}

long long TextFile::ParseIntInRange(std::string_view field, std::string_view what, long long lo,
                                    long long hi) const {
  const long long value = ParseInt(field, what);
  if (value < lo || value > hi) {
    Fail("expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] in " +
         std::string(what) + " (docs/limits.md), got '" + Excerpt(Trim(field)) + "'");
  }
  return value;
}

void TextFile::RequireColumns(const std::vector<std::string_view>& fields, size_t count,
                              std::string_view layout) const {
  if (fields.size() != count) {
    Fail("expected " + std::to_string(count) + " columns (" + std::string(layout) + "), got " +
         std::to_string(fields.size()));
  }
}

}  // namespace jigsaw
