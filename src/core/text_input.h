// Line-oriented reading of text inputs with precise error locations.
//
// TextFile loads a whole file, hands out its lines (without the line terminator, '\r' stripped)
// and tracks the 1-based number of the line last returned. Its parse helpers throw InputError
// naming file:line, the column and what was expected, never a bare std::stod exception.
#ifndef JIGSAW_CORE_TEXT_INPUT_H_
#define JIGSAW_CORE_TEXT_INPUT_H_

#include <string>
#include <string_view>
#include <vector>

namespace jigsaw {

// Splits on every occurrence of `delim` (empty fields are kept).
std::vector<std::string_view> SplitFields(std::string_view line, char delim);

// Splits on runs of blanks (space, tab); empty tokens are dropped.
std::vector<std::string_view> SplitOnBlanks(std::string_view line);

// Strips leading and trailing blanks (space, tab).
std::string_view Trim(std::string_view text);

// Reads the whole file; throws InputError(path, 0, ...) if it cannot be read or holds more than
// kMaxInputBytes (core/limits.h; /dev/zero is refused after that many bytes, not read forever).
std::string ReadWholeFile(const std::string& path);

// 1-based line of the byte at `offset` in `text` (offsets past the end count as the end), e.g.
// to place a JSON parser's error position.
int LineOfOffset(std::string_view text, size_t offset);

class TextFile {
 public:
  // Throws InputError if the file cannot be opened.
  explicit TextFile(const std::string& path);
  // For in-memory text (tests, embedded inputs); `name` is used in error messages.
  TextFile(std::string name, std::string contents);

  // Returns false at end of file.
  bool NextLine(std::string_view* line);
  int line_number() const { return line_number_; }
  const std::string& name() const { return name_; }

  // Throws InputError at the current line.
  [[noreturn]] void Fail(const std::string& message) const;

  // Field parsers: `what` names the column, e.g. "column 6 (total_steps)". Errors quote at most
  // kMaxEchoBytes of the field.
  double ParseDouble(std::string_view field, std::string_view what) const;
  long long ParseInt(std::string_view field, std::string_view what) const;
  // The same, failing unless lo <= value <= hi ("expected a value in [lo, hi] in <what>
  // (docs/limits.md)").
  double ParseDoubleInRange(std::string_view field, std::string_view what, double lo,
                            double hi) const;
  long long ParseIntInRange(std::string_view field, std::string_view what, long long lo,
                            long long hi) const;
  // Requires exactly `count` fields; otherwise fails with "expected N <delim>-separated columns".
  void RequireColumns(const std::vector<std::string_view>& fields, size_t count,
                      std::string_view layout) const;

 private:
  std::string name_;
  std::string contents_;
  size_t offset_ = 0;
  int line_number_ = 0;
};

}  // namespace jigsaw

#endif  // JIGSAW_CORE_TEXT_INPUT_H_
