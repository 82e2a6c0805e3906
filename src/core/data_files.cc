#include "core/data_files.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace jigsaw {

std::string DataFile(const std::string& name) {
  namespace fs = std::filesystem;
  std::vector<fs::path> folders;
  if (const char* env = std::getenv("JIGSAW_DATA_DIR"); env != nullptr && *env != '\0') {
    folders.emplace_back(env);
  }
  std::error_code ec;
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  const bool have_exe = !ec;
  if (have_exe) {
    folders.push_back(exe_dir / ".." / "share" / "jigsaw" / "data");
    folders.push_back(exe_dir / ".." / "data");
    folders.push_back(exe_dir / "data");
  }
  for (const fs::path& folder : folders) {
    const fs::path candidate = folder / name;
    if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal().string();
  }
  if (have_exe) return (exe_dir / ".." / "share" / "jigsaw" / "data" / name).lexically_normal();
  return folders.empty() ? name : (folders.front() / name).string();
}

std::string SharedDataPath(const std::string& relative) {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("JIGSAW_DATA_DIR"); env != nullptr && *env != '\0') {
    candidates.push_back(fs::path(env) / relative);
  }
  std::error_code ec;
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  if (!ec) candidates.push_back(exe_dir / ".." / ".." / "shared" / "data" / relative);
  candidates.push_back(fs::path("..") / "shared" / "data" / relative);
  for (const fs::path& candidate : candidates) {
    if (fs::exists(candidate, ec)) return candidate.lexically_normal().string();
  }
  return candidates.front().lexically_normal().string();
}

std::string SharedDataPathHelp(const std::string& relative) {
  return "$JIGSAW_DATA_DIR/" + relative + ", else ../shared/data/" + relative +
         " beside the source tree or the working directory";
}

}  // namespace jigsaw
