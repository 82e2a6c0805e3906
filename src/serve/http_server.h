// The Open Inference Protocol (KServe v2) REST server of `jigsaw serve` over one
// InferenceBackend, on jigsaw's HTTP server (core/http_server.h: its bounds on bodies, headers,
// request time and connections apply to every request).
//
// Endpoints: GET /v2 (server metadata, extension "binary_tensor_data"), /v2/health/live
// ({"live": true}), /v2/health/ready ({"ready": true}), /v2/models/{name}[/versions/{v}] (model
// metadata, with the input contract in the input's parameters), .../ready ({"name", "ready"}),
// /v2/stats (jigsaw's counters); POST /v2/models/{name}[/versions/{v}]/infer (kserve_protocol.h;
// an Inference-Header-Content-Length header marks binary tensor data). Replies are JSON (binary
// outputs: the JSON, then the tensors' bytes, with Inference-Header-Content-Length); errors are
// {"error": message} with 400 (malformed request), 401 (a token is set and the request lacks
// it), 404 (unknown model, version or path), 405 (wrong method, with Allow), 408, 413, 414, 431
// (core/http_server.h), 503 (inference queue full) or 500 (the backend failed). Any
// Content-Type is accepted.
//
// Bounds: http.handler_threads requests are handled at once, at most http.max_queued_requests
// more wait for a handler; at most `queue_capacity` decoded requests wait for the single
// inference thread, a request beyond that gets a 503 at once.
//
// Authentication: with a non-empty `token`, every request but the two health probes must carry
// "Authorization: Bearer <token>"; the header is checked when the head is read, before the body.
#ifndef JIGSAW_SERVE_HTTP_SERVER_H_
#define JIGSAW_SERVE_HTTP_SERVER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/http_server.h"
#include "serve/backend.h"

namespace jigsaw {

struct HttpServerOptions {
  http::ServerOptions http = DefaultHttp();
  int queue_capacity = 64;
  std::string token;  // "" = no authentication

  // serve's defaults: a 16 MiB body, 8 handler threads, 128 connections.
  static http::ServerOptions DefaultHttp();
  // Throws UsageError naming the field.
  void Validate() const;
};

struct HttpServerStats {
  int64_t requests = 0;       // every HTTP reply (the transport's refusals included)
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

  // Binds and starts serving on background threads; throws UsageError if the options are
  // invalid or the address cannot be bound. Returns the bound port.
  int Start();
  // Stops accepting, finishes what is in flight, joins every thread. Idempotent.
  void Stop();

  int port() const { return port_; }
  HttpServerStats stats() const;
  http::ServerStats transport_stats() const;

 private:
  void InstallRoutes();
  // 404 (and true) unless matches[1] names the model and matches[2] is empty or its version.
  bool UnknownModel(const http::Request& req, http::Response& res) const;
  void Infer(const http::Request& req, http::Response& res);
  void Stats(http::Response& res) const;
  void CountReply(int status);

  HttpServerOptions options_;
  InferenceBackend& backend_;
  std::unique_ptr<http::Server> server_;
  std::unique_ptr<InferenceQueue> queue_;
  int port_ = 0;
  std::atomic<int64_t> requests_{0};
  std::atomic<int64_t> inferences_{0};
  std::atomic<int64_t> client_errors_{0};
  std::atomic<int64_t> queue_full_{0};
  std::atomic<int64_t> server_errors_{0};
};

// True for addresses only this machine can reach: 127.0.0.0/8, ::1, "localhost".
bool IsLoopbackHost(const std::string& host);

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_HTTP_SERVER_H_
