// The load generator of the real platform (`jigsaw faas-load`): open-loop Poisson requests over
// HTTP on loopback to the load balancer, each DAG picked with probability proportional to its
// "rate" in the DAG file.
//
// A pacing thread puts each arrival, at its scheduled time, into a queue of at most
// 4 x `connections` entries that `connections` sender threads (one keep-alive connection each)
// drain; an arrival that finds the queue full is counted as dropped by the client (never sent,
// never silently lost). Latency runs from the scheduled arrival to the full answer, so client-side
// waiting counts. A request meets its deadline when it was answered 200 within its DAG's deadline.
// The first `warmup` requests are sent but not measured.
#ifndef JIGSAW_FAAS_LOAD_CLIENT_H_
#define JIGSAW_FAAS_LOAD_CLIENT_H_

#include <cstdint>
#include <string>

#include "core/output.h"
#include "faas/dag.h"

namespace jigsaw::faas {

struct LoadOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  double rate_per_s = 10;
  int64_t requests = 200;
  int64_t warmup = 0;
  int connections = 32;
  uint64_t seed = 1;
  int timeout_s = 120;
  bool quiet = false;
};

// Runs the load; returns the summary (summary.json), with the platform's final GET /stats under
// "platform" and one entry per measured request in *rows ("index,dag,status,latency_ms,...").
Json RunLoad(const Catalog& catalog, const LoadOptions& options, std::string* csv_rows);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_LOAD_CLIENT_H_
