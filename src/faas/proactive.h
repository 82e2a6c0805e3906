// Proactive sandbox allocation for one worker pool (Archipelago's SGS).
//
// Target: from a function's estimated demand rate (requests/s) and estimated duration, the
// offered load in sandboxes is a = rate x duration (Little's law); the pool keeps
// ceil(a + headroom_sigmas * sqrt(a)) warm sandboxes (square-root staffing, so Poisson bursts of
// a few standard deviations find a sandbox), and at least one while the function was used within
// keep_window. Plan: brings each function's sandbox count in the pool up to its target by creating
// warming sandboxes on the live worker with the most free memory; when no worker has room it
// evicts idle sandboxes of functions holding more than their target (least recently used first),
// and never a sandbox another function needs. Idle sandboxes of functions whose target is 0 are
// evicted. Creation is off the critical path: the platform starts the setup now and the sandbox
// turns idle when it is done.
#ifndef JIGSAW_FAAS_PROACTIVE_H_
#define JIGSAW_FAAS_PROACTIVE_H_

#include <cstdint>
#include <vector>

#include "faas/worker.h"

namespace jigsaw::faas {

struct ProactiveOptions {
  double headroom_sigmas = 2.0;
  Time keep_window = 600 * net::kSecond;
};

class ProactiveAllocator {
 public:
  explicit ProactiveAllocator(ProactiveOptions options) : options_(options) {}

  int Target(double rate_per_s, Time duration, bool used_recently) const;

  struct Creation {
    uint32_t worker;  // index into the pool
    FunctionId function;
  };
  struct PlanResult {
    std::vector<Creation> created;
    uint64_t evicted = 0;
  };
  // `functions`: those the pool serves; `target[f]` their targets (other entries are ignored and
  // count as 0 when judging which idle sandboxes may be evicted).
  PlanResult Plan(const std::vector<Worker*>& pool, const std::vector<FunctionId>& functions,
                  const std::vector<int>& target) const;

  const ProactiveOptions& options() const { return options_; }

 private:
  ProactiveOptions options_;
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_PROACTIVE_H_
