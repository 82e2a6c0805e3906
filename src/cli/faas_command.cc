// `jigsaw faas-sim`: Archipelago (SGS worker pools, least-slack-first, proactive sandboxes, a
// scaling load balancer) against OpenWhisk-like and Sparrow-like baselines on a simulated
// cluster. This file binds the flags to faas::SimRunOptions' fields; the checks, the run and the
// output format are faas's (faas/sim_options.h, faas/sim_run.h, faas/sim_outputs.h). See
// docs/faas.md.
#include <memory>
#include <string>

#include "cli/commands.h"
#include "faas/sim_run.h"

namespace jigsaw {
namespace {

using faas::SimRunOptions;

// The workload, the cluster, the platforms and the measurement (in --help's order).
CLI::Option* AddRunFlags(CLI::App* command, SimRunOptions* o) {
  command->add_option("--dags", o->dags,
                      "DAG file (jigsaw-faas-dags-v1); default: a generated Azure-2019-like "
                      "workload");
  CLI::Option* load = command->add_option(
      "--load", o->workload.load,
      "offered load as a fraction of the cores (rates are scaled to it; with --dags only if "
      "given)");
  command->add_option("--apps", o->workload.dags, "generated applications (DAGs)");
  command->add_option("--requests", o->sim.requests, "requests to simulate");
  command->add_option("--cores", o->sim.cores, "cluster cores");
  command->add_option("--cores-per-worker", o->sim.cores_per_worker, "cores per worker");
  command->add_option("--workers-per-sgs", o->sim.workers_per_sgs,
                      "workers in one Archipelago SGS pool");
  command->add_option("--worker-memory", o->worker_memory, "sandbox memory per worker");
  command->add_option("--platforms", o->platforms, faas::EnumNames(faas::Platforms(), ",", ","));
  command->add_option(
      "--policies", o->policies,
      "Archipelago SGS queue policies to run: " + faas::EnumNames(faas::QueuePolicies(), ",", ","));
  command->add_option("--seed", o->sim.seed, "seed of the workload and the simulation");
  command->add_option("--warmup", o->warmup,
                      "requests arriving earlier are served but not measured: a duration, or "
                      "auto (a tenth of the expected arrival span, at most 10s)");
  command->add_option("--keep-alive", o->keep_alive,
                      "baselines' idle sandbox keep-alive; Archipelago's keep window");
  command->add_option("--setup-median", o->setup_median, "generated sandbox setup (cold start)");
  command->add_option("--duration-median", o->duration_median, "generated function duration");
  command->add_option("--burst-period", o->burst_period, "length of one burst period");
  command->add_option("--burst-sigma", o->sim.burst_sigma,
                      "lognormal sigma of the per-period rate factor (0: plain Poisson)");
  command->add_option("--sparrow-probes", o->sim.sparrow_probes, "Sparrow probes per task");
  command->add_option("--max-retries", o->sim.max_retries,
                      "retries of a request's functions killed with their worker");
  command->add_option("--kill", o->kills, "WORKER@TIME: kill a worker (repeatable)");
  return load;
}

// Archipelago's extra variants, measured durations and the dispatch overhead.
void AddVariantFlags(CLI::App* command, SimRunOptions* o) {
  command->add_flag("--ablation-no-proactive", o->no_proactive_ablation,
                    "also run Archipelago without proactive sandbox allocation");
  command->add_flag("--ablation-no-demote-late", o->no_demote_ablation,
                    "also run Archipelago without moving hopeless tasks behind feasible ones");
  command->add_flag("--admission-control", o->admission_control,
                    "also run Archipelago with admission control (the largest requests refused "
                    "first when more work arrives than the cluster has; docs/faas.md)");
  command->add_flag("--hopeless-admission", o->hopeless_admission,
                    "also run Archipelago refusing requests already hopeless at arrival (slack "
                    "below the work queued ahead of them on their SGS per core; docs/faas.md)");
  command->add_option("--durations", o->durations,
                      "measured per-function duration quantiles (CSV dag,function,quantile,"
                      "duration; docs/faas.md) instead of lognormal(duration, duration_cv)");
  command->add_option("--dispatch-overhead", o->dispatch_overhead,
                      "constant per-task dispatch overhead, holding the core before the run");
}

// The OpenWhisk-like baseline's pausing, memory slots and stem cells; returns the stem-cell
// options (they apply to the openwhisk platform only).
std::vector<CLI::Option*> AddOpenWhiskFlags(CLI::App* command, SimRunOptions* o) {
  command->add_option("--ow-pause-grace", o->ow_pause_grace,
                      "OpenWhisk-like: a warm sandbox idle longer than this is paused (OpenWhisk's "
                      "pause-grace, 50ms)");
  command->add_option("--ow-unpause-cost", o->ow_unpause_cost,
                      "OpenWhisk-like: resuming a paused sandbox holds the core this long before "
                      "the run (0s: no pausing; docs/faas.md)");
  command->add_option("--invoker-memory", o->invoker_memory,
                      "OpenWhisk-like: memory slots per invoker (OpenWhisk's user-memory; default: "
                      "--worker-memory)");
  return {
      command->add_option("--ow-stem-cells", o->sim.ow_stem_cells,
                          "OpenWhisk-like: prewarmed stem cells per invoker (OpenWhisk's "
                          "runtimes.json: 2; 0: none)"),
      command->add_option("--ow-stem-cell-memory", o->ow_stem_cell_memory,
                          "OpenWhisk-like: a stem cell's memory; only functions of this memory "
                          "take one (256MiB)"),
      command->add_option("--ow-stem-cell-init-share", o->sim.ow_stem_cell_init_share,
                          "OpenWhisk-like: the share of a function's setup a stem-cell start "
                          "still pays (its /init; 0.2, our choice; docs/faas.md)"),
  };
}

}  // namespace

void AddFaasSimCommand(CLI::App& app, CommandAction* action) {
  auto o = std::make_shared<SimRunOptions>();
  CLI::App* command = app.add_subcommand(
      "faas-sim",
      "serverless DAGs with deadlines: Archipelago vs OpenWhisk-like and Sparrow-like "
      "baselines on a simulated cluster (docs/faas.md)");
  CLI::Option* load = AddRunFlags(command, o.get());
  AddVariantFlags(command, o.get());
  const std::vector<CLI::Option*> stem_cells = AddOpenWhiskFlags(command, o.get());
  command->add_option("--duration-model", o->duration_model,
                      "generated durations: azure (lognormal, median --duration-median, sigma 1) "
                      "or short (log-uniform 10-100 ms; docs/faas.md)");
  command->add_flag("--quiet", o->quiet, "no progress on stderr");
  command
      ->add_option("--out", o->out,
                   "output folder (summary.json, results.csv, per_dag.csv, per_dag_period.csv)")
      ->capture_default_str();
  command->callback([o, action, load, stem_cells] {
    o->load_given = load->count() > 0;
    for (CLI::Option* option : stem_cells) o->stem_cells_given |= option->count() > 0;
    *action = [o] { return faas::RunSimulation(*o); };
  });
}

}  // namespace jigsaw
