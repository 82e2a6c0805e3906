#include "core/handshake_client.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <thread>

#include "core/output.h"

namespace jigsaw::wire {
namespace {

using Clock = std::chrono::steady_clock;

bool ClosedByPeer(int error) { return error == EPIPE || error == ECONNRESET; }

}  // namespace

void SendHandshakeBytes(int fd, const void* bytes, size_t size) {
  const auto* data = static_cast<const uint8_t*>(bytes);
  while (size > 0) {
    const ssize_t sent = ::send(fd, data, size, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && ClosedByPeer(errno)) throw HandshakeRefused("closed by server");
    if (sent < 0) throw std::runtime_error(std::string("send: ") + std::strerror(errno));
    data += sent;
    size -= static_cast<size_t>(sent);
  }
}

void ReceiveHandshakeBytes(int fd, void* bytes, size_t size, Clock::time_point deadline) {
  auto* data = static_cast<uint8_t*>(bytes);
  while (size > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) throw HandshakeRefused("no answer in time");
    pollfd waiting{fd, POLLIN, 0};
    const int ready = ::poll(&waiting, 1, static_cast<int>(std::min<int64_t>(left, 60'000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // timed out: the deadline check above decides
    const ssize_t got = ::recv(fd, data, size, MSG_DONTWAIT);
    if (got == 0 || (got < 0 && ClosedByPeer(errno))) throw HandshakeRefused("closed by server");
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
    if (got < 0) throw std::runtime_error(std::string("recv: ") + std::strerror(errno));
    data += got;
    size -= static_cast<size_t>(got);
  }
}

Socket RetryHandshake(const std::string& what, double timeout_s,
                      const std::function<Socket(double seconds_left)>& attempt) {
  const Clock::time_point start = Clock::now();
  const Clock::time_point give_up =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  std::minstd_rand jitter(std::random_device{}());
  std::uniform_real_distribution<double> spread(0.75, 1.25);
  double backoff_s = 0.05;
  int attempts = 0;
  while (true) {
    ++attempts;
    const double left = std::chrono::duration<double>(give_up - Clock::now()).count();
    std::string reason;
    try {
      return attempt(std::max(left, 0.001));
    } catch (const HandshakeRefused& e) {
      reason = e.what();
    }
    // No attempt is started that the deadline would cut short: its "no answer in time" would
    // hide the reason the server gave (busy, closed).
    const double wait = backoff_s * spread(jitter);
    if (wait >= std::chrono::duration<double>(give_up - Clock::now()).count()) {
      throw std::runtime_error(
          what + ": " + reason + " (" + std::to_string(attempts) + " attempts in " +
          FormatFixed(std::chrono::duration<double>(Clock::now() - start).count(), 1) + " s)");
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    backoff_s = std::min(backoff_s * 2, 2.0);
  }
}

Socket HelloWithRetry(const std::string& host, int port, double timeout_s, const Message& hello,
                      const Token& token, const std::string& what) {
  const std::string frame = EncodeMessage(hello, token);
  return RetryHandshake(what, timeout_s, [&](double left) {
    Socket socket;
    try {
      socket = ConnectTcp(host, port, left);
    } catch (const std::runtime_error& e) {
      throw HandshakeRefused(std::string("not reachable: ") + e.what());
    }
    SendHandshakeBytes(socket.fd(), frame.data(), frame.size());
    uint8_t bytes[kHeaderBytes];
    ReceiveHandshakeBytes(socket.fd(), bytes, kHeaderBytes,
                          Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(left)));
    const Header header = DecodeHeader(bytes);
    if (header.type == MessageType::kBusy) throw HandshakeRefused("server busy");
    if (header.type == MessageType::kError)
      throw std::runtime_error(what + ": refused by the server");
    if (header.type != MessageType::kWelcome || header.count != 0 ||
        !SameToken(header.token, token)) {
      throw ProtocolError(what + ": expected welcome, got " + MessageTypeName(header.type));
    }
    return socket;
  });
}

}  // namespace jigsaw::wire
