// `jigsaw serve-bench`: an open-loop load generator for a KServe v2 server (torch-free).
//
// Requests (one image each, FP32, only the class asked for) are drawn from the test split of a
// data set, images [first, first + count): a "uniform" stream picks them uniformly; a "zipf"
// stream (temporal locality) first draws a class with Zipf popularity (rank r has weight
// 1 / (r + 1)^zipf_s) and then one of that class's images, the ranking redrawn (seeded) every
// `drift_every` requests. Arrivals are a Poisson process at `rate` per second, scheduled in
// advance and independent of the answers (open loop); `connections` keep-alive connections send
// them, and latency runs from an arrival's scheduled time to its answer (so waiting for a free
// connection counts). Arrivals finding `max_backlog` others unsent are dropped and counted.
//
// Agreement with the base model needs a reference: `reference_out` first sends every image of the
// range once (one a request) and writes "index class" lines (run it against a server
// without a cache); `reference_in` reads such a file. /v2/stats before and after the run gives the
// samples answered after each number of blocks and the cache's bytes.
#ifndef JIGSAW_SERVE_SERVE_BENCH_H_
#define JIGSAW_SERVE_SERVE_BENCH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/runtime.h"

namespace jigsaw {

struct ServeBenchOptions {
  std::string host = "127.0.0.1";
  int port = 8000;
  std::string model;  // the served model's name
  DataOptions data;
  int first = 5000;
  int count = 0;  // 0: to the end of the split
  std::string stream = "zipf";
  double zipf_s = 1.2;
  int drift_every = 1000;
  double rate = 50;  // requests per second
  int requests = 1000;
  int connections = 4;
  int max_backlog = 1000;
  uint64_t seed = 1;
  std::string reference_in;
  std::string reference_out;
};

struct ServeBenchResult {
  int sent = 0, ok = 0, failed = 0, dropped = 0;
  double seconds = 0;
  double throughput = 0;  // answered requests per second
  double mean_ms = 0, p50_ms = 0, p99_ms = 0, max_ms = 0;
  double accuracy = 0;                  // vs the data set's labels
  double agreement = -1;                // vs the reference; -1 without one
  double mean_blocks = 0;               // blocks run per answered request
  int blocks = 0;                       // the model's
  std::vector<int64_t> answered_after;  // from /v2/stats (difference over the run)
  double half_or_fewer = 0;             // fraction answered after <= blocks / 2 blocks
  int64_t cache_bytes = 0;
  double cache_ms = 0;   // server time in cache lookups + inserts per answered request
  double insert_ms = 0;  // the inserts' part of cache_ms
  double infer_ms = 0;   // server time in inference (model + caches) per answered request
  double cpu_ms = 0;     // server process CPU (user + system, all threads) per answered request

  std::string cache;
};

// Throws UsageError on bad options, InputError on a bad reference file, std::runtime_error
// when the server cannot be reached.
ServeBenchResult RunServeBench(const ServeBenchOptions& options);

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_SERVE_BENCH_H_
