#include "serve/serve_run.h"

#include <signal.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "serve/exact_match_cache.h"

namespace jigsaw {

int RunServe(ServeOptions options) {
  // SIGINT / SIGTERM end the server through sigwait below; blocked before any thread starts so
  // every thread inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  options.Validate();
  TorchBackendOptions backend_options = options.backend;
  if (options.cache == "exact") {
    backend_options.cache = std::make_shared<ExactMatchCache>(options.cache_entries);
  }
  std::unique_ptr<InferenceBackend> backend = LoadTorchBackend(backend_options);
  if (options.cache == "freeze" || options.cache == "gati" || options.cache == "branchy") {
    backend->SetCache(BuildCache(*backend, options.setup, std::cerr));
  }
  HttpServer server(options.server, *backend);
  const int port = server.Start();
  const ServedModelInfo& model = backend->info();
  const std::string& host = options.server.http.host;
  std::fprintf(stderr,
               "serve: model '%s' (input %dx%dx%d, %d classes) listening on http://%s:%d/v2 "
               "(SIGINT or SIGTERM stops)\n",
               model.name.c_str(), model.channels, model.height, model.width, model.classes,
               host.c_str(), port);
  if (const std::string warning = ExposureWarning(options); !warning.empty()) {
    std::fprintf(stderr, "%s\n", warning.c_str());
  }
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

}  // namespace jigsaw
