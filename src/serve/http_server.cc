#include "serve/http_server.h"

#include <sys/resource.h>

#include <future>
#include <optional>

#include "core/error.h"
#include "core/limits.h"
#include "serve/inference_queue.h"

namespace jigsaw {
namespace {

// User + system CPU seconds of this process (all threads) so far.
double ProcessCpuSeconds() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::string Dump(const nlohmann::json& json) {
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void Reply(http::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(Dump(body), "application/json");
}

// Compares without an early exit, so the time taken does not tell how much of a guess matched.
bool SameSecret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  }
  return diff == 0;
}

nlohmann::json TransportJson(const http::ServerStats& t) {
  return {{"connections_open", t.open},
          {"connections_peak", t.peak_open},
          {"evicted_idle", t.evicted_idle},
          {"evicted_reading", t.evicted_reading},
          {"refused_full", t.refused_full},
          {"busy", t.busy},
          {"timed_out", t.timed_out},
          {"too_large", t.too_large},
          {"header_too_large", t.header_too_large},
          {"malformed", t.malformed},
          {"unauthorized", t.refused_by_check},
          {"peak_buffered_bytes", t.peak_buffered_bytes}};
}

}  // namespace

http::ServerOptions HttpServerOptions::DefaultHttp() {
  http::ServerOptions http;
  http.port = 8000;
  http.max_body_bytes = 16 << 20;
  http.handler_threads = 8;
  http.max_queued_requests = 64;
  http.max_connections = 128;
  http.max_buffered_bytes = 64 << 20;
  return http;
}

void HttpServerOptions::Validate() const {
  http.Validate();
  if (queue_capacity < 1 || queue_capacity > 65536) {
    throw UsageError("queue_capacity must be in [1, 65536], got " + std::to_string(queue_capacity));
  }
}

bool IsLoopbackHost(const std::string& host) {
  return host.rfind("127.", 0) == 0 || host == "::1" || host == "localhost";
}

HttpServer::HttpServer(HttpServerOptions options, InferenceBackend& backend)
    : options_(std::move(options)), backend_(backend) {}

HttpServer::~HttpServer() { Stop(); }

HttpServerStats HttpServer::stats() const {
  HttpServerStats stats;
  stats.requests = requests_.load();
  stats.inferences = inferences_.load();
  stats.client_errors = client_errors_.load();
  stats.queue_full = queue_full_.load();
  stats.server_errors = server_errors_.load();
  return stats;
}

http::ServerStats HttpServer::transport_stats() const {
  return server_ ? server_->stats() : http::ServerStats();
}

int HttpServer::Start() {
  if (server_) throw UsageError("serve: the server is already started");
  options_.Validate();
  server_ = std::make_unique<http::Server>(options_.http);
  queue_ = std::make_unique<InferenceQueue>(backend_, options_.queue_capacity);
  InstallRoutes();
  try {
    port_ = server_->Start();
  } catch (const UsageError& e) {
    server_.reset();
    queue_.reset();
    throw UsageError(std::string("serve: ") + e.what());
  }
  return port_;
}

void HttpServer::Stop() {
  if (!server_) return;
  server_->Stop();
  queue_.reset();
  server_.reset();
}

void HttpServer::CountReply(int status) {
  ++requests_;
  if (status == 503) {
    ++queue_full_;
  } else if (status >= 500) {
    ++server_errors_;
  } else if (status >= 400) {
    ++client_errors_;
  }
}

void HttpServer::InstallRoutes() {
  http::Server& server = *server_;
  server.set_logger(
      [this](const http::Request&, const http::Response& res) { CountReply(res.status); });
  if (!options_.token.empty()) {
    server.set_head_check([this](const http::Request& head, http::Response* refusal) {
      if (head.method == "GET" &&
          (head.path == "/v2/health/live" || head.path == "/v2/health/ready")) {
        return true;
      }
      const std::string expected = "Bearer " + options_.token;
      if (SameSecret(head.get_header_value("Authorization"), expected)) return true;
      http::SetError(*refusal, 401, "missing or wrong bearer token (Authorization: Bearer ...)");
      refusal->set_header("WWW-Authenticate", "Bearer");
      return false;
    });
  }
  auto server_metadata = [](const http::Request&, http::Response& res) {
    Reply(res, 200, EncodeServerMetadata());
  };
  server.Get("/v2", server_metadata);
  server.Get("/v2/", server_metadata);
  server.Get("/v2/health/live", [](const http::Request&, http::Response& res) {
    Reply(res, 200, {{"live", true}});
  });
  server.Get("/v2/health/ready", [](const http::Request&, http::Response& res) {
    Reply(res, 200, {{"ready", true}});
  });
  server.Get("/v2/stats", [this](const http::Request&, http::Response& res) { Stats(res); });
  // /v2/models/{name}[/versions/{version}]...: matches[1] the name, matches[2] the version.
  const std::string model_path = R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)";
  server.Get(model_path, [this](const http::Request& req, http::Response& res) {
    if (UnknownModel(req, res)) return;
    Reply(res, 200, EncodeModelMetadata(backend_.info()));
  });
  server.Get(model_path + "/ready", [this](const http::Request& req, http::Response& res) {
    if (UnknownModel(req, res)) return;
    Reply(res, 200, {{"name", backend_.info().name}, {"ready", true}});
  });
  server.Post(model_path + "/infer", [this](const http::Request& req, http::Response& res) {
    if (UnknownModel(req, res)) return;
    Infer(req, res);
  });
}

bool HttpServer::UnknownModel(const http::Request& req, http::Response& res) const {
  const ServedModelInfo& model = backend_.info();
  if (req.matches[1] != model.name) {
    Reply(res, 404,
          EncodeError("unknown model '" + Excerpt(req.matches[1]) + "' (this server has '" +
                      model.name + "')"));
    return true;
  }
  if (!req.matches[2].empty() && req.matches[2] != model.version) {
    Reply(res, 404,
          EncodeError("model '" + model.name + "' has no version '" + Excerpt(req.matches[2]) +
                      "' (versions: " + model.version + ")"));
    return true;
  }
  return false;
}

void HttpServer::Stats(http::Response& res) const {
  const HttpServerStats s = stats();
  const BackendStats b = backend_.stats();
  Reply(res, 200,
        {{"requests", s.requests},
         {"inferences", s.inferences},
         {"client_errors", s.client_errors},
         {"queue_full", s.queue_full},
         {"server_errors", s.server_errors},
         {"http", TransportJson(transport_stats())},
         {"cache", b.cache},
         {"samples", b.samples},
         {"answered_after_blocks", b.answered_after},
         {"cache_bytes", b.cache_bytes},
         {"cache_seconds", b.cache_seconds},
         {"cache_insert_seconds", b.cache_insert_seconds},
         {"infer_seconds", b.infer_seconds},
         {"process_cpu_seconds", ProcessCpuSeconds()}});
}

void HttpServer::Infer(const http::Request& req, http::Response& res) {
  const ServedModelInfo& model = backend_.info();
  InferRequest request;
  try {
    std::optional<size_t> json_length;
    if (req.has_header("Inference-Header-Content-Length")) {
      json_length =
          ParseJsonLength(req.get_header_value("Inference-Header-Content-Length"), req.body.size());
    }
    request = ParseInferRequest(model, req.body, json_length);
  } catch (const ProtocolError& e) {
    Reply(res, e.status(), EncodeError(e.what()));
    return;
  }
  std::optional<std::future<InferResult>> future = queue_->TrySubmit(request);
  if (!future) {
    Reply(res, 503, EncodeError("the inference queue is full; retry later"));
    return;
  }
  InferResult result;
  try {
    result = future->get();
  } catch (const std::exception& e) {
    Reply(res, 500, EncodeError("inference failed: " + BoundedMessage(e.what())));
    return;
  }
  ++inferences_;
  const EncodedResponse encoded = EncodeInferResponse(model, request, result);
  res.status = 200;
  res.set_content(encoded.body, encoded.content_type);
  if (encoded.json_length) {
    res.set_header("Inference-Header-Content-Length", std::to_string(*encoded.json_length));
  }
}

}  // namespace jigsaw
