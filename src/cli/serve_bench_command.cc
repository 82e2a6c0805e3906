// `jigsaw serve-bench`: open-loop load against a `jigsaw serve` server (src/serve/serve_bench.h).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/error.h"
#include "serve/serve_bench.h"

namespace jigsaw {
namespace {

struct ServeBenchCommandOptions {
  ServeBenchOptions bench;
  std::string out = "out/serve-bench";
};

int RunServeBenchCommand(const ServeBenchCommandOptions& options) {
  const ServeBenchResult r = RunServeBench(options.bench);
  std::string after;
  for (size_t i = 0; i < r.answered_after.size(); ++i) {
    after += (i ? "," : "") + std::to_string(r.answered_after[i]);
  }
  std::printf(
      "serve-bench: cache %s, stream %s, %d sent (%d ok, %d failed, %d dropped) in %.2f s: "
      "%.1f req/s\n"
      "latency ms: mean %.3f  p50 %.3f  p99 %.3f  max %.3f\n"
      "accuracy %.4f  agreement %s  mean blocks %.3f of %d  <= half the blocks %.4f\n"
      "answered after k blocks: [%s]  cache bytes %lld  cache ms/request %.4f (inserts %.4f)\n"
      "server ms/request: inference %.4f  process CPU %.4f\n",
      r.cache.c_str(), options.bench.stream.c_str(), r.sent, r.ok, r.failed, r.dropped, r.seconds,
      r.throughput, r.mean_ms, r.p50_ms, r.p99_ms, r.max_ms, r.accuracy,
      r.agreement < 0 ? "n/a" : std::to_string(r.agreement).c_str(), r.mean_blocks, r.blocks,
      r.half_or_fewer, after.c_str(), static_cast<long long>(r.cache_bytes), r.cache_ms,
      r.insert_ms, r.infer_ms, r.cpu_ms);
  if (!options.out.empty()) {
    std::filesystem::create_directories(options.out);
    const nlohmann::json summary = {
        {"cache", r.cache},
        {"stream", options.bench.stream},
        {"rate", options.bench.rate},
        {"sent", r.sent},
        {"ok", r.ok},
        {"failed", r.failed},
        {"dropped", r.dropped},
        {"seconds", r.seconds},
        {"throughput", r.throughput},
        {"mean_ms", r.mean_ms},
        {"p50_ms", r.p50_ms},
        {"p99_ms", r.p99_ms},
        {"max_ms", r.max_ms},
        {"accuracy", r.accuracy},
        // null without a --reference (docs/outputs.md: no -1)
        {"agreement", r.agreement < 0 ? nlohmann::json() : nlohmann::json(r.agreement)},
        {"mean_blocks", r.mean_blocks},
        {"blocks", r.blocks},
        {"half_or_fewer", r.half_or_fewer},
        {"answered_after_blocks", r.answered_after},
        {"cache_bytes", r.cache_bytes},
        {"cache_ms", r.cache_ms},
        {"insert_ms", r.insert_ms},
        {"infer_ms", r.infer_ms},
        {"cpu_ms", r.cpu_ms}};
    std::ofstream file(options.out + "/summary.json");
    file << summary.dump(2) << "\n";
    if (!file.flush()) throw UsageError("--out: cannot write " + options.out + "/summary.json");
  }
  return r.failed == 0 ? 0 : 1;
}

}  // namespace

void AddServeBenchCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<ServeBenchCommandOptions>();
  ServeBenchOptions& b = options->bench;
  CLI::App* command = app.add_subcommand(
      "serve-bench",
      "Open-loop load (Poisson arrivals, Zipf or uniform streams) on `jigsaw serve`");
  command->add_option("--host", b.host, "server address")->capture_default_str();
  command->add_option("--port", b.port, "server port")->capture_default_str();
  command->add_option("--model", b.model, "served model name (e.g. lenet)")->required();
  command->add_option("--dataset", b.data.dataset, "fashion-mnist, cifar10 or synthetic")
      ->capture_default_str();
  command->add_option("--data-dir", b.data.data_dir, "data location (default: as train)");
  command->add_option("--cache-dir", b.data.cache_dir, "decoded CIFAR-10 cache folder");
  command->add_option("--synthetic-test", b.data.synthetic_test, "synthetic test images")
      ->capture_default_str();
  command->add_option("--synthetic-size", b.data.synthetic_size, "synthetic image side")
      ->capture_default_str();
  command
      ->add_option("--first", b.first,
                   "first test image used (after the server's --calibration-samples)")
      ->capture_default_str();
  command->add_option("--count", b.count, "test images used (0: to the end)")
      ->capture_default_str();
  command->add_option("--stream", b.stream, "zipf (drifting class popularity) or uniform")
      ->capture_default_str();
  command->add_option("--zipf-s", b.zipf_s, "Zipf exponent")->capture_default_str();
  command->add_option("--drift-every", b.drift_every, "requests between popularity redraws")
      ->capture_default_str();
  command->add_option("--rate", b.rate, "arrivals per second (Poisson)")->capture_default_str();
  command->add_option("--requests", b.requests, "arrivals")->capture_default_str();
  command->add_option("--connections", b.connections, "keep-alive connections")
      ->capture_default_str();
  command->add_option("--max-backlog", b.max_backlog, "unsent arrivals before drops")
      ->capture_default_str();
  command->add_option("--seed", b.seed, "seed of the arrivals and the request stream")
      ->capture_default_str();
  command->add_option("--reference", b.reference_in, "reference classes for agreement");
  command->add_option("--reference-out", b.reference_out,
                      "first write the reference (run against a server without a cache)");
  command->add_option("--out", options->out, "output folder (summary.json)")->capture_default_str();
  command->callback(
      [options, action] { *action = [options] { return RunServeBenchCommand(*options); }; });
}

}  // namespace jigsaw
