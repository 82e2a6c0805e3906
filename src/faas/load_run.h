// `jigsaw faas-load` as a library call: the load client's options as the command line gives them
// (src/cli binds each flag to one field; the names below are the flags without "--"), their
// checks, and the run with its outputs.
//
// LoadRunOptions::Validate() throws UsageError naming the option (as its flag) and what was
// expected (--rate: requests per second in (0, 100000], "/s" allowed; --burst-period: a positive
// duration; --burst-sigma: [0, 5]) and returns the typed faas::LoadOptions (faas/load_client.h).
// RunLoadCommand writes summary.json and requests.csv to `out` as one core ResultSet and prints
// one table row on stdout.
#ifndef JIGSAW_FAAS_LOAD_RUN_H_
#define JIGSAW_FAAS_LOAD_RUN_H_

#include <string>

#include "core/output.h"
#include "faas/load_client.h"

namespace jigsaw::faas {

struct LoadRunOptions {
  std::string dags;  // the platform's DAG file
  LoadOptions load;  // port, requests, warmup, connections, seed, burst sigma, quiet
  std::string rate = "10";
  std::string burst_period = "10s";
  std::string out = "out/faas-load";

  LoadOptions Validate() const;
};

// The stdout table of a load run's summary: header and row.
std::string LoadTable(const Json& summary);

// Returns the exit status (0).
int RunLoadCommand(const LoadRunOptions& options);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_LOAD_RUN_H_
