// `jigsaw serve`: a KServe v2 REST inference server over a `jigsaw train` checkpoint (src/serve).
#include <signal.h>

#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "core/error.h"
#include "serve/http_server.h"
#include "serve/torch_backend.h"

namespace jigsaw {
namespace {

struct ServeOptions {
  TorchBackendOptions backend;
  HttpServerOptions http;
  double max_body_mb = 16;
};

int RunServe(const ServeOptions& options) {
  // SIGINT / SIGTERM end the server through sigwait below; blocked before any thread starts so
  // every thread inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  if (!(options.max_body_mb > 0 && options.max_body_mb <= 1024)) {
    throw UsageError("--max-body-mb must be in (0, 1024]");
  }
  std::unique_ptr<InferenceBackend> backend = LoadTorchBackend(options.backend);
  HttpServerOptions http = options.http;
  http.max_body_bytes = static_cast<size_t>(options.max_body_mb * (1 << 20));
  HttpServer server(http, *backend);
  const int port = server.Start();
  const ServedModelInfo& model = backend->info();
  std::fprintf(stderr,
               "serve: model '%s' (input %dx%dx%d, %d classes) listening on http://%s:%d/v2 "
               "(SIGINT or SIGTERM stops)\n",
               model.name.c_str(), model.channels, model.height, model.width, model.classes,
               http.host.c_str(), port);
  std::fflush(stderr);
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  server.Stop();
  const HttpServerStats stats = server.stats();
  std::fprintf(stderr,
               "serve: stopped; %lld requests, %lld inferences, %lld client errors, %lld queue "
               "full, %lld server errors\n",
               static_cast<long long>(stats.requests), static_cast<long long>(stats.inferences),
               static_cast<long long>(stats.client_errors),
               static_cast<long long>(stats.queue_full),
               static_cast<long long>(stats.server_errors));
  return 0;
}

}  // namespace

void AddServeCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* command = app.add_subcommand(
      "serve", "KServe v2 REST inference server over a `jigsaw train` checkpoint");
  command->add_option("--model", options->backend.checkpoint, "checkpoint (OUT/checkpoint.pt)")
      ->required();
  command->add_option("--name", options->backend.name, "served model name (default: its kind)");
  command->add_option("--host", options->http.host, "listen address")->capture_default_str();
  command->add_option("--port", options->http.port, "listen port (0 = any free port)")
      ->capture_default_str();
  command->add_option("--max-batch", options->backend.max_batch, "largest batch in a request")
      ->capture_default_str();
  command->add_option("--threads", options->backend.threads, "intra-op inference threads")
      ->capture_default_str();
  command->add_option("--http-threads", options->http.http_threads, "connections served at once")
      ->capture_default_str();
  command
      ->add_option("--queue", options->http.queue_capacity,
                   "requests waiting for inference before 503s")
      ->capture_default_str();
  command->add_option("--max-body-mb", options->max_body_mb, "request body limit (MiB)")
      ->capture_default_str();
  command->callback([options, action] { *action = [options] { return RunServe(*options); }; });
}

}  // namespace jigsaw
