// A KServe v2 REST inference server (cpp-httplib) over one InferenceBackend.
//
// Endpoints: GET /v2, /v2/health/live, /v2/health/ready, /v2/models/{name},
// /v2/models/{name}/ready, /v2/stats (jigsaw's counters); POST /v2/models/{name}/infer. Every
// reply is JSON; errors are {"error": message} with 400 (malformed request), 404 (unknown model
// or path), 405, 413 (body over max_body_bytes; httplib refuses it before reading it), 503
// (inference queue full) or 500 (the backend failed).
//
// Bounds: at most `http_threads` connections are served at once and at most `pending_connections`
// accepted ones wait for a thread (beyond that the accept loop waits and the kernel's listen
// backlog holds the rest); at most `queue_capacity` decoded requests wait for the single
// inference thread, a request beyond that gets a 503 at once. Slow or idle peers are cut after
// `io_timeout_s`.
#ifndef JIGSAW_SERVE_HTTP_SERVER_H_
#define JIGSAW_SERVE_HTTP_SERVER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "serve/backend.h"

namespace httplib {
class Server;
}

namespace jigsaw {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 8000;  // 0 = any free port (see HttpServer::port)
  size_t max_body_bytes = 16 << 20;
  int http_threads = 8;
  int pending_connections = 64;
  int queue_capacity = 64;
  int io_timeout_s = 5;
};

struct HttpServerStats {
  int64_t requests = 0;       // every HTTP request answered
  int64_t inferences = 0;     // successful infer requests
  int64_t client_errors = 0;  // 4xx answers
  int64_t queue_full = 0;     // 503 answers
  int64_t server_errors = 0;  // 500 answers
};

class InferenceQueue;

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, InferenceBackend& backend);
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts serving on background threads; throws UsageError if the address cannot be
  // bound. Returns the bound port.
  int Start();
  // Stops accepting, finishes what is in flight, joins every thread. Idempotent.
  void Stop();

  int port() const { return port_; }
  HttpServerStats stats() const;

 private:
  void InstallRoutes();

  HttpServerOptions options_;
  InferenceBackend& backend_;
  std::unique_ptr<httplib::Server> server_;
  std::unique_ptr<InferenceQueue> queue_;
  std::thread listener_;
  int port_ = 0;
  std::atomic<int64_t> requests_{0};
  std::atomic<int64_t> inferences_{0};
  std::atomic<int64_t> client_errors_{0};
  std::atomic<int64_t> queue_full_{0};
  std::atomic<int64_t> server_errors_{0};
};

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_HTTP_SERVER_H_
