// The client side of a HandshakeAcceptor (core/handshake_acceptor.h): connect, send the opening
// frame, wait for the server's answer, and retry with backoff while the server is busy.
// Torch-free.
//
// RetryHandshake runs `attempt` until it returns. An attempt that throws HandshakeRefused (the
// server answered "busy", closed the connection before answering, reset it, or is not listening
// yet) is retried after a backoff that starts at 50 ms and doubles up to 2 s, with +-25 % jitter,
// while the next attempt would start before `timeout_s` has passed; then it throws
// std::runtime_error
// "<what>: <last reason> (N attempts in T s)", where the reason is "server busy" or
// "closed by server" (never a bare "Broken pipe"). Any other exception ends the retries at once
// (a refusal the server explained, a wrong token, a protocol error).
//
// HelloWithRetry is the parameter-server protocol's handshake (core/wire_message.h): it sends
// `hello` and expects kWelcome with the job's token (answered by ps, the Parameter Service's
// shards, `fl --serve` and the training rendezvous). kBusy is retried; kError is the server's
// refusal (std::runtime_error "<what>: refused by the server"); anything else is a ProtocolError.
// The returned socket is connected and blocking, with no receive timeout set.
#ifndef JIGSAW_CORE_HANDSHAKE_CLIENT_H_
#define JIGSAW_CORE_HANDSHAKE_CLIENT_H_

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

#include "core/socket.h"
#include "core/wire_message.h"

namespace jigsaw::wire {

class HandshakeRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `attempt` gets the time left (seconds, > 0) and returns the connected socket.
Socket RetryHandshake(const std::string& what, double timeout_s,
                      const std::function<Socket(double seconds_left)>& attempt);

Socket HelloWithRetry(const std::string& host, int port, double timeout_s, const Message& hello,
                      const Token& token, const std::string& what);

// Sends all of `bytes`; EPIPE / ECONNRESET become HandshakeRefused("closed by server").
void SendHandshakeBytes(int fd, const void* bytes, size_t size);
// Reads exactly `size` bytes before `deadline`; EOF / ECONNRESET become
// HandshakeRefused("closed by server"), the deadline HandshakeRefused("no answer in time").
void ReceiveHandshakeBytes(int fd, void* bytes, size_t size,
                           std::chrono::steady_clock::time_point deadline);

}  // namespace jigsaw::wire

#endif  // JIGSAW_CORE_HANDSHAKE_CLIENT_H_
