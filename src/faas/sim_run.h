// `jigsaw faas-sim` as a library call: validate the options, read or generate the DAG catalog
// (and the measured durations), run every variant (faas::SimVariants) with faas::Simulate, print
// the table on stdout and write the output folder (faas/sim_outputs.h).
//
// Progress goes to stderr unless options.quiet, wall-clock time only to stderr and the "wall_s"
// fields. A run that measured no request (every arrival within the warm-up) gets a warning on
// stderr, even when quiet, and the exit status stays 0
// (FaasSimCli.NothingMeasuredWarnsAndExitsZero). Bad options: UsageError naming the option; bad
// input files: InputError naming file:line.
#ifndef JIGSAW_FAAS_SIM_RUN_H_
#define JIGSAW_FAAS_SIM_RUN_H_

#include <string>
#include <vector>

#include "faas/dag.h"
#include "faas/duration_table.h"
#include "faas/sim_options.h"
#include "faas/simulator.h"

namespace jigsaw::faas {

// The catalog the run simulates: options.dags read (rates rescaled to --load only if given), else
// the generated workload; with options.durations its measured distributions go to *measured and
// replace the declared means (the estimators' prior, the critical paths and the offered load).
Catalog SimCatalog(const SimRunOptions& options, const SimRunSpec& spec,
                   std::vector<DurationQuantiles>* measured);

// The warning for a run that measured nothing.
std::string NothingMeasuredWarning(const SimResult& r, const std::string& warmup_option,
                                   Time warmup, double arrival_span_s);

// Returns the exit status (0).
int RunSimulation(const SimRunOptions& options);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_SIM_RUN_H_
