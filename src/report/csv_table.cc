#include "report/csv_table.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "core/error.h"
#include "core/limits.h"
#include "core/text_input.h"

namespace jigsaw::report {
namespace {

// Splits one line; returns false if a quoted field is not closed.
bool SplitCsvLine(std::string_view line, std::vector<std::string>* fields) {
  fields->clear();
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields->push_back(std::move(field));
      field.clear();
    } else {
      field += c;
    }
  }
  fields->push_back(std::move(field));
  return !quoted;
}

}  // namespace

CsvTable CsvTable::Read(const std::string& path) { return Parse(path, ReadWholeFile(path)); }

CsvTable CsvTable::Parse(const std::string& name, const std::string& text) {
  CsvTable table;
  table.name_ = name;
  TextFile file(name, text);
  std::string_view line;
  if (!file.NextLine(&line) || Trim(line).empty()) {
    throw InputError(name, 1, "expected a CSV header line, got an empty file");
  }
  if (!SplitCsvLine(line, &table.header_)) file.Fail("unterminated quoted field in the header");
  std::vector<std::string> fields;
  while (file.NextLine(&line)) {
    if (line.empty()) continue;
    if (!SplitCsvLine(line, &fields)) file.Fail("unterminated quoted field");
    if (fields.size() != table.header_.size()) {
      file.Fail("expected " + std::to_string(table.header_.size()) +
                " comma-separated fields as in the header, got " + std::to_string(fields.size()));
    }
    table.rows_.push_back(fields);
    table.lines_.push_back(file.line_number());
  }
  return table;
}

bool CsvTable::Has(std::string_view column) const {
  for (const std::string& h : header_) {
    if (h == column) return true;
  }
  return false;
}

size_t CsvTable::Column(std::string_view column) const {
  for (size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == column) return i;
  }
  throw InputError(name_, 1, "expected a column '" + std::string(column) + "' in the header");
}

double CsvTable::Number(size_t row, size_t column) const {
  const std::string& cell = rows_[row][column];
  if (Trim(cell).empty()) return std::nan("");
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(cell.c_str(), &end);
  if (end == cell.c_str() || !Trim(std::string_view(end)).empty() || errno == ERANGE ||
      !std::isfinite(value)) {
    throw InputError(name_, lines_[row],
                     "column " + std::to_string(column + 1) + " (" + header_[column] +
                         "): expected a finite number, got '" + Excerpt(cell) + "'");
  }
  return value;
}

}  // namespace jigsaw::report
