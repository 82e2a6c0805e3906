// Results of the TensorLights experiment (bench/tensorlights/run.sh), read back and summarized
// by `jigsaw tlights-report`. Torch-free.
//
// Layout: EXP/<policy>/rep<r>/job<j>/server.json (ps/server.h) and worker<k>.csv (ps/worker.h).
// Per job: JCT = the last worker's end of the last iteration - the server's start_wall_s (when
// the job's workers were all connected and worker 0 had sent the initial parameters). Straggler
// spread of iteration t = max - min over the job's workers of end_wall_s(t): how long the first
// worker to get its parameters waited for the last. Per policy: the average JCT over jobs (then
// averaged over repetitions), each job's JCT averaged over repetitions, and the mean and 95th
// percentile of the spreads over all iterations of all jobs and repetitions; the table gives the
// run-to-run range (min-max over repetitions) of the average JCT and of the mean spread next to
// them. Malformed files throw InputError naming file:line.
#ifndef JIGSAW_TLIGHTS_REPORT_H_
#define JIGSAW_TLIGHTS_REPORT_H_

#include <string>
#include <vector>

#include "core/output.h"

namespace jigsaw::tlights {

struct IterationRow {
  int rank = 0;
  int iteration = 0;
  double end_wall_s = 0;
};

std::vector<IterationRow> ReadWorkerCsv(const std::string& path);
std::vector<IterationRow> ParseWorkerCsv(const std::string& name, const std::string& contents);

// Throws std::invalid_argument if rows is empty.
double JobCompletionTime(double start_wall_s, const std::vector<IterationRow>& rows);
// One value per iteration 0..max; every iteration must have a row from each of `workers` ranks
// (std::invalid_argument names the first one that does not).
std::vector<double> StragglerSpreads(const std::vector<IterationRow>& rows, int workers);

struct JobResult {
  std::string job;
  int workers = 0;
  int iterations = 0;
  double jct_s = 0;
  std::vector<double> spreads_s;
};

JobResult AnalyzeJobDir(const std::string& dir);

struct PolicyResult {
  std::string policy;
  int repetitions = 0;
  std::vector<std::string> jobs;
  std::vector<double> job_jct_s;          // mean over repetitions, in job order
  std::vector<double> rep_avg_jct_s;      // per repetition: mean JCT over jobs
  std::vector<double> rep_mean_spread_s;  // per repetition: mean straggler spread
  double avg_jct_s = 0;
  double mean_spread_s = 0;
  double p95_spread_s = 0;
};

// Every <policy>/ folder under `dir` that holds rep<r>/ folders, in the order fifo, static,
// rotate, then the others by name (the harness names rotation variants rotate-<interval>).
std::vector<PolicyResult> AnalyzeExperiment(const std::string& dir);
Json ExperimentJson(const std::vector<PolicyResult>& results);
// Markdown table; changes are relative to fifo when it is present.
std::string ExperimentTable(const std::vector<PolicyResult>& results);

}  // namespace jigsaw::tlights

#endif  // JIGSAW_TLIGHTS_REPORT_H_
