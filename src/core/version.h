// The program's version: the CMake project version and `git describe --always --dirty` of the
// source tree, both captured when CMake configured the build ("0.3.0 (git v0.3.0-4-g7ce6f3a)";
// just "0.3.0" when the source is not a git checkout or git is absent).
#ifndef JIGSAW_CORE_VERSION_H_
#define JIGSAW_CORE_VERSION_H_

#include <string>

namespace jigsaw {

std::string ProjectVersion();  // "0.3.0"
std::string GitDescribe();     // "" outside git
std::string VersionString();   // "0.3.0 (git ...)" or "0.3.0"

}  // namespace jigsaw

#endif  // JIGSAW_CORE_VERSION_H_
