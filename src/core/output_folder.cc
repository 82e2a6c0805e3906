#include "core/output_folder.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.h"

namespace jigsaw {

void RequireWritableFolder(const std::string& path, const std::string& option) {
  const std::string what = option + " '" + path + "'";
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec)) {
    throw UsageError(what + " must be a folder, but a file is in the way");
  }
  std::filesystem::create_directories(path, ec);
  if (ec) throw UsageError(what + ": cannot create the folder: " + ec.message());
  const std::string probe =
      (std::filesystem::path(path) / (".jigsaw-write-probe-" + std::to_string(getpid()))).string();
  std::FILE* file = std::fopen(probe.c_str(), "wb");
  if (file == nullptr) {
    throw UsageError(what + ": the folder is not writable: " + std::strerror(errno));
  }
  std::fclose(file);
  std::remove(probe.c_str());
}

std::string FileInFolder(const std::string& folder, const std::string& name) {
  return folder.empty() ? "" : (std::filesystem::path(folder) / name).string();
}

}  // namespace jigsaw
