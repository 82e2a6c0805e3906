// Runs a sweep (sweep/sweep_config.h): each run is a child process of the jigsaw binary itself
// (`jigsaw <command> <arguments> --out OUT/runs/<name> --quiet`, output in <name>/log.txt), at
// most `parallel` at a time. A run is complete once its summary.json carries the run record
// (cli/run_record.h, added after the run succeeded); complete runs are skipped, so an interrupted
// sweep resumes where it stopped. A failed run leaves <name>/FAILED (its exit status) and is
// retried next time.
//
// Sharding: under MPI (`mpirun -np N jigsaw sweep CONFIG`), rank r of N runs the runs whose index
// is r mod N; the rank is read from the launcher's environment (Open MPI's
// OMPI_COMM_WORLD_RANK/SIZE, MPICH/Hydra's PMI_RANK/PMI_SIZE), so jigsaw does not link MPI. The
// ranks share the sweep folder (a shared file system across machines); rank 0 waits until every
// run is complete or failed and writes the table.
//
// The table: OUT/runs.csv and OUT/runs.json, one row per run: run, status, the run's every
// effective option (from its run record, columns "--name") and every metric of its summary.json
// (nested objects flattened with '.').
#ifndef JIGSAW_SWEEP_SWEEP_RUNNER_H_
#define JIGSAW_SWEEP_SWEEP_RUNNER_H_

#include <string>
#include <vector>

#include "sweep/sweep_config.h"

namespace jigsaw::sweep {

struct Shard {
  int rank = 0;
  int ranks = 1;
  int local_ranks = 1;  // ranks on this machine (they share its cores)
};
// From the MPI launcher's environment; {0, 1, 1} outside MPI. Throws UsageError on nonsense.
Shard DetectShard();

struct SweepOptions {
  std::string executable;  // the jigsaw binary the runs execute
  int parallel = 0;        // concurrent runs on this machine per rank; 0: cores / local ranks
  bool dry_run = false;    // list the runs, run nothing
  double poll_s = 0.2;     // rank 0: how often it looks for other ranks' runs
};

struct SweepOutcome {
  int runs = 0;       // in the whole sweep
  int assigned = 0;   // to this rank
  int skipped = 0;    // complete before this invocation
  int succeeded = 0;  // run now
  int failed = 0;     // run now, exit status != 0
};

SweepOutcome RunSweep(const SweepConfig& config, const SweepOptions& options, const Shard& shard);

// The run folder's state: "complete", "failed" or "" (not run or incomplete).
std::string RunStatus(const std::string& run_folder);

// Writes OUT/runs.csv and OUT/runs.json from the run folders.
void WriteRunTable(const std::string& out, const std::vector<RunSpec>& runs);

}  // namespace jigsaw::sweep

#endif  // JIGSAW_SWEEP_SWEEP_RUNNER_H_
