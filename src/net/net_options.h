// Everything `jigsaw net` configures (docs/net.md, "Options"), owned by the packet simulator: the
// command line binds each flag to the field named after it and calls RunSimulation
// (net/simulation.h) with NetOptions::Validate()'s NetRunSpec. Validate() checks every field and
// every combination it can without the topology, and throws UsageError naming the flag (or
// InputError naming file:line for the files it reads: --ps-compute-file, --chakra-system).
//
// A run has exactly one traffic source: --workload (one or more ASTRA-sim jobs), --chakra (one or
// more trace jobs), --traffic, --flows, --ps-jobs or --load (the PL2 rack experiment); or only
// --background, which may also join any of them but --load.
#ifndef JIGSAW_NET_NET_OPTIONS_H_
#define JIGSAW_NET_NET_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "net/chakra_options.h"
#include "net/enum_table.h"
#include "net/fabric_options.h"
#include "net/flow_file.h"
#include "net/job_placement.h"
#include "net/ps_options.h"
#include "net/rack_options.h"
#include "net/rack_workload.h"

namespace jigsaw::net {

// --timeseries: whose queues are sampled; true = every switch port.
inline constexpr EnumName<bool> kTimeseriesPorts[] = {
    {false, "nonzero", "ports that held data, the default"},
    {false, "", nullptr, /*alias=*/true},  // --timeseries without a value
    {true, "all", "all switch ports"},
};

// ASTRA-sim and Chakra jobs: how they run and where.
struct JobOptions {
  std::vector<std::string> workloads;    // --workload FILE (repeatable)
  int iterations = 1;                    // --iterations
  int chunks = 4;                        // --chunks per collective
  std::string dims;                      // --dims, e.g. 8x16 ("" = one ring)
  std::string placement = "interleave";  // --placement (job_placement.h)
  int max_active = 1;                    // --max-active collectives per job
  double cycle_ns = 1.0;                 // --cycle-ns per compute cycle
};

struct JobSettings {
  std::vector<std::string> workloads;
  int iterations = 1;
  int chunks = 4;
  std::vector<int> dims;
  JobPlacement placement = JobPlacement::kInterleave;
  int max_active = 1;
  double cycle_ns = 1.0;
};

// Poisson background flows (flow_file.h).
struct BackgroundOptions {
  std::string cdf;               // --background: websearch, datamining or a CDF file
  std::string load = "30%";      // --background-load, a fraction of each host's link
  std::string start = "0us";     // --background-start
  std::string duration = "1ms";  // --background-duration
  int priority = 0;              // --background-priority 0..7
};

struct OutputOptions {
  std::string out = "out/net";           // --out
  bool timeseries_given = false;         // --timeseries given (with or without a value)
  std::string timeseries;                // --timeseries: "", nonzero or all
  std::string sample_interval = "10us";  // --sample-interval
  std::string stop;                      // --stop ("" = run until no events are left)
  std::vector<std::string> fail_links;   // --fail-link NODE-NODE@TIME (repeatable)
  bool quiet = false;                    // --quiet
};

struct LinkFailure {
  uint32_t a = 0;  // node ids of the link's ends
  uint32_t b = 0;
  Time at = 0;
};

// NetOptions, checked and typed.
struct NetRunSpec {
  std::string topology;
  uint64_t seed = 1;
  FabricSpec fabric;
  JobSettings jobs;
  std::string traffic;  // permutation:... or incast:... ("" = none)
  std::string flows;    // HPCC flow file ("" = none)
  std::optional<std::string> background_cdf;
  BackgroundSpec background;
  std::optional<RackWorkloadSpec> rack;
  std::optional<PsJobsSpec> ps;
  std::optional<ChakraRunSpec> chakra;
  std::vector<LinkFailure> failures;
  Time stop = kNever;
  Time sample_interval = 0;  // 0: no time series
  bool timeseries_all = false;
  std::string out;
  bool quiet = false;
};

struct NetOptions {
  std::string topology;  // --topology (required)
  uint64_t seed = 1;     // --seed
  FabricOptions fabric;
  JobOptions jobs;
  std::string traffic;  // --traffic
  std::string flows;    // --flows
  BackgroundOptions background;
  RackOptions rack;
  PsJobsOptions ps;      // --ps-*, --host-priority, --rotate-interval (seed: --seed)
  ChakraOptions chakra;  // --chakra, --npu-tflops, --chakra-system
  OutputOptions output;

  // Checks every field and combination that needs no topology. Throws UsageError naming the flag.
  NetRunSpec Validate() const;
};

// "8x16" -> {8, 16}; "" -> {}. Throws UsageError naming --dims.
std::vector<int> ParseDims(const std::string& text);
// "A-B@TIME". Throws UsageError naming --fail-link.
LinkFailure ParseFailLink(const std::string& text);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_NET_OPTIONS_H_
