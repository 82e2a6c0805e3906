// The data files jigsaw ships (data/ in the source tree, share/jigsaw/data once installed), found
// at run time relative to the executable, so no absolute source path is compiled in and an
// installed or relocated copy works. Search order: $JIGSAW_DATA_DIR, <exe>/../share/jigsaw/data
// (cmake --install), <exe>/../data (build/ inside the source tree), <exe>/data.
#ifndef JIGSAW_CORE_DATA_FILES_H_
#define JIGSAW_CORE_DATA_FILES_H_

#include <string>

namespace jigsaw {

// The first existing `name` in the search order; the installed location when none exists (so an
// error reading it names where it was expected).
std::string DataFile(const std::string& name);

}  // namespace jigsaw

#endif  // JIGSAW_CORE_DATA_FILES_H_
