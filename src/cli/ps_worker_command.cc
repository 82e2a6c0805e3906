// `jigsaw ps-worker`: one synchronous-SGD worker of a parameter-server job (LibTorch; runs in
// jigsaw-runtime). See src/ps/worker.h.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "core/output.h"
#include "core/output_folder.h"
#include "core/wire_message.h"
#include "paramsvc/service_client.h"
#include "ps/worker.h"

namespace jigsaw {

void AddPsWorkerCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<ps::PsWorkerOptions>();
  CLI::App* command =
      app.add_subcommand("ps-worker", "one worker of a parameter-server job (jigsaw ps)");
  command->add_option("--job", options->job, "job name (in the CSV)")->capture_default_str();
  command->add_option("--server", options->server, "the job's server, HOST:PORT")
      ->capture_default_str();
  auto service = std::make_shared<std::string>();
  command->add_option("--service", *service,
                      "the Parameter Service's coordinator, HOST:PORT (instead of --server)");
  command->add_option("--rank", options->rank, "this worker's rank")->capture_default_str();
  command->add_option("--workers", options->workers, "workers of the job")->capture_default_str();
  command->add_option("--model", options->model, "mlp, lenet or resnet")->capture_default_str();
  command->add_option("--synthetic-size", options->synthetic_size, "synthetic image side")
      ->capture_default_str();
  command->add_option("--synthetic-train", options->synthetic_train, "synthetic training samples")
      ->capture_default_str();
  command->add_option("--synthetic-test", options->synthetic_test, "synthetic test samples")
      ->capture_default_str();
  command->add_option("--iters", options->iterations, "iterations (synchronous steps)")
      ->capture_default_str();
  command->add_option("--batch", options->batch, "batch size per worker")->capture_default_str();
  command->add_option("--seed", options->seed, "model and data seed (same on all workers)")
      ->capture_default_str();
  command->add_option("--threads", options->threads, "intra-op threads")->capture_default_str();
  command->add_option("--timeout-s", options->timeout_s, "give up when the server is silent")
      ->capture_default_str();
  command->add_option("--token", options->token,
                      "the job's secret token (32 hex digits; visible in ps(1): prefer "
                      "--token-file)");
  command->add_option("--token-file", options->token_file,
                      "a file holding the job's token (as written by jigsaw ps --token-file)");
  command->add_option("--start-at", options->start_at_wall_s,
                      "wall-clock time (s since the epoch) to start at, after loading");
  command->add_option("--out", options->out,
                      "output folder (writes worker<RANK>.csv, per iteration)");
  command->add_flag("--quiet", options->quiet, "no progress on stderr");
  command
      ->add_option("--poison-at-iter", options->poison_at_iter,
                   "fault injection: push a NaN gradient at this iteration")
      ->group("");
  command->callback([options, service, action] {
    *action = [options, service] {
      options->out = FileInFolder(options->out, "worker" + std::to_string(options->rank) + ".csv");
      ps::PsWorkerResult result =
          service->empty()
              ? ps::RunPsWorker(*options)
              : ps::RunPsWorker(*options, [&]() -> std::unique_ptr<ps::ParameterClient> {
                  return std::make_unique<paramsvc::ServiceClient>(
                      *service, options->rank, options->workers, options->timeout_s,
                      wire::ResolveToken(options->token, options->token_file, false));
                });
      // test_accuracy: null on the workers that do not evaluate (all but rank 0).
      Json line = {{"job", options->job},
                   {"rank", options->rank},
                   {"parameters", result.parameters},
                   {"first_loss", RoundTo(result.first_loss, 5)},
                   {"last_loss", RoundTo(result.last_loss, 5)},
                   {"test_accuracy",
                    result.test_accuracy >= 0 ? Json(RoundTo(result.test_accuracy, 4)) : Json()}};
      std::printf("%s\n", line.dump().c_str());
      return 0;
    };
  });
}

}  // namespace jigsaw
