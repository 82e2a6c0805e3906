// One semi-global scheduler (SGS) of the real platform: an HTTP server (core/http_server.h) on
// 127.0.0.1 that runs whole DAG requests on its own pool of sandbox processes
// (faas/sandbox_process.h).
//
// POST /fn/{dag}/{function} (body: the request payload) runs that one function of the DAG as a
// request of its own (tasks 1; its successors are not run; deadline and critical path as for the
// whole DAG): the OpenWhisk-like controller drives a DAG one function at a time this way.
// POST /run/{dag} (body: the request payload, at most 1 MiB): the DAG's entry functions become
// ready tasks in a ReadyQueue (least slack first, EDF or FIFO, with the same overload control as
// the simulator); a scheduler thread starts each task on an idle sandbox of its function, or on a
// new one (a cold start: fork/clone + exec + initialisation) when the pool's memory allows,
// evicting idle sandboxes least recently used first; a task whose function has a sandbox warming
// waits for it instead of starting another. `slots` tasks run at once (the pool's cores). Durations
// of real executions feed the DurationEstimator that slack and the ProactiveAllocator use;
// function arrival rates feed a RateEstimator; every `epoch` the allocator's plan starts warming
// sandboxes ahead of demand (when `proactive`) and idle sandboxes unused for `keep_alive` go.
// The worker's books (faas::Worker) mirror the real sandboxes one to one.
//
// Replies: 200 {"dag", "latency_ms", "tasks", "cold_starts", "retries", "outputs": {function:
// digest}}; 404 unknown DAG; 413 body too large; 503 when `max_requests` are in flight; 502 when
// a function failed or a task's sandbox died `max_attempts` times (the error names the signal);
// 504 after `request_timeout` (the request's queued tasks are dropped). Nothing is lost silently:
// every request gets exactly one of these answers.
// Pausing (pause_grace > 0): /stats gives each sandbox's "paused", "pause_mechanism", the counters
// "pauses" / "unpauses" / "pause_failures", and "resume_ms" (the real thaw's mean and max, and the
// modelled cost added to each resume).
// GET /stats: load, per-DAG demand, sandboxes (pid, function, state), counters, sandbox RSS,
// measured durations (EWMA and quantiles of the last 4096 runs per function), setup times and the
// mean scheduler-to-sandbox-thread hand-off of warm tasks (JSON); ?reset=1 starts a new averaging
// epoch for load and demand (the load balancer's).
#ifndef JIGSAW_FAAS_SGS_SERVER_H_
#define JIGSAW_FAAS_SGS_SERVER_H_

#include <memory>
#include <string>

#include "core/http_server.h"
#include "faas/dag.h"
#include "faas/ready_queue.h"

namespace jigsaw::faas {

struct SgsOptions {
  std::string jigsaw_exe;     // the binary that has `faas-sandbox`
  std::string cifar_archive;  // for resize functions
  int slots = 2;
  uint64_t memory = 1ULL << 30;  // sandbox memory budget, in the DAG file's declared sizes
  QueuePolicy policy = QueuePolicy::kLeastSlack;
  bool proactive = true;
  Time keep_alive = 600 * net::kSecond;
  Time epoch = 500 * net::kMillisecond;
  int max_attempts = 2;  // per task: the first run + retries after a sandbox died
  int max_requests = 256;
  int http_threads = 64;
  // The HTTP bounds (core/http_server.h); host, port, body limit (1 MiB) and threads are the
  // SGS's own.
  http::ServerOptions http;
  Time request_timeout = 60 * net::kSecond;
  // A sandbox not ready this long after its spawn is killed (its task retried or failed); Stop
  // cancels sandboxes still initialising at once, whatever this is.
  Time sandbox_ready_timeout = 30 * net::kSecond;
  // OpenWhisk's pause-grace (the baseline's SGSs): a sandbox left idle this long is paused
  // (faas/sandbox_pause.h: the cgroup v2 freezer where usable, else SIGSTOP) and resumed on its
  // thread before its next task runs; 0 never pauses.
  Time pause_grace = 0;
  // The modelled part of each resume, slept after the real thaw: the container runtime's command
  // (`runc resume` / `docker unpause`), which a bare freezer write or SIGCONT does not pay.
  Time resume_cost = 0;
  bool pause_with_freezer = true;  // false: SIGSTOP/SIGCONT even where a freezer is usable
};

class SgsServer {
 public:
  SgsServer(const Catalog& catalog, SgsOptions options);
  ~SgsServer();  // Stop()
  SgsServer(const SgsServer&) = delete;
  SgsServer& operator=(const SgsServer&) = delete;

  // Binds 127.0.0.1:port (0: any free port), starts the threads; returns the port. Throws
  // UsageError if it cannot bind.
  int Start(int port);
  // Stops serving, answers what is in flight with 503, kills every sandbox (also those still
  // initialising), joins. Idempotent.
  void Stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_SGS_SERVER_H_
