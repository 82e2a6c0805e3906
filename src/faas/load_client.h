// The load generator of the real platform (`jigsaw faas-load`): open-loop Poisson requests over
// HTTP on loopback to the load balancer, each DAG picked with probability proportional to its
// "rate" in the DAG file.
// With burst_sigma > 0 the arrivals are bursty instead, as faas-sim's generator makes them (faas::
// ArrivalProcess, the Azure Functions 2019 traces' burstiness): each DAG arrives as its own
// Poisson process at rate x (its share of the "rate" weights) x a factor drawn per DAG and per
// burst_period from a lognormal with mean 1 and log-sd burst_sigma (seeded by `seed`), so the
// mean rate is unchanged and the DAGs burst independently. Timer-triggered ("periodic") DAGs
// arrive evenly spaced at their share.
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
#include <vector>

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
  Time burst_period = 10 * net::kSecond;
  double burst_sigma = 0;  // 0: plain Poisson
  int timeout_s = 120;
  bool quiet = false;
};

struct ScheduledArrival {
  Time at = 0;  // after the start of the run
  DagId dag = 0;
};
// The `requests` arrivals RunLoad sends, in time order (a pure function of catalog and options).
std::vector<ScheduledArrival> ScheduleArrivals(const Catalog& catalog, const LoadOptions& options);

// Runs the load; returns the summary (summary.json), with the platform's final GET /stats under
// "platform" and one entry per measured request in *rows ("index,dag,status,latency_ms,...").
Json RunLoad(const Catalog& catalog, const LoadOptions& options, std::string* csv_rows);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_LOAD_CLIENT_H_
