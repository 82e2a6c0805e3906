// The one-screen result summary a subcommand prints when its run is done: a title line, aligned
// "key  value" lines with the headline figures, and the files written with what each holds.
// Printed on stderr (stdout stays for machine-readable output) unless --quiet
// (core/progress.h's verbosity). At most kMaxLines figure lines and kMaxLines files are kept, so it
// fits on one screen; the rest are counted in a last line.
#ifndef JIGSAW_CORE_RESULT_SUMMARY_H_
#define JIGSAW_CORE_RESULT_SUMMARY_H_

#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace jigsaw {

class ResultSummary {
 public:
  static constexpr size_t kMaxLines = 12;

  explicit ResultSummary(std::string title) : title_(std::move(title)) {}

  void Add(const std::string& key, const std::string& value);
  // `folder` + "/" + `name`, and what it holds.
  void AddFile(const std::string& folder, const std::string& name, const std::string& what);

  std::string Text() const;
  // Text() on `stream` unless the verbosity is quiet.
  void Print(std::FILE* stream = stderr) const;

 private:
  std::string title_;
  std::vector<std::pair<std::string, std::string>> lines_;
  std::vector<std::pair<std::string, std::string>> files_;
};

}  // namespace jigsaw

#endif  // JIGSAW_CORE_RESULT_SUMMARY_H_
