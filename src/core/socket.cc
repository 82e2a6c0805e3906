#include "core/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "core/error.h"

namespace jigsaw::wire {
namespace {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

sockaddr_in Resolve(const std::string& host, int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  if (host.empty() || host == "0.0.0.0" || host == "*") {
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    return address;
  }
  if (inet_pton(AF_INET, host.c_str(), &address.sin_addr) == 1) return address;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    throw std::runtime_error("cannot resolve host '" + host + "': " + gai_strerror(rc));
  }
  address.sin_addr = reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr;
  freeaddrinfo(found);
  return address;
}

void SetNoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

}  // namespace

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.Release();
  }
  return *this;
}

Socket::~Socket() {
  if (fd_ >= 0) close(fd_);
}

int Socket::Release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

void Socket::Shutdown() {
  if (fd_ >= 0) shutdown(fd_, SHUT_RDWR);
}

Socket ListenTcp(const std::string& host, int port, int backlog) {
  sockaddr_in address = Resolve(host, port);
  Socket socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!socket.valid()) throw std::runtime_error(Errno("socket"));
  int one = 1;
  setsockopt(socket.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(socket.fd(), reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    throw std::runtime_error(Errno("bind " + host + ":" + std::to_string(port)));
  }
  if (listen(socket.fd(), backlog) != 0) throw std::runtime_error(Errno("listen"));
  return socket;
}

int LocalPort(const Socket& socket) {
  sockaddr_in address{};
  socklen_t length = sizeof(address);
  if (getsockname(socket.fd(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error(Errno("getsockname"));
  }
  return ntohs(address.sin_port);
}

Socket AcceptTcp(const Socket& listener, double timeout_s) {
  pollfd waiting{listener.fd(), POLLIN, 0};
  const int timeout_ms = timeout_s > 0 ? static_cast<int>(timeout_s * 1000) : -1;
  int ready;
  do {
    ready = poll(&waiting, 1, timeout_ms);
  } while (ready < 0 && errno == EINTR);
  if (ready < 0) throw std::runtime_error(Errno("poll"));
  if (ready == 0) {
    throw std::runtime_error("no worker connected within " + std::to_string(timeout_s) + " s");
  }
  Socket socket(accept4(listener.fd(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!socket.valid()) throw std::runtime_error(Errno("accept"));
  SetNoDelay(socket.fd());
  return socket;
}

Socket ConnectTcp(const std::string& host, int port, double timeout_s) {
  const sockaddr_in address = Resolve(host, port);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    Socket socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!socket.valid()) throw std::runtime_error(Errno("socket"));
    if (connect(socket.fd(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0) {
      SetNoDelay(socket.fd());
      return socket;
    }
    const int error = errno;
    const bool retry = error == ECONNREFUSED || error == ENETUNREACH || error == EHOSTUNREACH ||
                       error == ETIMEDOUT || error == EINTR;
    if (!retry || std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("cannot connect to " + host + ":" + std::to_string(port) +
                               " within " + std::to_string(timeout_s) +
                               " s: " + std::strerror(error));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void ParseHostPort(const std::string& address, const std::string& what, std::string* host,
                   int* port) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size()) {
    throw UsageError(what + " '" + address + "': expected HOST:PORT");
  }
  *host = address.substr(0, colon);
  try {
    size_t used = 0;
    *port = std::stoi(address.substr(colon + 1), &used);
    if (used != address.size() - colon - 1 || *port <= 0 || *port > 65535) throw 0;
  } catch (...) {
    throw UsageError(what + " '" + address + "': port must be 1..65535");
  }
}

std::vector<Socket> AcceptWaiting(const Socket& listener) {
  std::vector<Socket> accepted;
  while (true) {
    Socket socket(accept4(listener.fd(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!socket.valid()) break;  // EAGAIN: no more waiting
    int one = 1;
    setsockopt(socket.fd(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    accepted.push_back(std::move(socket));
  }
  return accepted;
}

void SetReceiveTimeout(int fd, double seconds) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(seconds);
  tv.tv_usec = static_cast<suseconds_t>((seconds - static_cast<double>(tv.tv_sec)) * 1e6);
  if (tv.tv_sec == 0 && tv.tv_usec == 0) tv.tv_usec = 1;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

void SetNonBlocking(int fd, bool on) {
  const int flags = fcntl(fd, F_GETFL, 0);
  fcntl(fd, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK);
}

}  // namespace jigsaw::wire
