// The simulator's records (faas::Simulate's engine, private to src/faas): one per request, per
// running function, per sandbox being set up, and per Sparrow task waiting on its reservations.
// Plain data, indexed by uint32_t slots of the engine's vectors.
#ifndef JIGSAW_FAAS_SIM_RECORDS_H_
#define JIGSAW_FAAS_SIM_RECORDS_H_

#include <cstdint>

#include "faas/dag.h"
#include "faas/ready_queue.h"

namespace jigsaw::faas {

enum class RequestState : uint8_t { kRunning, kCompleted, kFailed };

struct Request {
  Time arrival;
  Time deadline;  // absolute
  Time finished;  // when completed
  Time waited;    // summed over its functions: ready until started
  Time cold;      // summed cold-start setup of its functions
  Time unpaused;  // summed resume time of paused sandboxes (openwhisk)
  Time floor;     // its execution floor so far: the longest path of its finished runs' durations
  uint32_t cold_starts;
  uint32_t dag;
  uint32_t pending_offset;  // into the engine's per-node predecessor counts
  uint32_t remaining;       // nodes not yet done
  uint32_t sgs;
  uint16_t retries;
  RequestState state;
  bool measured;
};

struct Execution {
  uint32_t request;
  uint32_t node;
  FunctionId function;
  uint32_t worker;
  uint32_t token;  // bumped when the slot is freed; a finish event for an older token is stale
  Time duration;   // execution, without setup
  bool active;
};

struct Warming {
  uint32_t worker;
  FunctionId function;
  uint64_t generation;
};

// Sparrow: a ready function waiting for the first of its reserved workers.
struct Pending {
  ReadyTask task;
  uint32_t reservations;
  bool taken;
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_SIM_RECORDS_H_
