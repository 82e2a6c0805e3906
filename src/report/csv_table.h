// A CSV file read whole, with a header row, for the report's readers.
//
// Fields are comma-separated; a field may be double-quoted ("" is a quote inside one). Every data
// row must have as many fields as the header, else InputError(file, line, ...). Number() parses a
// cell as a finite double (an empty cell is NaN: e.g. the end time of a flow still running) and
// names file:line and the column when it is not one. Column() fails naming the missing column.
#ifndef JIGSAW_REPORT_CSV_TABLE_H_
#define JIGSAW_REPORT_CSV_TABLE_H_

#include <string>
#include <string_view>
#include <vector>

namespace jigsaw::report {

class CsvTable {
 public:
  // Throws InputError(path, 0, ...) if unreadable, InputError(path, line, ...) if malformed.
  static CsvTable Read(const std::string& path);
  static CsvTable Parse(const std::string& name, const std::string& text);

  const std::string& name() const { return name_; }
  const std::vector<std::string>& header() const { return header_; }
  size_t rows() const { return rows_.size(); }
  bool Has(std::string_view column) const;
  // Index of `column`; throws InputError(name, 1, "expected a column '<column>' ...").
  size_t Column(std::string_view column) const;
  const std::string& Cell(size_t row, size_t column) const { return rows_[row][column]; }
  double Number(size_t row, size_t column) const;
  // 1-based line of a data row in the file.
  int Line(size_t row) const { return lines_[row]; }

 private:
  std::string name_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> lines_;
};

}  // namespace jigsaw::report

#endif  // JIGSAW_REPORT_CSV_TABLE_H_
