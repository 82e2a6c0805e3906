// The parameter server of one job (`jigsaw ps`). Torch-free: it only sees flat float vectors.
//
// RunParameterServer listens on host:port, accepts exactly `workers` connections (each must
// open with kHello carrying its rank and the job's worker count; ranks must be distinct), then
// serves them with one thread per connection:
//   kInit   (worker 0 only, once) sets the parameters: version 0, the job's start time.
//   kPush   adds the worker's gradient for the current step to the SyncSgdAggregator; the last
//           push of a step applies the averaged SGD update (version t -> t + 1).
//   kPull v blocks until version >= v, then sends kParams (the server -> worker fan-out that
//           TensorLights prioritizes: its TCP source port is the server's listening port).
//   kBye    the worker is done; when every worker said bye the server returns.
// Any protocol violation, a worker that disconnects without kBye, or no progress for
// `timeout_s` fails the job: every worker still connected gets kError and RunParameterServer
// throws std::runtime_error naming the worker and the reason. Times are wall-clock seconds since
// the Unix epoch (all network namespaces of a machine share the clock, so worker and server
// times can be compared). With a non-empty `out`, the statistics are written there as JSON
// (atomically).
#ifndef JIGSAW_PS_SERVER_H_
#define JIGSAW_PS_SERVER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace jigsaw::ps {

struct ServerOptions {
  std::string job = "job";
  std::string host = "0.0.0.0";
  int port = 0;  // 0: any free port (on_listening tells which)
  int workers = 1;
  float lr = 0.05f;
  float momentum = 0.0f;
  double timeout_s = 120;
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
};

double WallSeconds();

ServerStats RunParameterServer(const ServerOptions& options);

}  // namespace jigsaw::ps

#endif  // JIGSAW_PS_SERVER_H_
