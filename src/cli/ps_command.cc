// `jigsaw ps` (the parameter server of one job; torch-free, runs in jigsaw) and
// `jigsaw ps-worker` (a LibTorch worker; runs in jigsaw-runtime). See docs/tensorlights.md.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "core/limits.h"
#include "core/output.h"
#include "core/output_folder.h"
#include "ps/server.h"

namespace jigsaw {

void AddPsCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<ps::ServerOptions>();
  CLI::App* command = app.add_subcommand(
      "ps", "parameter server of one synchronous-SGD job (workers: jigsaw ps-worker)");
  command->add_option("--job", options->job, "job name (in logs and the output)")
      ->capture_default_str();
  command
      ->add_option("--host", options->host,
                   "address to listen on (0.0.0.0: every interface, for workers on other hosts)")
      ->capture_default_str();
  auto token = std::make_shared<std::pair<std::string, std::string>>();
  command->add_option("--token", token->first,
                      "the job's secret token, 32 hex digits (visible in ps(1): prefer "
                      "--token-file)");
  command->add_option("--token-file", token->second,
                      "a file holding the job's token; created with a random one if missing");
  command
      ->add_option("--handshake-timeout-s", options->handshake_timeout_s,
                   "close a connection that has not said hello within this long")
      ->capture_default_str();
  command
      ->add_option("--max-pending", options->max_pending,
                   "connections waiting for their hello at once (more are closed)")
      ->capture_default_str();
  command->add_option("--port", options->port, "TCP port (0: any free port)")
      ->capture_default_str();
  command->add_option("--workers", options->workers, "workers of this job")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command->add_option("--lr", options->lr, "SGD learning rate")->capture_default_str();
  command->add_option("--momentum", options->momentum, "SGD momentum")->capture_default_str();
  command
      ->add_option("--timeout-s", options->timeout_s,
                   "fail the job when a worker makes no progress for this long")
      ->capture_default_str();
  command->add_option("--out", options->out, "output folder (writes server.json, statistics)");
  auto port_file = std::make_shared<std::string>();
  command->add_option("--port-file", *port_file,
                      "write the listening port here once listening (with --port 0)");
  command->add_flag("--quiet", options->quiet, "no progress on stderr");
  command->callback([options, port_file, token, action] {
    if (!port_file->empty()) {
      options->on_listening = [port_file](int port) {
        WriteFileAtomically(*port_file, std::to_string(port) + "\n");
      };
    }
    *action = [options, token] {
      options->out = FileInFolder(options->out, "server.json");
      RequireCountInRange("--workers", options->workers, 1, kMaxPsWorkers);
      RequireCountInRange("--port", options->port, 0, 65535);
      RequireOptionInRange("--lr", options->lr, 0, 1e3);
      RequireOptionInRange("--momentum", options->momentum, 0, 1);
      RequireOptionInRange("--timeout-s", options->timeout_s, 1e-3, 1e6);
      RequireOptionInRange("--handshake-timeout-s", options->handshake_timeout_s, 1e-3, 3600);
      RequireCountInRange("--max-pending", options->max_pending, 1, 1024);
      options->token = wire::ResolveToken(token->first, token->second, true);
      ps::ServerStats stats = ps::RunParameterServer(*options);
      if (!options->quiet) {
        std::fprintf(stderr,
                     "jigsaw: ps %s: %llu steps of %zu parameters in %.2f s; %llu stray "
                     "connections refused\n",
                     options->job.c_str(), static_cast<unsigned long long>(stats.steps),
                     stats.parameters, stats.end_wall_s - stats.start_wall_s,
                     static_cast<unsigned long long>(stats.refused_connections));
      }
      return 0;
    };
  });
}

}  // namespace jigsaw
