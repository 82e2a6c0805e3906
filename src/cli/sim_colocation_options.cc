// The co-locating policies' part of `jigsaw sim`: their flags and the SPB cost model and phase
// plans built from them (src/cli/sim_options.h).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "cli/sim_options.h"
#include "cluster/freed_capacity.h"
#include "cluster/policies/colocation.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/output.h"

namespace jigsaw {

void AddSimColocationOptions(CLI::App* sim, SimOptions* options) {
  sim->add_option("--spb-efficiency", options->spb_efficiency,
                  "jigsaw/spb_only: progress per iteration of a staircase SPB job relative to "
                  "full backprop: auto (measured, from --spb-efficiency-file) or a number "
                  "(0: no SPB plans)")
      ->capture_default_str();
  sim->add_option("--spb-efficiency-file", options->spb_efficiency_file,
                  "Measured SPB statistical efficiencies (bench/spb_bench.sh WRITE_EFFICIENCY=1)")
      ->capture_default_str();
  sim->add_option("--spb-proxy-model", options->spb_proxy_model,
                  "Measured model whose efficiency stands in for job types not measured")
      ->capture_default_str();
  sim->add_option("--spb-profile", options->spb_profiles,
                  "MODEL=FILE: SPB costs of the trace's MODEL from a `jigsaw profile` output "
                  "(repeatable; other models use the documented fallback)");
  sim->add_option("--gpus-per-node", options->gpus_per_node,
                  "GPUs per node; co-located gangs spanning nodes share the NICs")
      ->capture_default_str();
  sim->add_option("--colocation-base", options->colocation_base,
                  "jigsaw/packing/spb_only: planner of the jobs that run alone (shockwave or "
                  "least_served); guests are added on top")
      ->capture_default_str();
  sim->add_option("--nic-gbps", options->nic_gbps, "NIC bandwidth per node, Gbit/s")
      ->capture_default_str();
  sim->add_option("--colocation-throughputs", options->colocation_throughputs,
                  "jigsaw/packing: throughput table whose co-location and isolated entries were "
                  "measured together (Gavel's); pair rates = co-located / isolated from it "
                  "(default: --throughputs)");
  ColocationTunables& t = options->colocation;
  sim->add_option("--jigsaw-min-gain", t.min_gain,
                  "Co-location must beat the host alone by this x its GPUs")
      ->capture_default_str();
  sim->add_option("--jigsaw-min-host-rate", t.min_host_rate,
                  "A host keeps at least this share of its isolated speed")
      ->capture_default_str();
  sim->add_option("--jigsaw-critical-path-guard", t.critical_path_guard,
                  "1: a slowed host must not outlast the longest remaining job; 0: no guard")
      ->capture_default_str();
  sim->add_option("--jigsaw-max-guests", t.max_guests,
                  "Smaller SPB guests per host, on disjoint shallow workers")
      ->capture_default_str();
  sim->add_option("--jigsaw-spb-guests", t.spb_guests,
                  "1: smaller guests on an SPB host's shallow workers; 0: none")
      ->capture_default_str();
  sim->add_option("--jigsaw-interleave", t.interleave,
                  "1: same-size complementary staircase pairs (iteration-level interleaving)")
      ->capture_default_str();
  sim->add_option("--jigsaw-spb-memory", t.spb_memory,
                  "1: SPB's activation savings make room for guests; 0: guests must fit next to "
                  "full-backprop memory")
      ->capture_default_str();
  double gpu_memory_gb = t.gpu_memory_mb / 1024;
  sim->add_option_function<double>(
         "--gpu-memory-gb", [options](double gb) { options->colocation.gpu_memory_mb = gb * 1024; },
         "GPU memory for co-location checks (default 16, V100 as Shockwave's configs)")
      ->default_val(gpu_memory_gb);
  sim->add_option("--jigsaw-sharing-overhead", t.sharing_overhead,
                  "Unmeasured: share of its time-sliced speed a job sharing a GPU under SPB "
                  "loses (0: ideal time slicing, an upper bound)")
      ->capture_default_str();
  sim->add_option("--spb-warmup", t.spb_warmup,
                  "Share of its iterations a job runs at full backprop before it may run SPB")
      ->capture_default_str();
  sim->add_option("--spb-phases", options->spb_phases,
                  "jigsaw/spb_only: phase plans (jigsaw phase-plan); every job runs its adaptive "
                  "plan, a proxy's for models without one; none: no phase plans")
      ->capture_default_str();
  sim->add_option("--spb-phase-warmup", options->spb_phase.warmup_fraction,
                  "Sensitivity: share of a job's iterations in its warm-up (-1: as measured)")
      ->capture_default_str();
  sim->add_option("--spb-phase-frozen-share", options->spb_phase.frozen_share,
                  "Sensitivity: share of the blocks a frozen phase freezes (-1: as measured)")
      ->capture_default_str();
  sim->add_option("--spb-phase-compute-bound", options->spb_phase.compute_bound,
                  "Share of a frozen phase's compute saving that shortens its iteration (1: "
                  "compute-bound; 0: only capacity is freed)")
      ->capture_default_str();
  sim->add_option("--jigsaw-freed-guests", t.freed_guests,
                  "1: guests in the capacity a host's frozen phase frees; 0: none")
      ->capture_default_str();
  std::string interference_names;
  for (const auto& [value, name] : FreedInterferenceNames()) {
    interference_names += (interference_names.empty() ? "" : "|") + name;
  }
  sim->add_option("--jigsaw-freed-interference", options->freed_interference,
                  "Guests in freed capacity: " + interference_names +
                      " (Gavel's pair rates scaled by the freed share, or plain time slicing)")
      ->capture_default_str();
  sim->add_option("--jigsaw-freed-interference-scale", t.freed.interference_scale,
                  "Sensitivity: multiplies each co-located job's measured slowdown")
      ->capture_default_str();
  sim->add_option("--spb-efficiency-bound", options->spb_efficiency_bound,
                  "value, low or high: a measured entry's value or an end of its interval")
      ->capture_default_str();
  sim->add_option("--spb-fallback-blocks", options->spb_fallback.blocks,
                  "Fallback SPB cost model (no profile): equal blocks per model")
      ->capture_default_str();
  sim->add_option("--spb-fallback-backward-ratio", options->spb_fallback.backward_ratio,
                  "Fallback SPB cost model: a block's backward / forward time")
      ->capture_default_str();
}

SpbCostModelOptions MakeSpbCostModelOptions(const SimOptions& options) {
  SpbCostModelOptions spb;
  for (const std::string& binding : options.spb_profiles) {
    const size_t eq = binding.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == binding.size()) {
      throw UsageError("--spb-profile expects MODEL=FILE (e.g. ResNet-18=resnet.json), got '" +
                       binding + "'");
    }
    spb.profiles[binding.substr(0, eq)] = binding.substr(eq + 1);
  }
  spb.proxy_model = options.spb_proxy_model;
  spb.fallback = options.spb_fallback;
  if (spb.fallback.blocks < 1 || spb.fallback.blocks > 1000 || !(spb.fallback.backward_ratio > 0) ||
      spb.fallback.backward_ratio > 100) {
    throw UsageError(
        "--spb-fallback-blocks must be in [1, 1000] and --spb-fallback-backward-ratio in (0, 100]");
  }
  if (options.spb_efficiency_bound == "value") {
    spb.bound = SpbCostModelOptions::Bound::kValue;
  } else if (options.spb_efficiency_bound == "low") {
    spb.bound = SpbCostModelOptions::Bound::kLow;
  } else if (options.spb_efficiency_bound == "high") {
    spb.bound = SpbCostModelOptions::Bound::kHigh;
  } else {
    throw UsageError("--spb-efficiency-bound must be value, low or high, got '" +
                     options.spb_efficiency_bound + "'");
  }
  if (options.spb_efficiency == "auto") {
    spb.efficiency_file = options.spb_efficiency_file;
  } else {
    char* end = nullptr;
    spb.fixed_efficiency = std::strtod(options.spb_efficiency.c_str(), &end);
    if (end == options.spb_efficiency.c_str() || *end != '\0' || !(spb.fixed_efficiency >= 0) ||
        spb.fixed_efficiency > 1) {
      throw UsageError(
          "--spb-efficiency must be auto or a number in [0, 1] (0: no SPB plans), "
          "got '" +
          options.spb_efficiency + "'");
    }
  }
  return spb;
}

std::unique_ptr<SpbPhaseModel> MakeSpbPhaseModel(const SimOptions& options,
                                                 const SpbCostModelOptions& spb) {
  SpbPhaseModelOptions phases = options.spb_phase;
  phases.file = options.spb_phases == "none" ? "" : options.spb_phases;
  phases.proxy_model = spb.proxy_model;
  phases.profiles = spb.profiles;
  phases.fallback = spb.fallback;
  phases.fixed_efficiency = spb.fixed_efficiency;
  phases.bound = spb.bound == SpbCostModelOptions::Bound::kLow ? SpbPhaseModelOptions::Bound::kLow
                 : spb.bound == SpbCostModelOptions::Bound::kHigh
                     ? SpbPhaseModelOptions::Bound::kHigh
                     : SpbPhaseModelOptions::Bound::kValue;
  return std::make_unique<SpbPhaseModel>(phases);
}

SimColocation ConfigureColocation(const SimOptions& options, const ThroughputTable& table,
                                  PolicyOptions* policy_options) {
  SimColocation c;
  if (options.policy == "jigsaw" || options.policy == "spb_only" || options.policy == "packing") {
    const SpbCostModelOptions spb_options = MakeSpbCostModelOptions(options);
    c.spb = std::make_unique<SpbCostModel>(spb_options);
    policy_options->spb = c.spb.get();
    if (options.policy != "packing") {
      c.phases = MakeSpbPhaseModel(options, spb_options);
      policy_options->spb_phases = c.phases.get();
    }
  }
  RequireCountInRange("--gpus-per-node", options.gpus_per_node, 1, kMaxGpus);
  RequireOptionInRange("--nic-gbps", options.nic_gbps, 1e-3, 1e6);
  policy_options->colocation_base = options.colocation_base;
  const ColocationTunables& t = options.colocation;
  if (!(t.min_gain >= 0) || !(t.min_host_rate >= 0 && t.min_host_rate <= 1) || t.max_guests < 1 ||
      !(t.gpu_memory_mb > 0) || !(t.sharing_overhead >= 0 && t.sharing_overhead < 1) ||
      !(t.spb_warmup >= 0 && t.spb_warmup <= 1)) {
    throw UsageError(
        "co-location tunables out of range: --jigsaw-min-gain >= 0, --jigsaw-min-host-rate in "
        "[0, 1], --jigsaw-max-guests >= 1, --gpu-memory-gb > 0, --jigsaw-sharing-overhead in "
        "[0, 1), --spb-warmup in [0, 1]");
  }
  policy_options->colocation = t;
  policy_options->colocation.freed.interference =
      ParseFreedInterference("--jigsaw-freed-interference", options.freed_interference);
  policy_options->colocation.freed.Validate();
  const bool colocating = options.policy == "jigsaw" || options.policy == "packing";
  if (!options.colocation_throughputs.empty()) {
    c.colocation_table =
        std::make_unique<ThroughputTable>(ThroughputTable::Load(options.colocation_throughputs));
    policy_options->colocation_throughputs = c.colocation_table.get();
  }
  if (colocating) {
    const ThroughputTable& pairs =
        options.colocation_throughputs.empty() ? table : *c.colocation_table;
    const ColocationConsistency check = CheckColocationEntries(pairs, options.config.worker_type);
    c.report["table"] = pairs.name();
    c.report["entries_checked"] = check.checked;
    c.report["entries_faster_than_alone"] = check.faster_than_alone;
    if (check.faster_than_alone > 0) {
      std::fprintf(stderr,
                   "sim: warning: %d of %d co-location entries in %s are faster than the same "
                   "table's isolated throughput: its co-location and isolated entries come from "
                   "different measurements (Shockwave's tables copy Gavel's co-location entries "
                   "but re-measured the isolated ones); pass --colocation-throughputs with the "
                   "table they were measured with (Gavel's)\n",
                   check.faster_than_alone, check.checked, pairs.name().c_str());
    }
  }
  policy_options->gpus_per_node = options.gpus_per_node;
  policy_options->nic_gbps = options.nic_gbps;
  return c;
}

void AddColocationReports(const SimColocation& colocation, Json* extra) {
  if (colocation.spb != nullptr) {
    Json uses = Json::array();
    for (const SpbEfficiencyUse& use : colocation.spb->Uses()) {
      Json u;
      u["model"] = use.model;
      u["workers"] = use.workers;
      u["known"] = use.known;
      if (use.known) {
        u["efficiency"] = use.efficiency;
        u["interval"] = {use.low, use.high};
        u["seeds"] = use.seeds;
      }
      u["proxy"] = use.proxy;
      u["source"] = use.source;
      uses.push_back(u);
      if (use.known && use.proxy) {
        std::fprintf(stderr,
                     "sim: warning: no statistical efficiency measured for %s on %d workers; "
                     "used %.4g from %s\n",
                     use.model.c_str(), use.workers, use.efficiency, use.source.c_str());
      }
    }
    (*extra)["spb_statistical_efficiency"] = uses;
  }
  if (colocation.phases != nullptr) {
    (*extra)["spb_phase_plans"] = SpbPhaseUsesJson(*colocation.phases, stderr);
  }
}

}  // namespace jigsaw
