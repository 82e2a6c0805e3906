// Applications of the serverless platform: DAGs of functions, each DAG with a latency deadline.
//
// A Catalog owns every function of every DAG (a function belongs to exactly one DAG, as in Azure
// Functions, where a function belongs to one app); FunctionId indexes Catalog::functions. A DAG's
// nodes are in topological order (every predecessor before its successors), entry nodes have no
// predecessors, and the DAG completes when all its nodes have run. Times are net::Time
// (picoseconds), the unit of the shared event core.
#ifndef JIGSAW_FAAS_DAG_H_
#define JIGSAW_FAAS_DAG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "net/units.h"

namespace jigsaw::faas {

using net::Time;
using FunctionId = uint32_t;
using DagId = uint32_t;

struct Function {
  std::string name;  // unique within its DAG
  DagId dag = 0;
  Time duration = 0;       // expected (prior) execution time; the estimator refines it online
  Time setup = 0;          // cold start: creating and initialising one sandbox
  uint64_t memory = 0;     // bytes held by one sandbox, idle or busy
  double duration_cv = 0;  // coefficient of variation of one invocation's duration
  std::string code = "sha256:1MiB";  // what the real platform runs (faas/function_code.h)
};

struct Dag {
  std::string name;
  Time deadline = 0;                              // end-to-end, from arrival to last node done
  std::vector<FunctionId> nodes;                  // topological order
  std::vector<std::vector<uint32_t>> successors;  // per node, indices into nodes
  std::vector<uint32_t> predecessor_count;        // per node
  double rate_per_s = 1;                          // mean request rate
  bool periodic = false;  // timer-triggered: evenly spaced arrivals instead of bursty Poisson
  std::string trigger = "http";
  int line = 0;  // where it was defined (0: generated)
};

struct Catalog {
  std::vector<Function> functions;
  std::vector<Dag> dags;
};

// Longest path, in summed `durations[function]`, from each node of `dag` to a sink, the node's
// own duration included (remaining critical path once the node is ready).
std::vector<Time> CriticalPathFrom(const Dag& dag, const std::vector<Time>& durations);

// Orders nodes topologically (Kahn) given `after` (per node, its predecessors, indices into the
// same list). Returns false when the predecessors form a cycle; then *cycle_node names one node on
// or behind a cycle.
bool TopologicalOrder(const std::vector<std::vector<uint32_t>>& after, std::vector<uint32_t>* order,
                      uint32_t* cycle_node);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_DAG_H_
