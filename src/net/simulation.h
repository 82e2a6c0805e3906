// One `jigsaw net` run as a library call: loads the topology and the input files, builds the
// Network, runs the spec's traffic source (ASTRA-sim or Chakra jobs, PS jobs, the rack experiment,
// or synthetic/file flows, with optional background flows and link failures), and writes
// summary.json, flows.csv and (when asked) collectives.csv, progress.csv and timeseries/ to
// spec.out as one unit (core/result_set.h), removing a previous run's optional files that this run
// does not write. Equal specs give byte-identical files; wall-clock speed goes only to the stderr
// summary (unless spec.quiet).
//
// Throws UsageError for combinations that need the topology to check (e.g. --ml-hosts beyond its
// hosts) and InputError naming file:line for bad input files.
#ifndef JIGSAW_NET_SIMULATION_H_
#define JIGSAW_NET_SIMULATION_H_

#include <cstddef>
#include <cstdint>

#include "net/net_options.h"
#include "net/units.h"

namespace jigsaw::net {

struct NetRunResult {
  // Whether the run had to finish every flow and job: false for the rack experiment, which stops
  // at duration + drain by design.
  bool must_finish = true;
  uint64_t unfinished_flows = 0;
  uint64_t unfinished_jobs = 0;
  size_t flows = 0;
  Time end = 0;  // the simulated time the run stopped at

  // The outputs are written but the run stopped (--stop, or no events left) before every flow
  // and job finished.
  bool incomplete() const { return must_finish && (unfinished_flows > 0 || unfinished_jobs > 0); }
};

NetRunResult RunSimulation(const NetRunSpec& spec);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_SIMULATION_H_
