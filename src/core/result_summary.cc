#include "core/result_summary.h"

#include <algorithm>

#include "core/progress.h"

namespace jigsaw {
namespace {

// `rows` as "  key  value" lines, keys padded to the longest; beyond kMaxLines one "... N more".
std::string Aligned(const std::vector<std::pair<std::string, std::string>>& rows) {
  size_t width = 0;
  const size_t shown = std::min(rows.size(), ResultSummary::kMaxLines);
  for (size_t i = 0; i < shown; ++i) width = std::max(width, rows[i].first.size());
  std::string text;
  for (size_t i = 0; i < shown; ++i) {
    text += "  " + rows[i].first + std::string(width - rows[i].first.size() + 2, ' ') +
            rows[i].second + "\n";
  }
  if (rows.size() > shown) text += "  ... " + std::to_string(rows.size() - shown) + " more\n";
  return text;
}

}  // namespace

void ResultSummary::Add(const std::string& key, const std::string& value) {
  lines_.emplace_back(key, value);
}

void ResultSummary::AddFile(const std::string& folder, const std::string& name,
                            const std::string& what) {
  files_.emplace_back(folder + "/" + name, what);
}

std::string ResultSummary::Text() const {
  std::string text = title_ + "\n" + Aligned(lines_);
  if (!files_.empty()) text += "files written:\n" + Aligned(files_);
  return text;
}

void ResultSummary::Print(std::FILE* stream) const {
  if (CurrentVerbosity() == Verbosity::kQuiet) return;
  const std::string text = Text();
  std::fputs(text.c_str(), stream);
  std::fflush(stream);
}

}  // namespace jigsaw
