// The parameter server of one job (`jigsaw ps`). Torch-free: it only sees flat float vectors.
//
// RunParameterServer listens on host:port (127.0.0.1 unless told otherwise) until `workers`
// workers have joined. A connection joins by opening with kHello carrying the job's token, its
// rank and the job's worker count, all within `handshake_timeout_s` of its accept (one deadline
// for the whole hello, not per read), and is answered kWelcome. Handshakes go through the shared
// wire::HandshakeAcceptor: never blocked by one peer, at most `max_pending` in progress (a new
// connection then evicts the oldest pending one, which is told kBusy and retries: a flood of idle
// connections cannot keep workers out); the token is checked before anything else is judged. A
// connection that sends anything else (a port scan, garbage, a truncated or foreign frame, a wrong
// token, a rank that is out of range or taken) or stays silent is closed and counted, and the job
// goes on waiting for its workers: no stranger can fail it or take a rank. A worker with the right
// token that announces another worker count fails the job (a misconfiguration, not an attack). Once
// everyone joined, the listener closes and one thread per worker serves:
//   kInit   (worker 0 only, once) sets the parameters: version 0, the job's start time.
//   kPush   adds the worker's gradient for the current step to the SyncSgdAggregator; the last
//           push of a step applies the averaged SGD update (version t -> t + 1).
//   kPull v blocks until version >= v, then sends kParams (the server -> worker fan-out that
//           TensorLights prioritizes: its TCP source port is the server's listening port).
//   kBye    the worker is done; when every worker said bye the server returns.
// Every message must carry the token; its size is checked against the model before its payload
// is read (kInit at most `max_parameters` floats, kPush exactly the model's size, the others
// none). A protocol violation, a non-finite parameter or gradient (it would poison the model),
// a worker that disconnects without kBye, or no progress for `timeout_s` fails the job: every
// worker still connected gets kError and RunParameterServer throws std::runtime_error naming
// the worker and the reason. Times are wall-clock seconds since the Unix epoch (all network
// namespaces of a machine share the clock, so worker and server times can be compared). With a
// non-empty `out`, the statistics are written there as JSON (atomically).
#ifndef JIGSAW_PS_SERVER_H_
#define JIGSAW_PS_SERVER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/wire_message.h"

namespace jigsaw::ps {

struct ServerOptions {
  std::string job = "job";
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port (on_listening tells which)
  int workers = 1;
  float lr = 0.05f;
  float momentum = 0.0f;
  wire::Token token{};
  double timeout_s = 120;
  double handshake_timeout_s = 10;
  int max_pending = 16;
  uint64_t max_parameters = wire::kMaxFloats;
  std::string out;
  bool quiet = false;
  std::function<void(int port)> on_listening;
};

struct ServerStats {
  int port = 0;
  int workers = 0;
  size_t parameters = 0;
  uint64_t steps = 0;
  double start_wall_s = 0;               // kInit received
  double end_wall_s = 0;                 // the last kBye received
  std::vector<double> step_done_wall_s;  // when step t's update was applied
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  std::vector<float> final_parameters;
  uint64_t refused_connections = 0;  // strangers closed while the job was joining
};

double WallSeconds();

ServerStats RunParameterServer(const ServerOptions& options);

}  // namespace jigsaw::ps

#endif  // JIGSAW_PS_SERVER_H_
