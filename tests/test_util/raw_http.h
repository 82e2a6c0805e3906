// A raw HTTP/1.1 client over loopback TCP for tests that must send what no well-behaved client
// sends (partial heads, huge chunked bodies, dribbled bytes). Every wait is bounded (30 s by
// default), so a broken server fails a test instead of hanging it; no assertion depends on time.
#ifndef JIGSAW_TESTS_TEST_UTIL_RAW_HTTP_H_
#define JIGSAW_TESTS_TEST_UTIL_RAW_HTTP_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>

namespace jigsaw::test_util {

struct RawResponse {
  int status = 0;  // 0: no complete reply (closed or timed out first)
  std::string head;
  std::string body;
};

class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }

  // Sends all of `data`; false once the server closed or reset the connection.
  bool Send(const std::string& data) {
    size_t sent = 0;
    while (fd_ >= 0 && sent < data.size()) {
      const ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return fd_ >= 0;
  }

  // True when a byte (or EOF) is readable within `timeout_ms`.
  bool Readable(int timeout_ms) const {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, timeout_ms) > 0;
  }

  // Reads one reply (head and Content-Length body); skips "100 Continue" when `skip_continue`.
  RawResponse Read(int timeout_ms = 30000, bool skip_continue = true) {
    RawResponse response;
    for (;;) {
      const size_t end = buffer_.find("\r\n\r\n");
      if (end != std::string::npos) {
        response.head = buffer_.substr(0, end + 4);
        const size_t length_at = Lower(response.head).find("content-length:");
        const size_t length =
            length_at == std::string::npos
                ? 0
                : std::strtoul(response.head.c_str() + length_at + 15, nullptr, 10);
        if (buffer_.size() >= end + 4 + length) {
          response.status = std::atoi(response.head.c_str() + 9);
          response.body = buffer_.substr(end + 4, length);
          buffer_.erase(0, end + 4 + length);
          if (skip_continue && response.status == 100) {
            response = RawResponse();
            continue;
          }
          return response;
        }
      }
      if (!Readable(timeout_ms)) return RawResponse();
      char chunk[65536];
      const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
      if (n <= 0) return RawResponse();
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  // True when the server closed the connection (EOF or reset) within `timeout_ms`, discarding
  // anything it sent first.
  bool ClosedByServer(int timeout_ms = 30000) {
    for (;;) {
      if (!Readable(timeout_ms)) return false;
      char chunk[4096];
      const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
      if (n <= 0) return true;
    }
  }

 private:
  static std::string Lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  }

  int fd_ = -1;
  std::string buffer_;
};

}  // namespace jigsaw::test_util

#endif  // JIGSAW_TESTS_TEST_UTIL_RAW_HTTP_H_
