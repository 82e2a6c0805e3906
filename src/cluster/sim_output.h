// Metrics and result files of a simulation.
//
// Metric definitions follow Shockwave's (research notes §2.5): JCT = finish - arrival;
// rho_j = JCT_j / (T_excl_j * max(1, jobs_in_trace / gpus)); worst rho = max rho; unfair
// fraction = share of jobs with rho > 1.05 (and > 1.10); makespan = time the last job finishes;
// cluster utilisation = GPU-seconds held by running jobs / (gpus * makespan).
// cluster_efficiency = time-averaged sum of normalised goodput: for each job, its progress rate
// in isolated-time units (iterations/s divided by its isolated full-backprop throughput) times
// its GPUs, summed over jobs, integrated over [0, makespan] and divided by gpus * makespan. A
// cluster running every GPU at full isolated speed on useful work scores 1; restart overheads
// and idle GPUs lower it, packing can raise it above the utilisation. The useful work of a trace
// is (almost) the same under every policy, so cluster_efficiency is about 1 / makespan: it says
// how soon the trace is done, not how a loaded cluster performs (docs/simulator.md, "Metrics").
// With a measurement window (SimConfig), "window" holds the Gavel-style steady-state metrics:
// JCTs of the window's jobs (mean, p50, p99, max) and, over the window's interval, goodput
// (normalised goodput per GPU, as cluster_efficiency) and utilisation. Whole-run metrics count
// only the jobs that finished.
#ifndef JIGSAW_CLUSTER_SIM_OUTPUT_H_
#define JIGSAW_CLUSTER_SIM_OUTPUT_H_

#include <string>

#include "cluster/simulator.h"
#include "core/output.h"

namespace jigsaw {

// Fills JobRecord::rho for every job and returns summary.json's object. `extra` members (trace
// name, seed, ...) are placed first.
Json SummarizeSimulation(SimResult* result, const Json& extra);

// Writes DIR/summary.json, DIR/jobs.csv and DIR/rounds.csv as one unit (core/result_set.h: a
// kill never leaves a mix of two runs' files). `full_round_lists`
// writes every round's scheduled job ids; otherwise only the jobs started and stopped.
void WriteSimulationOutputs(const std::string& dir, const SimResult& result, const Json& summary,
                            bool full_round_lists);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_SIM_OUTPUT_H_
