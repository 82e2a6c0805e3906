// The coordinator of the Parameter Service (`jigsaw paramsvc`).
//
// It listens on host:port (127.0.0.1 unless told otherwise) for JPSC control frames:
//   from aggregators (service token): join, then load / hosted / state / snapshot / job_failed /
//     shard_done for the life of the aggregator (see aggregator_node.h);
//   from registrars (service token): register {job, parameters, workers, iter_rate, lr,
//     momentum} -> registered {token}: a fresh random 128-bit token for the job; status;
//     shutdown;
//   from workers (their job's token): lookup -> map (where each shard lives), and size
//     {parameters} from worker 0 of a job registered with parameters 0.
// Connections are accepted through wire::HandshakeAcceptor: one deadline (handshake_timeout_s) for
// a connection's whole first frame, never blocked by one peer, at most max_pending handshakes in
// progress (the oldest is told "server busy" and closed to make room). The first frame's token is
// judged from its 48-byte header before any of its JSON is read: a frame with a token neither the
// service nor any job has is refused and counted, and that connection closed; the coordinator
// keeps serving everybody else. Clients retry a "server busy" or a closed connection with backoff
// (core/handshake_client.h).
//
// Sharding: a job's parameters are split into contiguous, equal shards of at most
// max_shard_floats, and more when one shard's estimated demand would exceed half an aggregator.
// Placement: first fit over the aggregators (in id order) by CPU demand, with capacity
// cores_per_aggregator x (1 - headroom); a shard's demand is first estimated from registration
// (parameters x workers x iter_rate x est_ns_per_float) and then replaced by what the aggregators
// measure (CPU seconds of the shard's threads per wall second, smoothed). A new aggregator is
// started (on this host: `<aggregator_binary> paramsvc-agg --coordinator ...`) when nothing fits
// and the pool is below max_aggregators. Rebalancing moves one shard at a time (live migration,
// at an iteration boundary) off an aggregator whose measured load exceeds capacity, or off one
// being drained. Elasticity (elasticity.h) adds or drains aggregators on pool utilization, with
// hysteresis, from the first registration on (also after the load has ended, so an idle pool
// drains to min_aggregators; only a running job makes it grow); every decision is logged with
// its reason. After an add, shards move onto the new aggregator one at a time while that lowers
// the larger of the two loads ("spreading"). Every migration is logged with its reason and
// listed in the statistics (migration_log). migrate_every > 0 (testing) migrates every shard
// every that many iterations to the next aggregator.
//
// Faults: an aggregator whose control connection breaks (killed, crashed, silent for
// 20 report intervals) is dead; each job with a shard there is restored: its generation
// increases, all of its shards are hosted again from the latest version for which every shard
// has a snapshot (taken every snapshot_every iterations), and workers continue from that version
// (ps::JobRolledBack); the log says how many iterations are replayed. A job whose worker fails
// is failed with the reason, its shards dropped, other jobs unaffected.
#ifndef JIGSAW_PARAMSVC_COORDINATOR_H_
#define JIGSAW_PARAMSVC_COORDINATOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "core/output.h"
#include "core/wire_message.h"

namespace jigsaw::paramsvc {

struct CoordinatorOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  wire::Token token{};
  std::string token_file;         // handed to the aggregators it starts
  std::string aggregator_binary;  // the jigsaw executable; empty: this process's own
  int initial_aggregators = 1;
  int min_aggregators = 1;
  int max_aggregators = 8;
  double cores_per_aggregator = 1.0;
  double headroom = 0.2;
  bool elastic = true;
  double high_mark = 0.8;
  double low_mark = 0.3;
  int sustain = 3;
  double report_interval_s = 0.5;
  uint64_t snapshot_every = 10;
  uint64_t migrate_every = 0;
  uint64_t max_shard_floats = uint64_t{1} << 20;
  double est_ns_per_float = 1.0;
  double timeout_s = 120;
  double handshake_timeout_s = 10;  // a connection's whole first frame, from its accept
  int max_pending = 64;             // handshakes in progress (core/handshake_acceptor.h)
  int max_connections = 256;        // authenticated connections served at once
  std::string out;                  // statistics JSON
  bool quiet = false;
  std::function<void(int port)> on_listening;
  std::atomic<bool>* stop = nullptr;  // set from a signal handler to shut down
};

// Runs until a "shutdown" request or *stop; returns the statistics (also written to `out`).
Json RunCoordinator(const CoordinatorOptions& options);

}  // namespace jigsaw::paramsvc

#endif  // JIGSAW_PARAMSVC_COORDINATOR_H_
