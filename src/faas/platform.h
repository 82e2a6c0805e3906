// The real platform (`jigsaw faas`): a load-balancer process and K SGS processes on 127.0.0.1,
// each serving HTTP with core/http_server.h (its bounds on bodies, headers, request time and
// connections hold for the LB and every SGS alike).
//
// RunPlatform forks the K SGS processes first (each an SgsServer on a free loopback port, which
// it reports through a pipe; each gets SIGKILL if the platform process dies), then serves the
// load balancer's HTTP API until SIGTERM or SIGINT:
//   POST /invoke/{dag} (body: payload, at most 1 MiB): routed with faas::LoadBalancer::Route to
//     one of the DAG's SGSs (current load = the SGS's last reported load plus what the LB has in
//     flight there per slot) and forwarded; the SGS's answer is returned as is (see
//     faas/sgs_server.h) with header X-Faas-Sgs. An SGS that cannot be reached is marked unusable
//     and the request goes to another usable SGS once; with none left: 502 with the reason.
//     When every SGS is marked unusable, a request tries them all again first.
//   GET /stats: the LB's counters, each DAG's SGS set, and every SGS's /stats.
// Every `epoch` the LB polls each SGS's /stats?reset=1 (connection refused: unusable; a slow or
// garbled answer keeps the SGS's last state; an answer makes it usable again) and (platform
// "archipelago") calls
// LoadBalancer::EndEpoch with their loads and per-DAG demand: scale-out and hysteretic scale-in.
// Platform "openwhisk" is the OpenWhisk-like baseline on the same processes. The LB is the
// controller of a composition: it invokes each function of the DAG on its own once its
// predecessors have answered (a fan-out in parallel), as OpenWhisk's controller drives a sequence
// or conductor action; faas::OpenWhiskBalancer places each function as an action (home SGS = hash
// of the function, then along its step), holding the function's memory in the SGS's memory slots
// (`invoker_memory`: OpenWhisk's invoker user memory; default the SGS's pool memory, the one number
// OpenWhisk uses for both) until that function answers, so a function spills only when its home's
// slots are full. The function runs with POST /fn/{dag}/{function} on the SGS; the outputs come
// back through the LB into the answer, X-Faas-Sgs lists each function's SGS in DAG order. A
// function whose SGS cannot be reached is placed once more; the first function that fails fails
// the request with its SGS's status. The SGSs run FIFO without proactive sandboxes (reactive cold
// starts, fixed keep-alive) and pause sandboxes idle past `sgs.pause_grace` as OpenWhisk's
// invokers do (faas/sgs_server.h); platform "archipelago" never pauses.
// Platform "sparrow" is the Sparrow-like baseline, driven as "openwhisk" (the LB the composition
// controller, POST /fn per function, FIFO SGSs with reactive cold starts and keep-alive) but
// placed by faas::SparrowScheduler: each function leaves a reservation at `sparrow_probes` random
// usable SGSs and runs on the first of them with a free slot (`sgs.slots` functions at once per
// SGS; late binding); its SGSs never pause, as Sparrow has no pausing. A function whose
// reservations are all refused (full queues) fails its request with 503.
// SGS processes are forked by a single-threaded supervisor process (itself forked before the LB
// starts any thread): an SGS that dies abnormally (signal or nonzero exit) is marked unusable at
// once and restarted on a new port, at most `max_sgs_restarts` times per SGS; the requests it
// held come back to the LB as broken connections and are sent once more to another usable SGS
// (else 502, naming the SGS and why). GET /stats shows each SGS's restarts and last death.
// At shutdown every SGS gets SIGTERM (SIGKILL after 5 s) and is reaped; with `out` set, the final
// GET /stats is written to out/platform.json.
#ifndef JIGSAW_FAAS_PLATFORM_H_
#define JIGSAW_FAAS_PLATFORM_H_

#include <string>

#include "core/http_server.h"
#include "faas/dag.h"
#include "faas/load_balancer.h"
#include "faas/sgs_server.h"

namespace jigsaw::faas {

struct PlatformOptions {
  std::string platform = "archipelago";  // or "openwhisk" or "sparrow"
  int sgs_count = 2;
  int port = 8080;        // 0: any free port
  std::string port_file;  // written once the LB listens (for scripts and tests)
  std::string out;
  Time epoch = 500 * net::kMillisecond;
  int http_threads = 64;
  // The LB's HTTP bounds (core/http_server.h); host, port, body limit (1 MiB) and threads are
  // the LB's own.
  http::ServerOptions http;
  int max_sgs_restarts = 5;     // per SGS
  uint64_t invoker_memory = 0;  // "openwhisk": memory slots per SGS; 0: sgs.memory
  int sparrow_probes = 2;       // "sparrow": SGSs probed per function (1..8)
  LoadBalancerOptions balancer;
  SgsOptions sgs;
};

// Returns the exit code. Throws UsageError on bad options.
int RunPlatform(const Catalog& catalog, PlatformOptions options);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_PLATFORM_H_
