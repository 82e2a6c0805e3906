// The options of `jigsaw sim` (src/cli/sim_command.cc binds them and runs the simulator) and the
// part that configures the co-locating policies (jigsaw, packing, spb_only): their flags, the SPB
// cost model and the phase plans built from them (src/cli/sim_colocation_options.cc).
#ifndef JIGSAW_CLI_SIM_OPTIONS_H_
#define JIGSAW_CLI_SIM_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cluster/policies/shockwave_options.h"
#include "cluster/policy.h"
#include "cluster/simulator.h"
#include "cluster/spb_cost_model.h"
#include "cluster/spb_options.h"
#include "cluster/spb_phase_model.h"
#include "core/data_files.h"
#include "core/output.h"
#include "model/throughput_table.h"
#include "model/trace_generator.h"

namespace jigsaw {

struct SimOptions {
  std::string trace;
  std::string trace_format = "auto";
  std::string throughputs;
  std::string policy = "max_min_fairness";
  std::string out = "out/sim";
  std::string round_log = "auto";
  std::string isolated_time = "exact";
  std::string write_trace;
  SimConfig config;
  TraceGeneratorOptions generator;
  bool quiet = false;
  std::string spb_efficiency = "auto";
  std::string spb_efficiency_file = DataFile("spb_statistical_efficiency.json");
  std::string spb_proxy_model = "lenet";
  std::vector<std::string> spb_profiles;  // MODEL=FILE
  int gpus_per_node = 4;
  double nic_gbps = 25;
  std::string colocation_base = "shockwave";
  std::string colocation_throughputs;  // "" = --throughputs
  ColocationTunables colocation;
  std::string spb_efficiency_bound = "value";
  FallbackSpbShape spb_fallback;
  std::string spb_phases = DataFile("spb_phase_plans.csv");  // "none": no phase plans
  SpbPhaseModelOptions spb_phase;  // the overrides; file, proxy, profiles, bound from above
  std::string freed_interference = "gavel";
  int64_t assign_job_types = -1;  // seed; -1: keep type-less jobs type-less
  int64_t max_jobs = 0;           // 0: all
  double load = 1;                // arrival-rate scaling (model/arrival_stream.h)
  double arrival_rate_jph = 0;    // > 0: re-time as a Poisson stream (model/arrival_stream.h)
  int stream_jobs = 0;            // jobs drawn for the stream (0: as many as the trace has)
  double stream_max_hours = 0;    // draw only jobs at most this long (0: all)
  std::string measure_window;     // "BEGIN:END" job ids
  std::string shockwave_config;
  ShockwaveOptions shockwave;                // command-line overrides, applied where given
  std::vector<std::string> shockwave_given;  // names of the overrides given
  std::string shockwave_solver = "planner";
  std::string cluster_spec;  // "" = homogeneous: --gpus GPUs of --worker-type
};

// Binds the co-locating policies' flags (--spb-*, --jigsaw-*, --colocation-*, --gpu-memory-gb,
// --gpus-per-node, --nic-gbps) to *options, in the order `jigsaw sim --help` lists them.
void AddSimColocationOptions(CLI::App* sim, SimOptions* options);

// The SPB cost model the co-locating planners use, from the options; UsageError naming the option
// on a malformed --spb-profile, fallback shape, efficiency or bound.
SpbCostModelOptions MakeSpbCostModelOptions(const SimOptions& options);

// The phase plans of jigsaw and spb_only (the SPB cost model's efficiency, bound, proxy, profiles
// and fallback apply to them too); reads --spb-phases unless it is "none".
std::unique_ptr<SpbPhaseModel> MakeSpbPhaseModel(const SimOptions& options,
                                                 const SpbCostModelOptions& spb);

// What the co-locating policies need beyond the options, kept alive while the policy runs (the
// PolicyOptions that ConfigureColocation fills point into it).
struct SimColocation {
  std::unique_ptr<SpbCostModel> spb;                  // jigsaw, packing, spb_only
  std::unique_ptr<SpbPhaseModel> phases;              // jigsaw, spb_only
  std::unique_ptr<ThroughputTable> colocation_table;  // --colocation-throughputs, if given
  Json report;  // jigsaw, packing: the co-location table's consistency check
};

// Validates the co-location options (UsageError naming them), builds the SPB cost model, the phase
// plans and the co-location table the policy needs and points *policy_options at them; warns on
// stderr when the pair table's co-located entries beat its isolated ones.
SimColocation ConfigureColocation(const SimOptions& options, const ThroughputTable& table,
                                  PolicyOptions* policy_options);

// summary.json's spb_statistical_efficiency and spb_phase_plans (each proxy use also warned on
// stderr), after the run.
void AddColocationReports(const SimColocation& colocation, Json* extra);

}  // namespace jigsaw

#endif  // JIGSAW_CLI_SIM_OPTIONS_H_
