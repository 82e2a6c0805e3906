// Phase plans: a job's SPB plan as the scheduler sees it, a sequence of phases that split its
// iterations (for `--spb adaptive`: a warm-up at full backpropagation, then one phase per set of
// frozen blocks). Each phase gives, relative to full backpropagation on the same workers, its
// iteration time, each worker's compute and activation memory, the bytes a worker sends, and its
// statistical efficiency (progress per iteration during the phase, with its 95% interval).
// Written by `jigsaw phase-plan` from a training run (src/spb/run_phase_plan.h), read by
// `jigsaw sim` (src/cluster/spb_phase_model.h). Torch-free.
//
// File format (CSV, docs/jigsaw.md "Phase plans"):
//   line 1   "# jigsaw-spb-phase-plan v1"
//   line 2   the header kPhasePlanHeader
//   then one row per phase; blank lines and lines starting with '#' are skipped. The rows of one
//   plan (model, workers, plan) are consecutive, in phase order, and their fractions sum to 1
//   (within 1e-3). worker_compute and worker_activation hold one value per worker, separated by
//   ';'. Contract: 0 < fraction <= 1; 0 <= frozen_blocks <= blocks; iteration_time in (0, 10];
//   compute, activation and bytes in [0, 10]; 0 <= efficiency_low <= statistical_efficiency <=
//   efficiency_high <= 1; the model is one the runtime trains or a trace job type
//   (KnownPhasePlanModels). Every violation is an InputError naming file:line and what was
//   expected.
#ifndef JIGSAW_SPB_PHASE_PLAN_H_
#define JIGSAW_SPB_PHASE_PLAN_H_

#include <string>
#include <vector>

namespace jigsaw {

inline constexpr const char* kPhasePlanFormatLine = "# jigsaw-spb-phase-plan v1";
inline constexpr const char* kPhasePlanHeader =
    "model,workers,batch_per_worker,plan,phase,fraction,frozen_blocks,blocks,iteration_time,"
    "worker_compute,worker_activation,bytes,statistical_efficiency,efficiency_low,"
    "efficiency_high,source";

struct SpbPhase {
  std::string name;  // e.g. "warmup", "frozen"
  double fraction = 1;
  int frozen_blocks = 0;  // blocks no worker trains during the phase
  int blocks = 1;
  double iteration_time = 1;
  std::vector<double> worker_compute;     // per worker: compute / full backprop's
  std::vector<double> worker_activation;  // per worker: activation memory / full backprop's
  double bytes = 1;                       // mean bytes sent per worker / full backprop's
  double efficiency = 1, efficiency_low = 1, efficiency_high = 1;
  int line = 0;  // where the row is (0 when built in memory)

  bool SavesWork() const { return frozen_blocks > 0; }
  double MaxCompute() const;  // over workers
  double MaxActivation() const;
};

struct SpbPhasePlan {
  std::string model;  // as written ("lenet")
  int workers = 1;
  int batch_per_worker = 1;
  std::string plan = "adaptive";
  std::string source;  // where the numbers came from (no commas)
  std::vector<SpbPhase> phases;
  int line = 0;
};

struct SpbPhasePlanFile {
  std::string path;
  std::vector<SpbPhasePlan> plans;
};

// Model names (normalized as NormalizedModelName) a phase plan may describe: the runtime's models
// and the trace job types of Gavel's and Shockwave's tables.
const std::vector<std::string>& KnownPhasePlanModels();

// Reads and validates a phase-plan file (contract above). Throws InputError(path, line, ...).
SpbPhasePlanFile ReadSpbPhasePlans(const std::string& path);
// The same for in-memory text; `name` is used in errors.
SpbPhasePlanFile ParseSpbPhasePlans(const std::string& name, const std::string& text);

// Throws std::invalid_argument naming the field when `plan` breaks the contract above (what the
// reader checks, for plans built in memory).
void ValidateSpbPhasePlan(const SpbPhasePlan& plan);

// The file's text: the format line, the header, every plan's rows.
std::string FormatSpbPhasePlans(const std::vector<SpbPhasePlan>& plans);

// The plan of the same model (names compared normalized) and plan name with the nearest worker
// count (ties: the smaller); null when there is none.
const SpbPhasePlan* FindSpbPhasePlan(const SpbPhasePlanFile& file, const std::string& model,
                                     const std::string& plan, int workers);

}  // namespace jigsaw

#endif  // JIGSAW_SPB_PHASE_PLAN_H_
