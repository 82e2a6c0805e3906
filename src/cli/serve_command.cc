// `jigsaw serve`: a KServe v2 REST inference server over a `jigsaw train` checkpoint (src/serve).
#include <memory>

#include "cli/commands.h"
#include "serve/serve_options.h"
#include "serve/serve_run.h"

namespace jigsaw {

void AddServeCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* command = app.add_subcommand(
      "serve", "KServe v2 REST inference server over a `jigsaw train` checkpoint");
  command->add_option("--model", options->backend.checkpoint, "checkpoint (OUT/checkpoint.pt)")
      ->required();
  command->add_option("--name", options->backend.name, "served model name (default: its kind)");
  http::ServerOptions& http = options->server.http;
  command->add_option("--host", http.host, "listen address (beyond loopback: use --token-file)")
      ->capture_default_str();
  command->add_option("--port", http.port, "listen port (0 = any free port)")
      ->capture_default_str();
  command->add_option("--token-file", options->token_file,
                      "file holding a bearer token every request but the health probes must carry "
                      "(Authorization: Bearer TOKEN)");
  command->add_option("--max-batch", options->backend.max_batch, "largest batch in a request")
      ->capture_default_str();
  command->add_option("--threads", options->backend.threads, "intra-op inference threads")
      ->capture_default_str();
  command->add_option("--http-threads", http.handler_threads, "requests handled at once")
      ->capture_default_str();
  command
      ->add_option("--max-connections", http.max_connections,
                   "open connections; more evict idle ones first")
      ->capture_default_str();
  command
      ->add_option("--request-timeout-s", http.request_timeout_s,
                   "a whole request must arrive within this (408 otherwise)")
      ->capture_default_str();
  command
      ->add_option("--idle-timeout-s", http.idle_timeout_s,
                   "an idle keep-alive connection is closed after this")
      ->capture_default_str();
  command
      ->add_option("--queue", options->server.queue_capacity,
                   "requests waiting for inference before 503s")
      ->capture_default_str();
  std::string cache_help;
  for (const CacheKind& kind : CacheKinds()) {
    cache_help +=
        (cache_help.empty() ? "" : ", ") + std::string(kind.name) + " (" + kind.help + ")";
  }
  command->add_option("--cache", options->cache, cache_help)->capture_default_str();
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
