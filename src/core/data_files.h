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

// A file or folder of the shared real-data collection (data sets, traces: not shipped, never
// copied into the repository), named relative to that collection's root, e.g.
// "datasets/cifar10/cifar10-jpeg.tar.gz". Search order: $JIGSAW_DATA_DIR, ../shared/data beside
// the source tree holding the executable (<exe>/../../shared/data), ../shared/data from the
// working directory. The first that exists; else the first candidate, so an error names where it
// was expected. Defaults of --data-dir, --cifar and --femnist come from here.
std::string SharedDataPath(const std::string& relative);

// How the help text describes SharedDataPath(relative).
std::string SharedDataPathHelp(const std::string& relative);

}  // namespace jigsaw

#endif  // JIGSAW_CORE_DATA_FILES_H_
