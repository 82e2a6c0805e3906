// `jigsaw serve`: a KServe v2 REST inference server over a `jigsaw train` checkpoint (src/serve).
#include <signal.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/error.h"
#include "net/units.h"
#include "serve/cache_setup.h"
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
  CacheSetupOptions setup;
  std::string cache_memory = "64MiB";
  std::string lookup_budget = "1s";
  std::string online = "on";
};

// Parses the size and duration options of the learned caches into `setup`.
void ParseSetupUnits(ServeOptions* options) {
  uint64_t bytes = 0;
  if (!net::ParseBytes(options->cache_memory, &bytes)) {
    throw UsageError("--cache-memory '" + options->cache_memory + "': expected a size like 4MiB");
  }
  options->setup.memory_budget_bytes = static_cast<double>(bytes);
  net::Time budget = 0;
  if (!net::ParseDuration(options->lookup_budget, &budget) || budget < 0) {
    throw UsageError("--lookup-budget '" + options->lookup_budget +
                     "': expected a duration like 200us");
  }
  options->setup.lookup_budget_seconds = static_cast<double>(budget) / net::kSecond;
  if (options->online != "on" && options->online != "off") {
    throw UsageError("--online '" + options->online + "': expected on or off");
  }
  options->setup.online = options->online == "on";
}

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
  } else if (options.cache != "none" && options.cache != "freeze" && options.cache != "gati" &&
             options.cache != "branchy") {
    throw UsageError("--cache '" + options.cache +
                     "': expected none, exact, freeze, gati or branchy");
  }
  std::unique_ptr<InferenceBackend> backend = LoadTorchBackend(backend_options);
  if (options.cache == "freeze" || options.cache == "gati" || options.cache == "branchy") {
    ServeOptions parsed = options;
    ParseSetupUnits(&parsed);
    parsed.setup.kind = options.cache;
    backend->SetCache(BuildCache(*backend, parsed.setup, std::cerr));
  }
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
      ->add_option("--cache", options->cache,
                   "none, exact (response cache keyed by the input), freeze (k-NN per layer), "
                   "gati (learned per-layer predictors) or branchy (early exits)")
      ->capture_default_str();
  CacheSetupOptions& setup = options->setup;
  command
      ->add_option("--data", setup.data.dataset,
                   "freeze/gati/branchy: data set whose test split warms and calibrates")
      ->capture_default_str();
  command->add_option("--data-dir", setup.data.data_dir, "its location (default: as train)");
  command->add_option("--data-cache-dir", setup.data.cache_dir, "decoded CIFAR-10 cache folder");
  command->add_option("--synthetic-test", setup.data.synthetic_test, "synthetic test images")
      ->capture_default_str();
  command->add_option("--synthetic-size", setup.data.synthetic_size, "synthetic image side")
      ->capture_default_str();
  command
      ->add_option("--calibration-samples", setup.calibration_samples,
                   "first test images held out: half warm, half calibrate")
      ->capture_default_str();
  command->add_option("--agreement", setup.target_agreement, "target agreement of hits")
      ->capture_default_str();
  command->add_option("--k", setup.k, "freeze: neighbours that must agree")->capture_default_str();
  command->add_option("--per-class", setup.per_class, "freeze: entries kept per class and layer")
      ->capture_default_str();
  command
      ->add_option("--pool-width", setup.pool_width,
                   "freeze: layers at least this wide compare 16 group sums (0: never)")
      ->capture_default_str();
  command
      ->add_option("--bound-dims", setup.bound_dims,
                   "freeze: principal directions of the exact lookup bound (0: block sums)")
      ->capture_default_str();
  command->add_option("--hidden", setup.hidden, "gati/branchy: predictor hidden units (0: linear)")
      ->capture_default_str();
  command->add_option("--train-epochs", setup.train_epochs, "gati/branchy: predictor epochs")
      ->capture_default_str();
  command->add_option("--cache-memory", options->cache_memory, "gati: predictor memory budget")
      ->capture_default_str();
  command
      ->add_option("--lookup-budget", options->lookup_budget,
                   "gati: most lookup time a request that misses everywhere may pay")
      ->capture_default_str();
  command->add_option("--online", options->online, "gati: online updates (on or off)")
      ->capture_default_str();
  command->add_option("--retrain-every", setup.retrain_every, "gati: inserts per layer update")
      ->capture_default_str();
  command->add_option("--seed", setup.seed, "cache seed")->capture_default_str();
  command->add_option("--cache-entries", options->cache_entries, "exact: inputs kept (LRU)")
      ->capture_default_str();
  command->add_option("--max-body-mb", options->max_body_mb, "request body limit (MiB)")
      ->capture_default_str();
  command->callback([options, action] { *action = [options] { return RunServe(*options); }; });
}

}  // namespace jigsaw
