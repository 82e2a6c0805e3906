// jigsaw's HTTP/1.1 server: the sockets and HTTP set-up shared by `jigsaw serve`, the faas load
// balancer and the faas SGSs. Torch-free.
//
// Why not cpp-httplib's server: Debian 12's cpp-httplib 0.11 reads each connection on a thread
// of its pool with blocking reads and per-read timeouts, applies its body limit to
// Content-Length only (a chunked body grows without bound), keeps header lines without a count
// or total limit, and has no whole-request deadline or connection cap. A bounded reader in front
// of it would have to parse HTTP itself and hand httplib the request again, so the server is
// this small one instead (the clients stay httplib's).
//
// Model: one I/O thread (epoll) owns every connection and reads requests with
// http::RequestParser, never blocking on a peer; complete requests go to `handler_threads`
// threads through a queue of at most `max_queued_requests` (beyond: 503 at once); replies are
// written back by the I/O thread. Hence a slow or silent peer holds a connection slot and a
// bounded buffer, never a thread. Bounds, each enforced as soon as it is crossed:
//   - body: max_body_bytes, chunked or not; a Content-Length over it is refused when the head is
//     read, before any body byte, a chunked body as soon as a chunk's size takes it over: 413;
//   - head: a request line over max_request_line_bytes 414; more than max_headers header lines,
//     or more than max_header_bytes of them: 431;
//   - time: a request not complete request_timeout_s after its first byte: 408 and closed (the
//     deadline covers the whole request, not each read); a connection idle idle_timeout_s
//     between requests (or before its first byte): closed; a reply not written within
//     write_timeout_s: closed;
//   - connections: at most max_connections; one more evicts, in this order, a connection
//     finishing an error reply, the connection idle the longest, then the one whose request
//     started the longest ago; connections whose request is being handled or answered are never
//     evicted, and when only those are left the newcomer gets 503 and is closed;
//   - memory: the bytes of all requests being read, queued or handled stay under
//     max_buffered_bytes: past it the oldest requests still being read are evicted; when that
//     is not enough the request that crossed it gets 503.
// Every refusal is {"error": message} JSON with a status naming it; the connection is closed
// after it (its unread input discarded for at most 1 s so the peer sees the reply). The head
// check (set_head_check) runs once the head is read, before the body: authentication happens
// there, before anything large is buffered.
#ifndef JIGSAW_CORE_HTTP_SERVER_H_
#define JIGSAW_CORE_HTTP_SERVER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/http_message.h"
#include "core/http_router.h"

namespace jigsaw::http {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port (Start returns it)
  size_t max_body_bytes = 1 << 20;
  size_t max_request_line_bytes = 8 << 10;
  size_t max_header_bytes = 16 << 10;
  int max_headers = 64;
  double request_timeout_s = 10;
  double idle_timeout_s = 5;
  double write_timeout_s = 10;
  int max_connections = 256;
  int handler_threads = 8;
  int max_queued_requests = 64;
  size_t max_buffered_bytes = 64 << 20;

  // Throws UsageError naming the first field out of range (and its range).
  void Validate() const;
};

struct ServerStats {
  int64_t accepted = 0;          // connections
  int64_t open = 0;              // connections now
  int64_t peak_open = 0;         // most connections at once
  int64_t evicted_idle = 0;      // evicted at the cap: idle or finishing an error reply
  int64_t evicted_reading = 0;   // evicted at the cap or the byte budget: reading a request
  int64_t refused_full = 0;      // newcomers closed with 503: every slot busy with a request
  int64_t requests = 0;          // complete requests handed to handlers
  int64_t busy = 0;              // 503: handler queue full or byte budget exhausted
  int64_t timed_out = 0;         // 408: request not complete in time
  int64_t idle_closed = 0;       // idle past idle_timeout_s
  int64_t write_timeouts = 0;    // reply not written in time
  int64_t too_large = 0;         // 413
  int64_t header_too_large = 0;  // 414 or 431
  int64_t malformed = 0;         // 400, 501, 505
  int64_t refused_by_check = 0;  // refused by the head check
  int64_t buffered_bytes = 0;    // request bytes held now
  int64_t peak_buffered_bytes = 0;
};

class Server {
 public:
  explicit Server(ServerOptions options);
  ~Server();  // Stop()
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Routes and hooks: set them before Start. Patterns are ECMAScript regexes over the whole
  // decoded path (http_router.h).
  void Get(const std::string& pattern, Handler handler);
  void Post(const std::string& pattern, Handler handler);
  void set_not_found_hint(std::string hint);
  // Runs on the I/O thread once a request's head is read, before its body: return false with
  // *refusal set (its status and body) to refuse the request; the connection is then closed.
  // Must be quick and must not block.
  using HeadCheck = std::function<bool(const Request& head, Response* refusal)>;
  void set_head_check(HeadCheck check);
  // Called for every reply, the server's own refusals included (`request` then holds what was
  // read of it, possibly nothing). From the I/O thread or a handler thread: must be thread-safe.
  using Logger = std::function<void(const Request& request, const Response& response)>;
  void set_logger(Logger logger);

  // Validates the options, binds, starts the threads; returns the bound port. Throws UsageError
  // (bad options, or the address cannot be bound).
  int Start();
  // Stops accepting and reading; handlers under way finish and their replies are written (for
  // at most 2 s), queued requests get 503, every connection is closed and every thread joined.
  // Idempotent.
  void Stop();

  int port() const;
  ServerStats stats() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace jigsaw::http

#endif  // JIGSAW_CORE_HTTP_SERVER_H_
