#include "core/version.h"

namespace jigsaw {

std::string ProjectVersion() { return JIGSAW_PROJECT_VERSION; }
std::string GitDescribe() { return JIGSAW_GIT_DESCRIBE; }

std::string VersionString() {
  const std::string git = GitDescribe();
  return git.empty() ? ProjectVersion() : ProjectVersion() + " (git " + git + ")";
}

}  // namespace jigsaw
