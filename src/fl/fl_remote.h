// Real mode of `jigsaw fl`: a server and client processes over the parameter server's framed TCP
// (src/core/wire_message.h), sharing the round loop (RunFlRounds) and local training (TrainLocally)
// with the simulation.
//
// Protocol (every frame carries the job's token; counts are checked against the model size
// before any payload is read, so a peer's length field never sizes a buffer):
//   client -> server  kHello   rank = client index, step = kFlProtocolVersion, no floats
//   server -> client  kWelcome rank = client index: joined (kBusy: try again; kError: refused)
//   server -> client  kParams  rank = client index, step = round, floats = the client's cohort
//                              model (num_weights) + local_steps, batch, lr (this round's, after
//                              the decay schedule), prox_mu, momentum, weight_decay
//   client -> server  kPush    step = round, floats = trained weights + samples + mean loss
//   server -> client  kBye     training finished;  kError: refused (bad hello, garbage)
// FlServer::Train is a CohortTrainer: it sends the cohort model to each selected connected
// client, then reads the answers until the round deadline. A client that closed, timed out or
// sent anything but its kPush for this round is closed and lost for this round and the rest of
// the run (a straggler to the round loop); the others' updates are averaged as usual.
#ifndef JIGSAW_FL_FL_REMOTE_H_
#define JIGSAW_FL_FL_REMOTE_H_

#include <functional>
#include <map>
#include <string>

#include "core/socket.h"
#include "core/wire_message.h"
#include "fl/simulation.h"

namespace jigsaw {

inline constexpr uint64_t kFlProtocolVersion = 3;
// local_steps, batch, lr, prox_mu, momentum, weight_decay
inline constexpr int kFlParamsTail = 6;
inline constexpr int kFlPushTail = 2;  // samples, mean loss

struct FlServeOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  int expected_clients = 1;
  double join_timeout_s = 60.0;   // waiting for the clients to say hello
  double hello_timeout_s = 5.0;   // one connection's whole hello, from its accept
  int max_pending = 64;           // hellos in progress at once (core/handshake_acceptor.h)
  double round_timeout_s = 60.0;  // all answers of one cohort's round
  wire::Token token{};
};

class FlServer {
 public:
  // Listens (throws std::runtime_error naming the address on failure).
  FlServer(const FlServeOptions& options, int population, int64_t num_weights,
           const LocalTrainOptions& local);

  int port() const { return port_; }
  // Accepts connections until expected_clients distinct clients said hello or join_timeout_s
  // passed, through wire::HandshakeAcceptor: one deadline per connection for its whole hello, never
  // blocked by one peer (a slow connection cannot hold the join), the token judged first. A
  // joined client is answered kWelcome; a bad hello (garbage, wrong token or version, unknown or
  // duplicate index) is answered with kError, closed and logged (the first 20), and accepting
  // goes on. The listener closes when the join ends. Returns the number joined.
  int WaitForClients(const std::function<void(const std::string&)>& log);
  CohortUpdates Train(int round, const torch::Tensor& global, const std::vector<int>& clients,
                      const std::function<void(const std::string&)>& log);
  // kBye to every connected client.
  void Finish();
  int connected() const { return static_cast<int>(clients_.size()); }
  bool IsConnected(int client) const { return clients_.count(client) > 0; }

 private:
  void Drop(int client, const std::string& why, const std::function<void(const std::string&)>& log);
  int Judge(const uint8_t* header, std::string* why) const;

  FlServeOptions options_;
  int population_;
  int64_t num_weights_;
  LocalTrainOptions local_;
  wire::Socket listener_;
  int port_ = 0;
  std::map<int, wire::Socket> clients_;
};

struct FlClientOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  int client = 0;                   // index into the population
  uint64_t seed = 1;                // the run's seed (LocalTrainingSeed)
  double connect_timeout_s = 30.0;  // the server may start later
  double idle_timeout_s = 600.0;    // longest wait for the server's next message
  int die_after_rounds = 0;         // fault injection: > 0 kills itself on round N + 1's kParams
  wire::Token token{};
};

// Connects and says hello (retrying with backoff while the server is busy or not up yet, within
// connect_timeout_s: core/handshake_client.h), then trains every kParams it receives on the
// client's data until kBye.
// Returns the number of rounds trained; throws on kError, garbage or a lost server.
int RunFlClient(const FederatedData& data, const std::string& model_name,
                const FlClientOptions& options, const std::function<void(const std::string&)>& log);

}  // namespace jigsaw

#endif  // JIGSAW_FL_FL_REMOTE_H_
