// The Parameter Service's subcommands (torch-free, in jigsaw): `paramsvc` (the coordinator),
// `paramsvc-agg` (an aggregator), `paramsvc-register` (a job), `paramsvc-status`,
// `paramsvc-sim` (the trace-driven comparison) and `ps-timed-worker` (a worker whose compute is
// a timed wait, for a dedicated PS or the service). See docs/paramsvc.md.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/output.h"
#include "core/output_folder.h"
#include "core/socket.h"
#include "core/text_input.h"
#include "paramsvc/aggregator_node.h"
#include "paramsvc/control.h"
#include "paramsvc/coordinator.h"
#include "paramsvc/service_client.h"
#include "paramsvc/trace_sim.h"
#include "ps/client.h"
#include "ps/timed_worker.h"

namespace jigsaw {
namespace {

std::atomic<bool> g_stop{false};

void OnStopSignal(int) { g_stop = true; }

// The values of column `name` of a CSV with a header (InputError naming file:line otherwise).
std::vector<double> ReadColumn(const std::string& path, const std::string& name) {
  TextFile file(path);
  std::string_view line;
  if (!file.NextLine(&line)) file.Fail("expected a CSV header with a " + name + " column");
  const std::vector<std::string_view> header = SplitFields(line, ',');
  size_t column = header.size();
  for (size_t i = 0; i < header.size(); ++i) {
    if (Trim(header[i]) == name) column = i;
  }
  if (column == header.size()) file.Fail("expected a CSV header with a " + name + " column");
  std::vector<double> values;
  while (file.NextLine(&line)) {
    if (Trim(line).empty()) continue;
    const std::vector<std::string_view> fields = SplitFields(line, ',');
    if (fields.size() <= column) file.Fail("expected a " + name + " field");
    values.push_back(file.ParseDoubleInRange(fields[column], name, 0, kMaxProfileSeconds));
    if (values.size() > 10'000'000) file.Fail("too many rows");
  }
  if (values.empty()) file.Fail("expected at least one row");
  return values;
}

// One request to the coordinator with the service token; returns the reply's body.
Json AskService(const std::string& service, const wire::Token& token, const Json& body) {
  std::string host;
  int port = 0;
  wire::ParseHostPort(service, "--service", &host, &port);
  paramsvc::ControlFrame frame;
  frame.body = body;
  wire::Socket socket;
  return paramsvc::RequestWithRetry(host, port, 10, frame, token, "the parameter service", &socket)
      .body;
}

void AddCoordinator(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<paramsvc::CoordinatorOptions>();
  auto port_file = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "paramsvc",
      "Parameter Service coordinator: one shared, elastic aggregation service for "
      "every PS job (aggregators: paramsvc-agg; jobs: paramsvc-register)");
  command->add_option("--bind", options->host, "address to listen on")->capture_default_str();
  command->add_option("--port", options->port, "TCP port (0: any free port)")
      ->capture_default_str();
  command->add_option("--port-file", *port_file, "write the port here once listening");
  command
      ->add_option("--token-file", options->token_file,
                   "the service's token (created with a random one if missing)")
      ->required();
  command
      ->add_option("--initial-aggregators", options->initial_aggregators,
                   "aggregator processes started at once")
      ->capture_default_str();
  command
      ->add_option("--min-aggregators", options->min_aggregators,
                   "the pool never shrinks below this")
      ->capture_default_str();
  command
      ->add_option("--max-aggregators", options->max_aggregators,
                   "the pool never grows beyond this")
      ->capture_default_str();
  command
      ->add_option("--cores-per-aggregator", options->cores_per_aggregator,
                   "CPU cores one aggregator may use (its packing capacity)")
      ->capture_default_str();
  command->add_option("--headroom", options->headroom, "fraction of each aggregator kept free")
      ->capture_default_str();
  auto fixed = std::make_shared<bool>(false);
  command->add_flag("--no-elastic", *fixed, "keep the pool size fixed");
  command->add_option("--high-mark", options->high_mark, "add an aggregator above this")
      ->capture_default_str();
  command->add_option("--low-mark", options->low_mark, "drain an aggregator below this")
      ->capture_default_str();
  command->add_option("--sustain", options->sustain, "reports in a row beyond a mark")
      ->capture_default_str();
  command
      ->add_option("--report-interval-s", options->report_interval_s,
                   "seconds between load reports of the aggregators")
      ->capture_default_str();
  command->add_option("--snapshot-every", options->snapshot_every, "iterations between snapshots")
      ->capture_default_str();
  command
      ->add_option("--migrate-every", options->migrate_every,
                   "testing: migrate every shard every this many iterations (0: off)")
      ->capture_default_str();
  command
      ->add_option("--max-shard-floats", options->max_shard_floats,
                   "a job is cut into shards of at most this many floats")
      ->capture_default_str();
  command
      ->add_option("--est-ns-per-float", options->est_ns_per_float,
                   "first demand estimate before measurements (CPU ns per float per worker)")
      ->capture_default_str();
  command
      ->add_option("--timeout-s", options->timeout_s, "a silent peer fails after this many seconds")
      ->capture_default_str();
  command
      ->add_option("--handshake-timeout-s", options->handshake_timeout_s,
                   "a connection must authenticate within this many seconds")
      ->capture_default_str();
  command->add_option("--out", options->out, "output folder (writes coordinator.json, statistics)");
  command->add_flag("--quiet", options->quiet, "no progress on stderr");
  command->callback([options, port_file, fixed, action] {
    *action = [options, port_file, fixed] {
      options->out = FileInFolder(options->out, "coordinator.json");
      RequireCountInRange("--port", options->port, 0, 65535);
      RequireCountInRange("--initial-aggregators", options->initial_aggregators, 0, 256);
      RequireCountInRange("--min-aggregators", options->min_aggregators, 1, 256);
      RequireCountInRange("--max-aggregators", options->max_aggregators, 1, 256);
      RequireOptionInRange("--cores-per-aggregator", options->cores_per_aggregator, 0.01, 1024);
      RequireOptionInRange("--headroom", options->headroom, 0, 0.95);
      RequireOptionInRange("--high-mark", options->high_mark, 0.01, 10);
      RequireOptionInRange("--low-mark", options->low_mark, 0, 10);
      RequireCountInRange("--sustain", options->sustain, 1, 1000);
      RequireOptionInRange("--report-interval-s", options->report_interval_s, 0.01, 60);
      RequireCountInRange("--snapshot-every", static_cast<long long>(options->snapshot_every), 1,
                          kMaxPsIterations);
      RequireCountInRange("--max-shard-floats", static_cast<long long>(options->max_shard_floats),
                          1, static_cast<long long>(wire::kMaxFloats));
      RequireOptionInRange("--est-ns-per-float", options->est_ns_per_float, 0, 1e6);
      RequireOptionInRange("--timeout-s", options->timeout_s, 1e-3, 1e6);
      if (options->low_mark >= options->high_mark) {
        throw UsageError("--low-mark must be below --high-mark");
      }
      if (options->min_aggregators > options->max_aggregators) {
        throw UsageError("--min-aggregators must not exceed --max-aggregators");
      }
      options->elastic = !*fixed;
      options->token = wire::ResolveToken("", options->token_file, true);
      if (!port_file->empty()) {
        options->on_listening = [port_file](int port) {
          WriteFileAtomically(*port_file, std::to_string(port) + "\n");
        };
      }
      options->stop = &g_stop;
      std::signal(SIGINT, OnStopSignal);
      std::signal(SIGTERM, OnStopSignal);
      paramsvc::RunCoordinator(*options);
      return 0;
    };
  });
}

void AddAggregator(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<paramsvc::AggregatorNodeOptions>();
  auto token_file = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "paramsvc-agg", "an aggregator of the Parameter Service (joins a coordinator)");
  // Required: no default is shown (the coordinator listens on any free port by default).
  command->add_option("--coordinator", options->coordinator, "HOST:PORT")
      ->required()
      ->default_str("");
  command->add_option("--token-file", *token_file, "the service's token")->required();
  command->add_option("--bind", options->bind, "address workers connect to")->capture_default_str();
  command->add_option("--advertise", options->advertise,
                      "address to tell workers (default: --bind)");
  command
      ->add_option("--report-interval-s", options->report_interval_s,
                   "seconds between load reports of the aggregators")
      ->capture_default_str();
  command
      ->add_option("--timeout-s", options->timeout_s, "a silent peer fails after this many seconds")
      ->capture_default_str();
  command
      ->add_option("--handshake-timeout-s", options->handshake_timeout_s,
                   "a connection must authenticate within this many seconds")
      ->capture_default_str();
  command->add_flag("--quiet", options->quiet, "no progress on stderr");
  command->callback([options, token_file, action] {
    *action = [options, token_file] {
      RequireOptionInRange("--report-interval-s", options->report_interval_s, 0.01, 60);
      RequireOptionInRange("--timeout-s", options->timeout_s, 1e-3, 1e6);
      RequireOptionInRange("--handshake-timeout-s", options->handshake_timeout_s, 1e-3, 3600);
      options->token = wire::ResolveToken("", *token_file, false);
      std::signal(SIGPIPE, SIG_IGN);
      paramsvc::RunAggregatorNode(*options);
      return 0;
    };
  });
}

void AddRegister(CLI::App& app, CommandAction* action) {
  struct Options {
    std::string service, token_file, job = "job", job_token_file;
    uint64_t parameters = 0;
    int workers = 1;
    double iter_rate = 1, lr = 0.05, momentum = 0;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "paramsvc-register", "register a job with the Parameter Service; writes its token");
  command->add_option("--service", options->service, "the coordinator, HOST:PORT")->required();
  command->add_option("--token-file", options->token_file, "the service's token")->required();
  command->add_option("--job", options->job, "job name")->capture_default_str();
  command
      ->add_option("--parameters", options->parameters,
                   "model parameters (0: worker 0 tells at its init)")
      ->capture_default_str();
  command->add_option("--workers", options->workers, "workers of the job")->capture_default_str();
  command->add_option("--iter-rate", options->iter_rate, "expected iterations per second")
      ->capture_default_str();
  command->add_option("--lr", options->lr, "SGD learning rate")->capture_default_str();
  command->add_option("--momentum", options->momentum, "SGD momentum")->capture_default_str();
  command
      ->add_option("--job-token-file", options->job_token_file,
                   "where to write the job's new token (mode 0600), for its workers")
      ->required();
  command->callback([options, action] {
    *action = [options] {
      RequireCountInRange("--workers", options->workers, 1, kMaxPsWorkers);
      RequireCountInRange("--parameters", static_cast<long long>(options->parameters), 0,
                          static_cast<long long>(wire::kMaxFloats));
      RequireOptionInRange("--iter-rate", options->iter_rate, 1e-6, 1e6);
      RequireOptionInRange("--lr", options->lr, 0, 1e3);
      RequireOptionInRange("--momentum", options->momentum, 0, 1);
      const wire::Token token = wire::ResolveToken("", options->token_file, false);
      Json request;
      request["op"] = "register";
      request["job"] = options->job;
      request["parameters"] = options->parameters;
      request["workers"] = options->workers;
      request["iter_rate"] = options->iter_rate;
      request["lr"] = options->lr;
      request["momentum"] = options->momentum;
      const Json reply = AskService(options->service, token, request);
      const std::string job_token = reply.value("token", std::string());
      wire::ParseToken(job_token);
      std::remove(options->job_token_file.c_str());
      wire::ResolveToken("", options->job_token_file, true);           // creates it 0600 ...
      WriteFileAtomically(options->job_token_file, job_token + "\n");  // ... with this token
      std::printf("{\"job\": \"%s\", \"shards\": %llu}\n", options->job.c_str(),
                  static_cast<unsigned long long>(reply.value("shards", uint64_t{0})));
      return 0;
    };
  });
}

void AddStatus(CLI::App& app, CommandAction* action) {
  auto service = std::make_shared<std::string>();
  auto token_file = std::make_shared<std::string>();
  auto stop = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand(
      "paramsvc-status", "print the Parameter Service's state as JSON (or shut it down)");
  command->add_option("--service", *service, "the coordinator, HOST:PORT")->required();
  command->add_option("--token-file", *token_file, "the service's token")->required();
  command->add_flag("--shutdown", *stop, "stop the service (its aggregators too)");
  command->callback([service, token_file, stop, action] {
    *action = [service, token_file, stop] {
      const wire::Token token = wire::ResolveToken("", *token_file, false);
      Json request;
      request["op"] = *stop ? "shutdown" : "status";
      const Json reply = AskService(*service, token, request);
      std::printf("%s\n", reply.contains("status") ? reply["status"].dump(2).c_str() : "{}");
      return 0;
    };
  });
}

void AddSim(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<paramsvc::TraceSimOptions>();
  auto out = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "paramsvc-sim",
      "trace-driven cores reserved for aggregation: dedicated PS per job vs the service");
  command->add_option("--trace", options->trace, "Philly-style trace")->required();
  command->add_option("--throughputs", options->throughputs, "throughput table (JSON)")->required();
  command
      ->add_option("--worker-type", options->worker_type,
                   "GPU type whose throughputs the trace's jobs run at")
      ->capture_default_str();
  command->add_option("--type-seed", options->type_seed, "seed of the job typing")
      ->capture_default_str();
  command->add_option("--max-jobs", options->max_jobs, "first jobs only (0: all)")
      ->capture_default_str();
  command->add_option("--min-workers", options->min_workers, "GPUs from which a job uses a PS")
      ->capture_default_str();
  command
      ->add_option("--ns-per-float", options->ns_per_float,
                   "aggregation CPU ns per float per worker per iteration (measured)")
      ->capture_default_str();
  command
      ->add_option("--headroom", options->headroom, "share of an aggregator kept free for bursts")
      ->capture_default_str();
  command
      ->add_option("--burst-fraction", options->burst_fraction,
                   "a dedicated PS aggregates an iteration within this fraction of it (1: sized "
                   "for the average demand)")
      ->capture_default_str();
  command
      ->add_option("--max-shard-floats", options->max_shard_floats,
                   "a job is cut into shards of at most this many floats")
      ->capture_default_str();
  command
      ->add_option("--dedicated-cores", options->dedicated_cores,
                   "cores a dedicated PS holds at least")
      ->capture_default_str();
  command->add_option("--sample-s", options->sample_s, "time series step")->capture_default_str();
  command->add_option("--out", *out, "output folder (writes sim.json, the time series)");
  command->add_flag("--quiet", options->quiet, "no progress on stderr");
  command->callback([options, out, action] {
    *action = [options, out] {
      *out = FileInFolder(*out, "sim.json");
      RequireCountInRange("--min-workers", options->min_workers, 1, kMaxGpus);
      RequireOptionInRange("--ns-per-float", options->ns_per_float, 1e-6, 1e6);
      RequireOptionInRange("--dedicated-cores", options->dedicated_cores, 0, 1e6);
      RequireOptionInRange("--sample-s", options->sample_s, 1, kMaxTraceSeconds);
      RequireOptionInRange("--burst-fraction", options->burst_fraction, 1e-3, 1);
      RequireCountInRange("--max-jobs", options->max_jobs, 0,
                          static_cast<long long>(kMaxTraceJobs));
      const paramsvc::TraceSimResult r = paramsvc::SimulateTrace(*options);
      auto saving = [](double service, double dedicated) {
        return dedicated > 0 ? 100.0 * (1 - service / dedicated) : 0.0;
      };
      std::printf(
          "trace jobs %lld, PS jobs (>= %d GPUs, typed) %lld, shards %lld, "
          "migrations %lld, span %.1f days\n",
          r.trace_jobs, options->min_workers, r.ps_jobs, r.shards, r.migrations, r.span_s / 86400);
      std::printf("| cores | dedicated | service | saving | demand |\n|---|---|---|---|---|\n");
      std::printf("| peak | %.0f | %.0f | %.1f%% | %.2f |\n", r.peak_dedicated, r.peak_service,
                  saving(r.peak_service, r.peak_dedicated), r.peak_demand);
      std::printf("| time average | %.2f | %.2f | %.1f%% | %.2f |\n", r.mean_dedicated,
                  r.mean_service, saving(r.mean_service, r.mean_dedicated), r.mean_demand);
      if (!out->empty()) {
        Json json;
        json["trace_jobs"] = r.trace_jobs;
        json["ps_jobs"] = r.ps_jobs;
        json["shards"] = r.shards;
        json["migrations"] = r.migrations;
        json["span_s"] = r.span_s;
        json["peak"] = {{"dedicated", r.peak_dedicated},
                        {"service", r.peak_service},
                        {"demand", RoundTo(r.peak_demand, 4)}};
        json["mean"] = {{"dedicated", RoundTo(r.mean_dedicated, 4)},
                        {"service", RoundTo(r.mean_service, 4)},
                        {"demand", RoundTo(r.mean_demand, 4)}};
        json["columns"] = Json::array({"t_s", "dedicated_cores", "service_cores", "demand_cores"});
        Json rows = Json::array();
        for (const auto& s : r.samples) {
          rows.push_back(
              Json::array({s.t_s, s.dedicated_cores, s.service_cores, RoundTo(s.demand_cores, 4)}));
        }
        json["samples"] = rows;
        WriteJsonFile(*out, json);
      }
      return 0;
    };
  });
}

void AddTimedWorker(CLI::App& app, CommandAction* action) {
  struct Options {
    ps::TimedWorkerOptions worker;
    std::string server, service, token, token_file, compute_samples;
    double compute_ms = 10;
    double timeout_s = 120;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "ps-timed-worker",
      "a torch-free PS worker whose compute is a timed wait (dedicated PS or the service)");
  command->add_option("--server", options->server, "a dedicated PS, HOST:PORT");
  command->add_option("--service", options->service, "the Parameter Service, HOST:PORT");
  command->add_option("--token", options->token, "the job's token (32 hex digits)");
  command->add_option("--token-file", options->token_file, "a file holding the job's token");
  command->add_option("--job", options->worker.job, "job name")->capture_default_str();
  command->add_option("--rank", options->worker.rank, "this worker's rank in the job")
      ->capture_default_str();
  command->add_option("--workers", options->worker.workers, "workers of the job")
      ->capture_default_str();
  command
      ->add_option("--parameters", options->worker.parameters,
                   "model parameters (floats) pushed and pulled")
      ->capture_default_str();
  command->add_option("--iters", options->worker.iterations, "iterations to run")
      ->capture_default_str();
  command->add_option("--compute-ms", options->compute_ms, "compute time per iteration")
      ->capture_default_str();
  command->add_option("--compute-samples", options->compute_samples,
                      "a CSV with a compute_s column (a ps-worker --out file): draw per "
                      "iteration from it instead");
  command->add_option("--seed", options->worker.seed, "seed of the deterministic gradients")
      ->capture_default_str();
  command
      ->add_option("--start-at", options->worker.start_at_wall_s,
                   "wall-clock time (s since the epoch) to start at")
      ->capture_default_str();
  command
      ->add_option("--timeout-s", options->timeout_s, "a silent peer fails after this many seconds")
      ->capture_default_str();
  command->add_option("--out", options->worker.out,
                      "output folder (writes worker<RANK>.csv, per iteration)");
  command->add_flag("--quiet", options->worker.quiet, "no progress on stderr");
  command->callback([options, action] {
    *action = [options] {
      if (options->server.empty() == options->service.empty()) {
        throw UsageError("give exactly one of --server (dedicated PS) and --service");
      }
      RequireOptionInRange("--compute-ms", options->compute_ms, 0, 3.6e6);
      RequireOptionInRange("--timeout-s", options->timeout_s, 1e-3, 1e6);
      RequireCountInRange("--workers", options->worker.workers, 1, kMaxPsWorkers);
      RequireOptionInRange("--start-at", options->worker.start_at_wall_s, 0, kMaxWallClockS);
      options->worker.out = FileInFolder(options->worker.out,
                                         "worker" + std::to_string(options->worker.rank) + ".csv");
      options->worker.compute_s = options->compute_ms / 1000;
      if (!options->compute_samples.empty()) {
        options->worker.compute_samples_s = ReadColumn(options->compute_samples, "compute_s");
      }
      const wire::Token token = wire::ResolveToken(options->token, options->token_file, false);
      std::unique_ptr<ps::ParameterClient> client;
      if (!options->service.empty()) {
        client = std::make_unique<paramsvc::ServiceClient>(options->service, options->worker.rank,
                                                           options->worker.workers,
                                                           options->timeout_s, token);
      } else {
        std::string host;
        int port = 0;
        wire::ParseHostPort(options->server, "--server", &host, &port);
        client = std::make_unique<ps::PsClient>(host, port, options->worker.rank,
                                                options->worker.workers, options->timeout_s, token);
      }
      const ps::TimedWorkerResult result = ps::RunTimedWorker(options->worker, *client);
      uint64_t hash = 1469598103934665603ull;  // FNV-1a over the final parameters' bits
      for (float value : result.final_parameters) {
        uint32_t bits = 0;
        std::memcpy(&bits, &value, 4);
        for (int b = 0; b < 4; ++b) hash = (hash ^ ((bits >> (8 * b)) & 0xff)) * 1099511628211ull;
      }
      std::printf(
          "{\"job\": \"%s\", \"rank\": %d, \"start_wall_s\": %.4f, \"end_wall_s\": %.4f, "
          "\"jct_s\": %.4f, \"replayed_iterations\": %llu, \"rollbacks\": %d, "
          "\"parameters_fnv1a\": \"%016llx\"}\n",
          options->worker.job.c_str(), options->worker.rank, result.start_wall_s, result.end_wall_s,
          result.end_wall_s - result.start_wall_s,
          static_cast<unsigned long long>(result.replayed_iterations), result.rollbacks,
          static_cast<unsigned long long>(hash));
      return 0;
    };
  });
}

}  // namespace

void AddParamsvcCommands(CLI::App& app, CommandAction* action) {
  AddCoordinator(app, action);
  AddAggregator(app, action);
  AddRegister(app, action);
  AddStatus(app, action);
  AddSim(app, action);
  AddTimedWorker(app, action);
}

}  // namespace jigsaw
