// The scheduler's phase plan (spb/phase_plan.h) of a training run: the freeze schedule that
// `jigsaw train --spb adaptive` followed (the depth every rank ran at every iteration, from the run
// folder's iterations.csv) costed with `jigsaw profile`'s per-block measurements. Torch-free.
//
// Phases: maximal runs of consecutive iterations in which the ranks ran the same depths (as a
// multiset, so a rotation of the same depths is one phase); fraction = its iterations / the run's.
// Per phase, EstimateSpbIteration (spb/iteration_estimate.h, one worker per device: the
// profile's "steps" section is not used; a profile without "comm" is costed compute-only) of the
// phase's depths against full backpropagation at the run's batch: iteration time, each worker's
// compute and activation bytes, and mean bytes sent (for one worker: the share of the parameter
// bytes that are updated). Statistical efficiency: 1 for a phase in which every rank trains every
// block (it is full backpropagation); for the others the frozen-phase efficiency of the
// efficiency file's entry for (model, adaptive, workers) (`frozen_phase_efficiency`, with its
// interval): one value for every phase after the first freeze, because the runs measure the
// frozen phases together.
//
// Several runs (seeds) of the same configuration may be given: they must follow the same phase
// sequence (the same depths in the same order); the fractions are averaged.
#ifndef JIGSAW_SPB_RUN_PHASE_PLAN_H_
#define JIGSAW_SPB_RUN_PHASE_PLAN_H_

#include <string>
#include <vector>

#include "spb/phase_plan.h"

namespace jigsaw {

struct RunPhasePlanOptions {
  std::vector<std::string> runs;  // run folders (summary.json, iterations.csv)
  std::string profile;            // a `jigsaw profile` output of the same model
  std::string efficiency_file;    // data/spb_statistical_efficiency.json
  // Throws UsageError naming the option when a field is missing.
  void Validate() const;
};

// Throws InputError (file:line) for malformed run files, UsageError when the runs disagree, the
// profile is of another model or the efficiency file has no frozen-phase entry for the model.
SpbPhasePlan PhasePlanFromRuns(const RunPhasePlanOptions& options);

// Replaces the plan with the same (model, workers, plan) in `plans` or appends it.
void MergeSpbPhasePlan(const SpbPhasePlan& plan, std::vector<SpbPhasePlan>* plans);

}  // namespace jigsaw

#endif  // JIGSAW_SPB_RUN_PHASE_PLAN_H_
