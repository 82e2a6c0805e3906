// An aggregator of the Parameter Service (`jigsaw paramsvc-agg`): one process that hosts shards.
//
// It connects to the coordinator (service token), says "join", and then obeys:
//   host {shard spec + state}   start serving a shard: a listening socket (port 0 on `bind`)
//                               that speaks the parameter server's JPS2 protocol, exactly as a
//                               dedicated `jigsaw ps` does, for that slice of the job's
//                               parameters; answers "hosted" with the port.
//   migrate_out {shard, at}     at the iteration boundary `at` (0: the next one) freeze the shard:
//                               send its state (parameters, velocity, version) to the coordinator
//                               as "state", stop accepting, answer later pulls with kRedirect.
//                               Pushes that arrive after the freeze are not applied (the workers
//                               send them again to the new host), so none is lost or doubled.
//   drop {shard}                close the shard silently (its job is restored elsewhere or failed)
//   stop                        return.
// Every `report_interval_s` it sends "load": its process CPU time (utime + stime) and, per shard,
// the version, the CPU time of the shard's threads (measured, not estimated), refused
// connections and discarded pushes. Every `snapshot_every` versions of a shard it sends a
// "snapshot" of its state (the coordinator restores from them when an aggregator dies).
// A connection that is not one of the job's workers (wrong token: another job's or none, not a
// hello, a bad rank) is refused and counted; the shard keeps serving. A worker that disconnects
// without kBye, or breaks the protocol, fails its job only: its shard tells the coordinator
// ("job_failed") and the job's other workers get kError. If the coordinator goes away the
// aggregator exits (no orphans).
#ifndef JIGSAW_PARAMSVC_AGGREGATOR_NODE_H_
#define JIGSAW_PARAMSVC_AGGREGATOR_NODE_H_

#include <string>

#include "core/wire_message.h"

namespace jigsaw::paramsvc {

struct AggregatorNodeOptions {
  std::string coordinator = "127.0.0.1:7100";
  wire::Token token{};  // the service's token
  std::string bind = "127.0.0.1";
  std::string advertise;  // address workers reach it at; empty: `bind` (127.0.0.1 for 0.0.0.0)
  double handshake_timeout_s = 10;
  double timeout_s = 120;
  int max_pending = 16;
  double report_interval_s = 0.5;
  bool quiet = false;
};

void RunAggregatorNode(const AggregatorNodeOptions& options);

}  // namespace jigsaw::paramsvc

#endif  // JIGSAW_PARAMSVC_AGGREGATOR_NODE_H_
