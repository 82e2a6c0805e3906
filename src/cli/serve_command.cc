// `jigsaw serve`: a KServe v2 REST inference server over a `jigsaw train` checkpoint (src/serve).
#include <signal.h>

#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "core/error.h"
#include "serve/exact_match_cache.h"
#include "serve/http_server.h"
#include "serve/torch_backend.h"

namespace jigsaw {
namespace {

struct ServeOptions {
  TorchBackendOptions backend;
  std::string cache = "none";
  int cache_entries = 4096;
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
  TorchBackendOptions backend_options = options.backend;
  if (options.cache == "exact") {
    if (options.cache_entries < 1 || options.cache_entries > (1 << 22)) {
      throw UsageError("--cache-entries must be in [1, 4194304]");
    }
    backend_options.cache = std::make_shared<ExactMatchCache>(options.cache_entries);
  } else if (options.cache != "none") {
    throw UsageError("--cache '" + options.cache + "': expected none or exact");
  }
  std::unique_ptr<InferenceBackend> backend = LoadTorchBackend(backend_options);
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
  command
      ->add_option("--cache", options->cache, "none or exact (response cache keyed by the input)")
      ->capture_default_str();
  command->add_option("--cache-entries", options->cache_entries, "exact: inputs kept (LRU)")
      ->capture_default_str();
  command->add_option("--max-body-mb", options->max_body_mb, "request body limit (MiB)")
      ->capture_default_str();
  command->callback([options, action] { *action = [options] { return RunServe(*options); }; });
}

}  // namespace jigsaw
