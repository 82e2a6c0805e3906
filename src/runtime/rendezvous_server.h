// Rank 0's side of the training rendezvous (runtime/rendezvous_store.h): the listener on the
// master address, the token handshake of every connection (wire::HandshakeAcceptor, judged by
// token first, then kHello, world and a free rank in 1..world-1, answered kWelcome), and one
// thread per connected rank that runs its requests on the shared RendezvousKeys. The listener
// closes once every other rank has connected. Torch-free.
#ifndef JIGSAW_RUNTIME_RENDEZVOUS_SERVER_H_
#define JIGSAW_RUNTIME_RENDEZVOUS_SERVER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/socket.h"
#include "core/wire_message.h"
#include "runtime/rendezvous_keys.h"

namespace jigsaw {

struct RendezvousServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  int world = 1;
  wire::Token token{};
  double handshake_timeout_s = 10;
  int max_pending = 64;
  std::function<void(const std::string&)> log;
};

class RendezvousServer {
 public:
  // Binds host:port (throws std::runtime_error naming it) and starts accepting.
  RendezvousServer(const RendezvousServerOptions& options, std::shared_ptr<RendezvousKeys> keys);
  ~RendezvousServer();  // stops accepting, closes every connection, joins
  RendezvousServer(const RendezvousServer&) = delete;
  RendezvousServer& operator=(const RendezvousServer&) = delete;

  int port() const { return port_; }
  uint64_t refused() const { return refused_; }

 private:
  void AcceptLoop(wire::Socket listener);
  int Judge(const std::vector<uint8_t>& header, std::string* why);
  void Serve(int rank, int fd);

  RendezvousServerOptions options_;
  std::shared_ptr<RendezvousKeys> keys_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> refused_{0};
  std::mutex mutex_;
  std::vector<wire::Socket> connections_;  // by rank
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_RENDEZVOUS_SERVER_H_
