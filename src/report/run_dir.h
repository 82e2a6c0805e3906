// Which kind of jigsaw output a folder holds, from its files.
//
// sim: summary.json + jobs.csv + rounds.csv (`jigsaw sim --out`); net: summary.json + flows.csv
// (`jigsaw net --out`); train: summary.json + iterations.csv (`jigsaw train --out`); sweep:
// runs.csv (`jigsaw sweep`), whose run folders are its sub-folders (at any depth up to 3) that are
// runs themselves. DetectRunKind throws InputError(dir, 0, ...) saying what was found and what was
// expected when the folder is missing, unreadable or none of these. summary.json must parse as a
// JSON object (InputError at its line otherwise).
#ifndef JIGSAW_REPORT_RUN_DIR_H_
#define JIGSAW_REPORT_RUN_DIR_H_

#include <string>
#include <vector>

#include "core/output.h"

namespace jigsaw::report {

enum class RunKind { kSim, kNet, kTrain, kSweep };

const char* RunKindName(RunKind kind);
RunKind DetectRunKind(const std::string& dir);

struct RunDir {
  std::string path;
  std::string name;  // unique among the report's runs: the shortest distinct path suffix
  RunKind kind = RunKind::kSim;
  Json summary;
};

// Every argument that is a sweep is replaced by its run folders (sorted by path); the others are
// kept in order. Reads each run's summary.json. Throws InputError for an unusable folder, or a
// sweep with no run folders.
std::vector<RunDir> ExpandRunDirs(const std::vector<std::string>& args);

// Names for `paths`: each the shortest trailing run of path components that no other path shares.
std::vector<std::string> UniqueRunNames(const std::vector<std::string>& paths);

Json ReadSummary(const std::string& dir);

}  // namespace jigsaw::report

#endif  // JIGSAW_REPORT_RUN_DIR_H_
