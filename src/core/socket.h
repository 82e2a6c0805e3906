// Minimal blocking TCP helpers (IPv4) for the framed services (core/wire_message.h). Torch-free.
//
// Socket is a move-only owner of a file descriptor. ListenTcp binds host:port (port 0 = any
// free port; LocalPort tells which) with SO_REUSEADDR; ConnectTcp retries refused connections
// until `timeout_s` has passed (a worker may start before its server), then throws
// std::runtime_error naming the address. Connected sockets have TCP_NODELAY set, so the small
// control messages (pull, hello) are not delayed behind Nagle's algorithm.
#ifndef JIGSAW_CORE_SOCKET_H_
#define JIGSAW_CORE_SOCKET_H_

#include <string>
#include <vector>

namespace jigsaw::wire {

class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  Socket(Socket&& other) noexcept : fd_(other.Release()) {}
  Socket& operator=(Socket&& other) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket();

  int fd() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int Release();
  // shutdown(SHUT_RDWR): wakes up a thread blocked on this socket; the fd stays owned.
  void Shutdown();

 private:
  int fd_ = -1;
};

Socket ListenTcp(const std::string& host, int port, int backlog);
int LocalPort(const Socket& socket);
// Waits up to timeout_s for a connection (timeout_s <= 0: forever); throws on timeout.
Socket AcceptTcp(const Socket& listener, double timeout_s);
Socket ConnectTcp(const std::string& host, int port, double timeout_s);
// Every connection already waiting on a non-blocking listener (stops at EAGAIN), each accepted
// non-blocking with TCP_NODELAY set.
std::vector<Socket> AcceptWaiting(const Socket& listener);
// SO_RCVTIMEO of `seconds`, fractions kept; never {0, 0}, which would mean "no timeout".
void SetReceiveTimeout(int fd, double seconds);
void SetNonBlocking(int fd, bool on);
// "HOST:PORT" -> host, port; throws UsageError naming `what` on a malformed address.
void ParseHostPort(const std::string& address, const std::string& what, std::string* host,
                   int* port);

}  // namespace jigsaw::wire

#endif  // JIGSAW_CORE_SOCKET_H_
