#include "core/handshake_acceptor.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/error.h"

namespace jigsaw::wire {
namespace {

using Clock = std::chrono::steady_clock;

Clock::duration Seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// Best effort on a non-blocking socket: a peer that does not read loses the reply, never the loop.
void SendBestEffort(int fd, const std::string& bytes) {
  if (!bytes.empty()) (void)!::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace

std::string PeerName(int fd) {
  sockaddr_in address{};
  socklen_t length = sizeof(address);
  char text[INET_ADDRSTRLEN] = "?";
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return "?";
  inet_ntop(AF_INET, &address.sin_addr, text, sizeof(text));
  return std::string(text) + ":" + std::to_string(ntohs(address.sin_port));
}

void HandshakeOptions::Validate() const {
  if (header_bytes < 1 || header_bytes > 4096) {
    throw UsageError("handshake header_bytes must be in [1, 4096]");
  }
  if (!(timeout_s > 0 && timeout_s <= 3600)) {
    throw UsageError("handshake timeout_s must be in (0, 3600]");
  }
  if (max_pending < 1 || max_pending > 65536) {
    throw UsageError("handshake max_pending must be in [1, 65536]");
  }
}

HandshakeAcceptor::HandshakeAcceptor(Socket listener, const HandshakeOptions& options,
                                     RefusalLog on_refusal)
    : listener_(std::move(listener)), options_(options), on_refusal_(std::move(on_refusal)) {
  options_.Validate();
  SetNonBlocking(listener_.fd(), true);
}

void HandshakeAcceptor::Drop(Pending& pending, const std::string& why, const std::string& reply) {
  ++refused_;
  SendBestEffort(pending.socket.fd(), reply);
  if (on_refusal_) on_refusal_(pending.peer, why);
  pending.socket = Socket();
}

void HandshakeAcceptor::Refuse(Handshake& handshake, const std::string& why,
                               const std::string& reply) {
  ++refused_;
  SendBestEffort(handshake.socket.fd(), reply);
  if (on_refusal_) on_refusal_(handshake.peer, why);
  handshake.socket = Socket();
}

void HandshakeAcceptor::AcceptWaiting(Clock::time_point now) {
  for (Socket& socket : wire::AcceptWaiting(listener_)) {
    if (static_cast<int>(pending_.size()) >= options_.max_pending) {
      // The oldest pending handshake makes room: a legitimate peer has long sent its header.
      ++evicted_;
      Drop(pending_.front(),
           "evicted: " + std::to_string(options_.max_pending) +
               " handshakes were pending (server busy)",
           options_.busy_reply);
      pending_.erase(pending_.begin());
    }
    Pending p;
    p.peer = PeerName(socket.fd());
    p.socket = std::move(socket);
    p.deadline = now + Seconds(options_.timeout_s);
    p.header.resize(options_.header_bytes);
    pending_.push_back(std::move(p));
  }
}

std::vector<Handshake> HandshakeAcceptor::Poll(std::chrono::milliseconds wait) {
  std::vector<Handshake> complete;
  if (!listener_.valid()) return complete;
  std::vector<pollfd> fds{{listener_.fd(), POLLIN, 0}};
  Clock::time_point wake = Clock::now() + wait;
  for (const Pending& p : pending_) {
    fds.push_back({p.socket.fd(), POLLIN, 0});
    wake = std::min(wake, p.deadline);
  }
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(wake - Clock::now());
  const int ready = ::poll(fds.data(), fds.size(),
                           static_cast<int>(std::clamp<int64_t>(left.count() + 1, 0, 60'000)));
  if (ready < 0 && errno != EINTR)
    throw std::runtime_error(std::string("poll: ") + strerror(errno));
  const Clock::time_point now = Clock::now();
  for (size_t i = 0; i < pending_.size(); ++i) {
    Pending& p = pending_[i];
    if (ready > 0 && (fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR))) {
      const ssize_t got = ::recv(p.socket.fd(), p.header.data() + p.have,
                                 options_.header_bytes - p.have, MSG_DONTWAIT);
      if (got == 0) {
        Drop(p, p.have == 0 ? "closed without a hello" : "truncated hello", "");
        continue;
      }
      if (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        Drop(p, std::string("recv: ") + std::strerror(errno), "");
        continue;
      }
      if (got > 0) p.have += static_cast<size_t>(got);
      if (p.have == options_.header_bytes) {
        SetNonBlocking(p.socket.fd(), false);
        complete.push_back({std::move(p.socket), p.peer, std::move(p.header), p.deadline});
        continue;
      }
    }
    if (now >= p.deadline) Drop(p, "no complete hello within the handshake deadline", "");
  }
  std::erase_if(pending_, [](const Pending& p) { return !p.socket.valid(); });
  if (ready > 0 && (fds[0].revents & POLLIN)) AcceptWaiting(now);
  return complete;
}

void HandshakeAcceptor::Close(const std::string& why) {
  for (Pending& p : pending_) Drop(p, why, "");
  pending_.clear();
  listener_ = Socket();
}

}  // namespace jigsaw::wire
