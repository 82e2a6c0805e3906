// Which kind of jigsaw output a folder holds, from its files.
//
// Every kind has summary.json, and: sim jobs.csv + rounds.csv (`jigsaw sim`); net flows.csv
// (`jigsaw net`); train iterations.csv (`jigsaw train`); d2r scenarios.csv (`jigsaw d2r`);
// faas-sim results.csv (`jigsaw faas-sim`); faas-load requests.csv (`jigsaw faas-load`); fl
// rounds.csv + clients.csv (`jigsaw fl`); serve-bench the key answered_after_blocks in
// summary.json (`jigsaw serve-bench`). A sweep has runs.csv (`jigsaw sweep`); its run folders are
// its sub-folders (at any depth up to 3) that are runs themselves, and they are named by the
// values of the sweep's axes (the runs.csv option columns whose values differ between runs, e.g.
// "policy=fifo seed=1"). DetectRunKind throws InputError(dir, 0, ...) saying what was found and
// what was expected when the folder is missing, unreadable or none of these. summary.json must
// parse as a JSON object (InputError at its line otherwise).
#ifndef JIGSAW_REPORT_RUN_DIR_H_
#define JIGSAW_REPORT_RUN_DIR_H_

#include <map>
#include <string>
#include <vector>

#include "core/output.h"

namespace jigsaw::report {

enum class RunKind { kSim, kNet, kTrain, kD2r, kFaasSim, kFaasLoad, kFl, kServeBench, kSweep };

// Every kind of run (not kSweep), in the report's section order.
const std::vector<RunKind>& RunKinds();

const char* RunKindName(RunKind kind);
RunKind DetectRunKind(const std::string& dir);

struct RunDir {
  std::string path;
  // Unique among the report's runs: a sweep's runs by their axis values, other runs by the
  // shortest path suffix no other run shares.
  std::string name;
  RunKind kind = RunKind::kSim;
  Json summary;
};

// Every argument that is a sweep is replaced by its run folders (sorted by path); the others are
// kept in order. Reads each run's summary.json. Throws InputError for an unusable folder, or a
// sweep with no run folders.
std::vector<RunDir> ExpandRunDirs(const std::vector<std::string>& args);

// Names for `paths`: each the shortest trailing run of path components that no other path shares.
std::vector<std::string> UniqueRunNames(const std::vector<std::string>& paths);

// For a sweep folder: run folder name (runs.csv `run`) -> "option=value ..." over the option
// columns whose values differ between the rows (the axes). Empty when runs.csv has no such column.
std::map<std::string, std::string> SweepRunLabels(const std::string& sweep_dir);

Json ReadSummary(const std::string& dir);

}  // namespace jigsaw::report

#endif  // JIGSAW_REPORT_RUN_DIR_H_
