// SpbPhaseModel: the phases of a job's adaptive SPB plan as the scheduler sees them (docs/
// jigsaw.md, "Phase plans"). For a job of `model` at `batch` on N GPUs: its phases in order, each
// with the share of the job's iterations it lasts and, relative to full backprop on the same
// GPUs, its compute per GPU (busiest worker), iteration time, worker memory, bytes sent and
// statistical efficiency. Torch-free.
//
// Where the numbers come from:
//  * the phase-plan file (`--spb-phases FILE`, spb/phase_plan.h; `jigsaw phase-plan` writes it
//    from a train run folder and a profile): a plan of the job's own model (names compared
//    without case and punctuation) is used as measured, at the nearest worker count;
//  * otherwise the proxy model's plan (`--spb-proxy-model`, lenet): its phase fractions, the
//    share of the blocks each phase freezes and each phase's statistical efficiency, applied to
//    the job's own cost shape: its `jigsaw profile` (`--spb-profile MODEL=FILE`) frozen at the
//    nearest whole block, else the documented fallback (spb_options.h): L equal blocks, backward
//    = r x forward, so a phase that freezes a share f of the blocks computes (1 + r (1 - f)) /
//    (1 + r) of an iteration, keeps 1 - a f of the worker's memory (a the batch-proportional share
//    of Shockwave's memory profile) and sends 1 - f of the bytes. Every proxy use is listed by
//    Uses() (summary.json) and announced on stderr by the caller;
//  * iteration time = 1 - beta (1 - compute) (`compute_bound` beta in [0, 1]: 1 = a
//    compute-bound iteration, the assumption of the rest of the SPB cost model; 0 = the phase
//    saves no time, only GPU capacity);
//  * overrides for sensitivity studies: a fixed efficiency for every saving phase, an end of the
//    efficiency's interval, the warm-up share (the other phases share the rest in proportion) and
//    the frozen share of the blocks.
#ifndef JIGSAW_CLUSTER_SPB_PHASE_MODEL_H_
#define JIGSAW_CLUSTER_SPB_PHASE_MODEL_H_

#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cluster/spb_options.h"
#include "core/output.h"
#include "spb/cost_model.h"
#include "spb/phase_plan.h"

namespace jigsaw {

struct SpbPhaseModelOptions {
  std::string file;  // phase plans; "" = none (no job has a phase plan)
  std::string proxy_model = "lenet";
  std::map<std::string, std::string> profiles;  // job model -> `jigsaw profile` output
  FallbackSpbShape fallback;
  double fixed_efficiency = -1;  // in [0, 1]: every saving phase's efficiency
  enum class Bound { kValue, kLow, kHigh } bound = Bound::kValue;
  double warmup_fraction = -1;  // in [0, 1): the first (warm-up) phase's share
  double frozen_share = -1;     // in [0, 1]: share of the blocks a saving phase freezes
  double compute_bound = 1;     // beta above
  // Throws UsageError naming the option of a field out of range.
  void Validate() const;
};

struct JobPhase {
  std::string name;
  double end = 1;           // share of the job's iterations done when the phase ends (cumulative)
  bool saves = false;       // some block is frozen (a frozen phase)
  double frozen_share = 0;  // of the blocks
  double compute = 1;       // busiest GPU's compute per iteration, relative to full
  double iteration_time = 1;
  double memory = 1;  // busiest worker's memory, relative to full backprop's
  double bytes = 1;
  double efficiency = 1;
};

struct JobPhases {
  std::vector<JobPhase> phases;  // at least one; the last ends at 1
  // The phase at `progress` (share of the job's iterations done, clamped to [0, 1]).
  int Index(double progress) const;
};

// Where a job model's phase plan came from, for the run's report.
struct SpbPhaseUse {
  std::string model;
  int workers = 0;
  bool known = false;
  bool proxy = false;
  std::string measured_model;
  int measured_workers = 0;
  std::string cost_source;  // "phase plan", "profile FILE" or "fallback"
  std::string source;       // file:line of the plan, or why none
  JobPhases phases;
};

class SpbPhaseModel {
 public:
  // Reads the phase-plan file and the profiles; throws InputError (file:line) or UsageError.
  explicit SpbPhaseModel(const SpbPhaseModelOptions& options);

  // Null when the job has no phase plan (no file, or neither its model nor the proxy has one, or
  // the job type has no memory profile for the fallback).
  const JobPhases* Phases(const std::string& model, int batch, int workers) const;

  // Every (model, workers) looked up so far, in order.
  std::vector<SpbPhaseUse> Uses() const;

 private:
  SpbPhaseUse Compute(const std::string& model, int batch, int workers) const;
  void Cost(const std::string& model, int batch, int workers, const SpbPhase& measured, bool own,
            JobPhase* phase, std::string* cost_source) const;

  SpbPhaseModelOptions options_;
  SpbPhasePlanFile file_;
  std::map<std::string, ModelProfile> profiles_;
  mutable std::map<std::tuple<std::string, int, int>, SpbPhaseUse> cache_;
};

// summary.json's "spb_phase_plans": every job model's phase plan and where it came from. Each
// proxy is also announced on `warnings` (a loud line naming the model, the proxy and the file)
// unless it is null.
Json SpbPhaseUsesJson(const SpbPhaseModel& model, std::FILE* warnings);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_SPB_PHASE_MODEL_H_
