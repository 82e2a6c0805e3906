#include "serve/http_server.h"

#include <httplib.h>
#include <sys/resource.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "core/limits.h"
#include "serve/bounded_task_queue.h"
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

void Reply(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(Dump(body), "application/json");
}

}  // namespace

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

int HttpServer::Start() {
  if (server_) throw UsageError("serve: the server is already started");
  if (options_.port < 0 || options_.port > 65535) {
    throw UsageError("--port must be in [0, 65535]");
  }
  if (options_.http_threads < 1 || options_.queue_capacity < 1 ||
      options_.pending_connections < 1 || options_.max_body_bytes < 1) {
    throw UsageError("--http-threads, --queue and the body limit must be >= 1");
  }
  server_ = std::make_unique<httplib::Server>();
  const int threads = options_.http_threads;
  const int pending = options_.pending_connections;
  server_->new_task_queue = [threads, pending] { return new BoundedTaskQueue(threads, pending); };
  server_->set_payload_max_length(options_.max_body_bytes);
  // Replies go out as header and body writes; without this Nagle holds the body for the
  // client's delayed ACK (about 40 ms per request on loopback).
  server_->set_tcp_nodelay(true);
  server_->set_read_timeout(options_.io_timeout_s, 0);
  server_->set_write_timeout(options_.io_timeout_s, 0);
  server_->set_keep_alive_timeout(options_.io_timeout_s);
  queue_ = std::make_unique<InferenceQueue>(backend_, options_.queue_capacity);
  InstallRoutes();
  if (options_.port == 0) {
    port_ = server_->bind_to_any_port(options_.host);
    if (port_ < 0) port_ = 0;
  } else {
    port_ = server_->bind_to_port(options_.host, options_.port) ? options_.port : 0;
  }
  if (port_ == 0) {
    server_.reset();
    queue_.reset();
    throw UsageError("serve: cannot listen on " + options_.host + ":" +
                     std::to_string(options_.port) + " (address in use or not local?)");
  }
  listener_ = std::thread([this] { server_->listen_after_bind(); });
  // stop() before the accept loop runs would be lost; wait (boundedly) until it runs.
  for (int i = 0; i < 5000 && !server_->is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return port_;
}

void HttpServer::Stop() {
  if (!server_) return;
  server_->stop();
  if (listener_.joinable()) listener_.join();
  queue_.reset();
  server_.reset();
}

void HttpServer::InstallRoutes() {
  const ServedModelInfo& model = backend_.info();
  httplib::Server& server = *server_;
  server.set_logger([this](const httplib::Request&, const httplib::Response& res) {
    ++requests_;
    if (res.status == 503) {
      ++queue_full_;
    } else if (res.status >= 500) {
      ++server_errors_;
    } else if (res.status >= 400) {
      ++client_errors_;
    }
  });
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string message = "HTTP " + std::to_string(res.status);
    if (res.status == 404) message = "no such endpoint: " + Excerpt(req.method + " " + req.path);
    if (res.status == 413) message = "request body larger than the server's limit";
    res.set_content(Dump(EncodeError(message)), "application/json");
  });
  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr error) {
        std::string message = "internal error";
        try {
          if (error) std::rethrow_exception(error);
        } catch (const std::exception& e) {
          message += ": " + BoundedMessage(e.what());
        } catch (...) {
        }
        Reply(res, 500, EncodeError(message));
      });

  server.Get("/v2", [](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200,
          {{"name", "jigsaw"}, {"version", "1"}, {"extensions", nlohmann::json::array()}});
  });
  server.Get("/v2/health/live", [](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200, {{"live", true}});
  });
  server.Get("/v2/health/ready", [](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200, {{"ready", true}});
  });
  server.Get("/v2/stats", [this](const httplib::Request&, httplib::Response& res) {
    const HttpServerStats s = stats();
    const BackendStats b = backend_.stats();
    Reply(res, 200,
          {{"requests", s.requests},
           {"inferences", s.inferences},
           {"client_errors", s.client_errors},
           {"queue_full", s.queue_full},
           {"server_errors", s.server_errors},
           {"cache", b.cache},
           {"samples", b.samples},
           {"answered_after_blocks", b.answered_after},
           {"cache_bytes", b.cache_bytes},
           {"cache_seconds", b.cache_seconds},
           {"cache_insert_seconds", b.cache_insert_seconds},
           {"infer_seconds", b.infer_seconds},
           {"process_cpu_seconds", ProcessCpuSeconds()}});
  });
  auto unknown_model = [&model](const std::string& name, httplib::Response& res) {
    if (name == model.name) return false;
    Reply(res, 404,
          EncodeError("unknown model '" + Excerpt(name) + "' (this server has '" + model.name +
                      "')"));
    return true;
  };
  server.Get(R"(/v2/models/([^/]+))",
             [&model, unknown_model](const httplib::Request& req, httplib::Response& res) {
               if (unknown_model(req.matches[1], res)) return;
               Reply(res, 200, EncodeModelMetadata(model));
             });
  server.Get(R"(/v2/models/([^/]+)/ready)",
             [&model, unknown_model](const httplib::Request& req, httplib::Response& res) {
               if (unknown_model(req.matches[1], res)) return;
               Reply(res, 200, {{"name", model.name}, {"ready", true}});
             });
  server.Post(R"(/v2/models/([^/]+)/infer)",
              [this, &model, unknown_model](const httplib::Request& req, httplib::Response& res) {
                if (unknown_model(req.matches[1], res)) return;
                InferRequest request;
                try {
                  request = ParseInferRequest(model, req.body);
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
                Reply(res, 200, EncodeInferResponse(model, request, result));
              });
}

}  // namespace jigsaw
