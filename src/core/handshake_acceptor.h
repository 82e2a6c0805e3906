// HandshakeAcceptor: the accept side of every framed TCP service (the parameter server, the
// Parameter Service's coordinator and shards, `fl --serve`, the training rendezvous).
// Torch-free.
//
// It owns a listening socket and collects, for each connection, the fixed-size header that opens
// it (the handshake: a hello frame's header, carrying the token), without ever blocking on one
// peer: the listener and every pending connection are non-blocking and served from one poll loop,
// so a silent, slow or hostile peer costs one table slot and nothing else.
//  - Each connection has one deadline for its whole handshake, `timeout_s` from its accept (not
//    per read): a peer that trickles one byte a second is cut at the deadline all the same.
//  - At most `max_pending` handshakes are in progress. A connection that arrives when the table is
//    full evicts the oldest pending one (which gets `busy_reply`, best effort, and is closed): a
//    flood of idle connections cannot lock legitimate peers out, since a legitimate peer sends
//    its header at once and is judged before the flood can age it out; one that was evicted sees
//    "server busy" and retries (core/handshake_client.h).
//  - Only the header is read; nothing behind it. The caller judges the header (the token before
//    anything else) and either takes the connection or refuses it.
// Poll returns the connections whose header is complete, blocking again, with the deadline their
// handshake had (to bound what the caller reads next). Refusals (closed early, truncated, timed
// out, evicted, or refused by the caller through Refuse) are counted and reported through
// `on_refusal`.
#ifndef JIGSAW_CORE_HANDSHAKE_ACCEPTOR_H_
#define JIGSAW_CORE_HANDSHAKE_ACCEPTOR_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/socket.h"

namespace jigsaw::wire {

struct HandshakeOptions {
  size_t header_bytes = 48;  // the opening every client sends first (1..4096)
  double timeout_s = 10;     // the whole handshake, from accept to the header's last byte
  int max_pending = 16;      // handshakes in progress at once (1..65536)
  std::string busy_reply;    // sent to a connection evicted for room ("" = none)

  // Throws UsageError naming the field.
  void Validate() const;
};

struct Handshake {
  Socket socket;  // blocking again, TCP_NODELAY set
  std::string peer;
  std::vector<uint8_t> header;
  std::chrono::steady_clock::time_point deadline;  // the handshake's
};

class HandshakeAcceptor {
 public:
  using RefusalLog = std::function<void(const std::string& peer, const std::string& why)>;

  // Takes a listening socket (ListenTcp).
  HandshakeAcceptor(Socket listener, const HandshakeOptions& options, RefusalLog on_refusal);

  // Waits up to `wait` (less when a pending deadline comes first), accepts every waiting
  // connection, reads what pending peers sent, and returns those whose header is complete.
  std::vector<Handshake> Poll(std::chrono::milliseconds wait);
  // Counts and logs a refusal by the caller, sends `reply` (best effort, "" = none), closes.
  void Refuse(Handshake& handshake, const std::string& why, const std::string& reply = "");
  // Stops listening and closes every pending connection, each logged with `why`.
  void Close(const std::string& why);

  int listener_fd() const { return listener_.fd(); }
  size_t pending() const { return pending_.size(); }
  uint64_t refused() const { return refused_; }
  uint64_t evicted() const { return evicted_; }

 private:
  struct Pending {
    Socket socket;
    std::string peer;
    std::chrono::steady_clock::time_point deadline;
    std::vector<uint8_t> header;
    size_t have = 0;
  };
  void Drop(Pending& pending, const std::string& why, const std::string& reply);
  void AcceptWaiting(std::chrono::steady_clock::time_point now);

  Socket listener_;
  HandshakeOptions options_;
  RefusalLog on_refusal_;
  std::vector<Pending> pending_;  // in accept order: the front is the oldest
  uint64_t refused_ = 0;
  uint64_t evicted_ = 0;
};

// "ip:port" of a connected socket's peer ("?" when unknown).
std::string PeerName(int fd);

}  // namespace jigsaw::wire

#endif  // JIGSAW_CORE_HANDSHAKE_ACCEPTOR_H_
