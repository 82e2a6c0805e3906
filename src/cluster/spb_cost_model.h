// SpbCostModel: the scheduler's view of structured partial backpropagation for a job type. For a
// job of `model` at `batch` on N GPUs it lists the SPB plans the job could run (full first, then
// staircase) with, relative to full backprop on the same GPUs: iteration time, each worker's
// compute busy fraction and memory, bytes sent per worker, and the plan's statistical efficiency
// (progress per iteration). Also the absolute bytes a full-backprop worker sends per iteration,
// for NIC accounting. Torch-free.
//
// Where the numbers come from (docs/jigsaw.md):
//  * a `jigsaw profile` output bound to the job's model (`--spb-profile MODEL=FILE`): the SPB
//    iteration estimate of src/spb/iteration_estimate.h with one worker per device (the profile's
//    per-block times; its "steps" section describes N processes sharing one CPU and is not used)
//    and the profile's own communication model, so compute and communication come from the same
//    machine; memory and bytes from the same estimate;
//  * otherwise the documented fallback of spb_options.h (8 equal blocks, backward = 2 x forward,
//    Shockwave's memory profile), for job types known only by their Gavel throughputs;
//  * statistical efficiency: a fixed value if given (`--spb-efficiency`), else the measured data
//    file (data/spb_statistical_efficiency.json): the job's own model (the trace's model name,
//    or the bound profile's, compared without case and punctuation) if measured, else
//    `proxy_model`'s entry for the same plan at the nearest worker count; `bound` picks the
//    entry's value or an end of its interval. With no efficiency known, only "full" is offered:
//    no number is invented. Every model the run looked up is listed by Uses(), proxies marked.
#ifndef JIGSAW_CLUSTER_SPB_COST_MODEL_H_
#define JIGSAW_CLUSTER_SPB_COST_MODEL_H_

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "cluster/spb_options.h"
#include "spb/cost_model.h"
#include "spb/statistical_efficiency.h"

namespace jigsaw {

struct SpbCostModelOptions {
  std::map<std::string, std::string> profiles;  // job model ("ResNet-18") -> profile path
  std::string efficiency_file;                  // "" = no measured data
  std::string proxy_model = "lenet";
  double fixed_efficiency = -1;  // in (0, 1] overrides the data file; 0 disables SPB plans
  // Which value of a measured entry: its statistical_efficiency, or the low or high end of its
  // interval (the value itself when the entry gives no interval).
  enum class Bound { kValue, kLow, kHigh } bound = Bound::kValue;
  FallbackSpbShape fallback;
};

// Where a job model's statistical efficiency came from, for the run's report.
struct SpbEfficiencyUse {
  std::string model;  // the job model ("ResNet-18")
  int workers = 0;
  bool known = false;
  double efficiency = 0;
  double low = 0, high = 0;  // the entry's 95% interval, clamped to [0, 1] (the value if none)
  int seeds = 0;
  bool proxy = false;  // another model's measurement stands in
  std::string source;  // file:line (and the measured model, workers) or why unknown
};

class SpbCostModel {
 public:
  // Reads the profiles and the data file; throws InputError (file:line) or UsageError.
  explicit SpbCostModel(const SpbCostModelOptions& options);

  // "full" first, then "staircase" when workers > 1 and its statistical efficiency is known and
  // positive. Empty when the job type is unknown to both sources.
  const std::vector<SpbOption>& Options(const std::string& model, int batch, int workers) const;

  // Bytes one worker of a full-backprop iteration sends (ring allreduce of all gradients); 0 when
  // the model's parameter bytes are unknown.
  double FullBytesPerWorker(const std::string& model, int batch, int workers) const;

  // Every (model, workers) whose staircase efficiency was looked up so far, in order.
  std::vector<SpbEfficiencyUse> Uses() const;

 private:
  struct Costs {
    std::vector<SpbOption> options;
    double full_bytes_per_worker = 0;
  };
  // Cached per (model, batch, N): the planners ask for the same job types every round.
  const Costs& Lookup(const std::string& model, int batch, int workers) const;
  Costs ComputeCosts(const std::string& model, int batch, int workers) const;
  SpbEfficiencyUse Efficiency(const std::string& model, const std::string& profile_model,
                              int workers) const;

  SpbCostModelOptions options_;
  std::map<std::string, ModelProfile> profiles_;
  StatisticalEfficiencyTable efficiency_;
  mutable std::map<std::tuple<std::string, int, int>, Costs> cache_;
  mutable std::map<std::pair<std::string, int>, SpbEfficiencyUse> uses_;
};

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_SPB_COST_MODEL_H_
