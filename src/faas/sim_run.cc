#include "faas/sim_run.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "core/output.h"
#include "core/progress.h"
#include "faas/dag_reader.h"
#include "faas/sim_outputs.h"
#include "faas/simulator.h"
#include "faas/workload.h"

namespace jigsaw::faas {
namespace {

// One variant with progress on stderr; a lost request is a simulator bug.
SimResult RunVariant(const Catalog& catalog, SimOptions options, bool quiet) {
  Progress progress(std::string("faas-sim ") + PlatformName(options.platform), !quiet);
  const uint64_t target = options.requests;
  options.on_tick = [&progress, target](double simulated, uint64_t arrived) {
    if (progress.Due()) {
      progress.Report(static_cast<double>(arrived), static_cast<double>(target),
                      FormatFixed(simulated, 1) + " s simulated, " + std::to_string(arrived) + "/" +
                          std::to_string(target) + " requests arrived");
    }
  };
  SimResult r = Simulate(catalog, options);
  if (r.lost != 0) {
    throw std::runtime_error("faas-sim: " + std::to_string(r.lost) +
                             " requests neither completed nor failed (a simulator bug)");
  }
  return r;
}

}  // namespace

Catalog SimCatalog(const SimRunOptions& options, const SimRunSpec& spec,
                   std::vector<DurationQuantiles>* measured) {
  Catalog catalog;
  if (!options.dags.empty()) {
    catalog = ReadDagFile(options.dags);
    if (options.load_given) ScaleToLoad(&catalog, spec.workload.load, spec.sim.cores);
  } else {
    catalog = GenerateWorkload(spec.workload);
  }
  if (options.durations.empty()) return catalog;
  *measured = ReadDurationFile(options.durations, catalog);
  for (FunctionId f = 0; f < catalog.functions.size(); ++f) {
    if (!(*measured)[f].empty()) {
      catalog.functions[f].duration = std::max<Time>(1, (*measured)[f].Mean());
    }
  }
  if (options.dags.empty() || options.load_given) {
    ScaleToLoad(&catalog, spec.workload.load, spec.sim.cores);
  }
  return catalog;
}

std::string NothingMeasuredWarning(const SimResult& r, const std::string& warmup_option,
                                   Time warmup, double arrival_span_s) {
  char text[1024];
  std::snprintf(text, sizeof(text),
                "faas-sim: warning: %s/%s measured no request: its %llu requests arrive within "
                "about %.1f s, before the warm-up of %.1f s (--warmup %s) ends, so its figures "
                "are not measurements; lower --warmup or raise --requests\n",
                r.platform.c_str(), r.policy.c_str(), static_cast<unsigned long long>(r.requests),
                arrival_span_s, static_cast<double>(warmup) / net::kSecond, warmup_option.c_str());
  return text;
}

int RunSimulation(const SimRunOptions& options) {
  SimRunSpec spec = options.Validate();
  std::vector<DurationQuantiles> measured;
  const Catalog catalog = SimCatalog(options, spec, &measured);
  if (!options.durations.empty()) spec.sim.measured_durations = &measured;
  MakeDirectories(options.out);
  if (spec.auto_warmup) {
    spec.sim.warmup = AutoWarmup(spec.sim.requests, FactsOf(catalog, spec).request_rate_per_s);
  }
  const SimInputFacts facts = FactsOf(catalog, spec);
  const Json inputs = SimInputsJson(options, spec, facts);
  SimOutputs outputs(catalog, spec.sim.burst_period, spec.sim.cores);
  std::fputs(SimTableHeader().c_str(), stdout);
  for (const SimOptions& variant : SimVariants(spec, options)) {
    const SimResult r = RunVariant(catalog, variant, options.quiet);
    outputs.Add(r);
    std::fputs(SimTableRow(r).c_str(), stdout);
    std::fflush(stdout);
    if (r.measured == 0) {
      std::fputs(
          NothingMeasuredWarning(r, options.warmup, spec.sim.warmup, facts.arrival_span_s).c_str(),
          stderr);
    }
    if (!options.quiet) {
      std::fprintf(stderr, "faas-sim: %s/%s: %llu events, %.1f s simulated, %.2f s wall\n",
                   r.platform.c_str(), r.policy.c_str(), static_cast<unsigned long long>(r.events),
                   r.simulated_s, r.wall_s);
    }
  }
  outputs.Commit(options.out, inputs);
  return 0;
}

}  // namespace jigsaw::faas
