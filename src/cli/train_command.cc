// `jigsaw train`: data-parallel training with structured partial backpropagation (src/runtime).
#include "cli/commands.h"
#include "core/data_files.h"
#include "core/output_folder.h"
#include "runtime/runtime.h"

namespace jigsaw {
namespace {

void AddDataOptions(CLI::App* command, DataOptions* data) {
  command->add_option("--dataset", data->dataset, "fashion-mnist, cifar10 or synthetic")
      ->capture_default_str();
  command->add_option("--data-dir", data->data_dir,
                      "Fashion-MNIST IDX folder (default /usr/share/datasets/fashion-mnist); "
                      "CIFAR-10 .tar.gz, JPEG ImageFolder or binary-batch folder (default " +
                          SharedDataPathHelp("datasets/cifar10/cifar10-jpeg.tar.gz") + ")");
  command->add_option("--cache-dir", data->cache_dir,
                      "where decoded CIFAR-10 JPEGs are cached (default ~/.cache/jigsaw)");
  command
      ->add_option("--augment", data->augment,
                   "random crop (4 px padding) + horizontal flip: auto (cifar10), on, off")
      ->capture_default_str();
  command
      ->add_option("--train-samples", data->train_samples,
                   "use a fixed subset of this many training samples (0 = all)")
      ->capture_default_str();
  command->add_option("--synthetic-train", data->synthetic_train, "synthetic training samples")
      ->capture_default_str();
  command->add_option("--synthetic-test", data->synthetic_test, "synthetic test samples")
      ->capture_default_str();
  command->add_option("--synthetic-size", data->synthetic_size, "synthetic image side (pixels)")
      ->capture_default_str();
}

}  // namespace

void AddTrainCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<TrainOptions>();
  CLI::App* command = app.add_subcommand(
      "train", "data-parallel training with structured partial backpropagation (LibTorch + Gloo)");
  command->add_option("--model", options->model, "mlp, lenet, resnet, resnet20 or resnet18")
      ->capture_default_str();
  AddDataOptions(command, &options->data);
  command->add_option("--workers", options->workers, "local worker processes")
      ->capture_default_str();
  command
      ->add_option("--spb", options->spb,
                   "plan: full, staircase, rotating, freeze:D, depths d0,d1,... or adaptive")
      ->capture_default_str();
  command
      ->add_option("--spb-scale", options->spb_scale,
                   "a block's gradient: contributors (mean over its contributors), world (sum / "
                   "workers) or lr (mean, learning rate x contributors / workers)")
      ->capture_default_str();
  command
      ->add_option("--exchange", options->exchange,
                   "balanced (all-to-all + all-gather) or tree (all-reduce + broadcast per "
                   "contributor set)")
      ->capture_default_str();
  command
      ->add_option("--overlap", options->overlap, "overlap the exchange with backward (balanced)")
      ->capture_default_str();
  command->add_option("--bucket-kb", options->bucket_kb, "gradient bucket cap (KiB)")
      ->capture_default_str();
  CLI::Option* warmup_epochs =
      command->add_option("--spb-warmup", options->spb_warmup_epochs,
                          "adaptive: epochs of full backpropagation first (instead of "
                          "--spb-warmup-fraction)");
  command
      ->add_option("--spb-warmup-fraction", options->spb_warmup_fraction,
                   "adaptive: share of the run's iterations at full backpropagation first")
      ->capture_default_str()
      ->excludes(warmup_epochs);
  command->add_option("--spb-window", options->spb_window, "adaptive: iterations per decision")
      ->capture_default_str();
  command
      ->add_option("--spb-freeze-below", options->spb_freeze_below,
                   "adaptive: plasticity under which a block may freeze")
      ->capture_default_str();
  command
      ->add_option("--spb-full-above", options->spb_full_above,
                   "adaptive: plasticity from which every worker trains a block")
      ->capture_default_str();
  command
      ->add_option("--spb-patience", options->spb_patience,
                   "adaptive: windows below the freeze mark before freezing")
      ->capture_default_str();
  command
      ->add_option("--spb-span", options->spb_span,
                   "adaptive: blocks whose mean plasticity decides the lowest one's freeze")
      ->capture_default_str();
  command
      ->add_option("--spb-min-trained-blocks", options->spb_min_trained_blocks,
                   "adaptive: top blocks never frozen")
      ->capture_default_str();
  command
      ->add_option("--spb-structure", options->spb_structure,
                   "adaptive: freeze (every worker the same depth), staircase or rotating")
      ->capture_default_str();
  command
      ->add_option("--spb-signal", options->spb_signal,
                   "adaptive: auto (coherence with structure freeze, else plasticity), plasticity "
                   "(weight velocity against the median block) or coherence (net displacement / "
                   "path length of a block's weights; structure freeze)")
      ->capture_default_str();
  command
      ->add_option("--spb-frozen-chunk", options->spb_frozen_chunk,
                   "samples per micro-batch through the frozen blocks (no batch norm); 0 = the "
                   "whole batch")
      ->capture_default_str();
  command->add_option("--epochs", options->epochs, "passes over the training set")
      ->capture_default_str();
  command->add_option("--batch", options->batch, "batch size per worker")->capture_default_str();
  command
      ->add_option("--max-iters-per-epoch", options->max_iters_per_epoch,
                   "cap on iterations per epoch (0: full pass)")
      ->capture_default_str();
  command->add_option("--lr", options->lr, "SGD learning rate")->capture_default_str();
  command->add_option("--lr-schedule", options->lr_schedule, "constant, cosine or step")
      ->capture_default_str();
  command->add_option("--momentum", options->momentum, "SGD momentum")->capture_default_str();
  command->add_option("--weight-decay", options->weight_decay, "SGD weight decay (L2)")
      ->capture_default_str();
  command
      ->add_option("--eval-every", options->eval_every,
                   "also evaluate every N iterations (0 = after each epoch only); evals.csv")
      ->capture_default_str();
  command
      ->add_option("--eval-samples", options->eval_samples,
                   "test samples of those evaluations: a fixed random subset (0 = all)")
      ->capture_default_str();
  command->add_option("--seed", options->seed, "seed of the model, the data order and augmentation")
      ->capture_default_str();
  command->add_option("--threads", options->threads, "intra-op threads per worker")
      ->capture_default_str();
  command
      ->add_option("--device", options->device,
                   "cpu, or with a CUDA LibTorch cuda (worker k on GPU k mod GPUs) or cuda:N "
                   "(every worker on GPU N); docs/runtime.md")
      ->capture_default_str();
  command->add_flag("--stage-through-host", options->stage_through_host,
                    "on the CPU: exchange through host copies as on a GPU (same results)");
  command->add_option("--out", options->out, "output folder")->capture_default_str();
  command->add_flag("--resume", options->resume, "continue from OUT/checkpoint.pt if present");
  command->add_flag("--quiet", options->quiet, "no progress on stderr");
  command->add_option("--rank", options->rank, "this process's rank (multi-host; omit to launch)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  command->add_option("--world", options->world, "number of ranks (with --rank)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  command->add_option("--master", options->master, "rendezvous HOST:PORT (rank 0 hosts it)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->capture_default_str();
  command->add_option("--token-file", options->token_file,
                      "the job's token file, required with --rank (rank 0 creates it if missing)");
  command
      ->add_option("--rendezvous-file", options->rendezvous_file,
                   "rendezvous through this file (set by the local launcher)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->group("");
  command->add_option("--gloo-host", options->gloo_host,
                      "address peers reach this rank at (default: 127.0.0.1 for local workers "
                      "or a local master, else the address of this machine's interface towards "
                      "the master; docs/runtime.md)");
  command
      ->add_option("--timeout-s", options->timeout_s,
                   "communication timeout: a dead or stalled peer fails the job after this")
      ->capture_default_str();
  command->add_option("--profile", options->profile,
                      "`jigsaw profile` output: adds cost-model predictions to summary.json");
  command->add_option("--kill-rank", options->kill_rank, "fault injection: rank to kill")
      ->group("");
  command->add_option("--kill-at-iter", options->kill_at_iter, "fault injection: iteration")
      ->group("");
  command
      ->add_flag("--stall-instead-of-kill", options->stall_instead_of_kill,
                 "fault injection: SIGSTOP instead of SIGKILL")
      ->group("");
  command->add_option("--corrupt-rank", options->corrupt_rank, "fault injection: rank to corrupt")
      ->group("");
  command
      ->add_option("--corrupt-at-epoch", options->corrupt_at_epoch,
                   "fault injection: epoch whose replica check sees the corruption")
      ->group("");
  command
      ->add_option("--kill-at-commit-epoch", options->kill_at_commit_epoch,
                   "fault injection: epoch whose output commit rank 0 is killed in")
      ->group("");
  command
      ->add_option("--kill-at-commit-step", options->kill_at_commit_step,
                   "fault injection: the commit step after which it is killed")
      ->group("");
  command->callback([options, action] { *action = [options] { return RunTrain(*options); }; });
}

void AddProfileCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<ProfileOptions>();
  options->out = "out/profile";  // a folder: profile.json is written inside
  CLI::App* command =
      app.add_subcommand("profile", "per-block forward/backward times and sizes of a model");
  command->add_option("--model", options->model, "mlp, lenet, resnet, resnet20 or resnet18")
      ->capture_default_str();
  AddDataOptions(command, &options->data);
  command->add_option("--batch", options->batch, "batch size")->capture_default_str();
  command->add_option("--repeats", options->repeats, "timed repetitions (median reported)")
      ->capture_default_str();
  command->add_option("--threads", options->threads, "intra-op threads")->capture_default_str();
  command->add_option("--seed", options->seed, "seed of the model and the profiled batch")
      ->capture_default_str();
  command->add_option("--out", options->out, "output folder (writes profile.json)")
      ->capture_default_str();
  command
      ->add_option("--comm-workers", options->comm_workers,
                   "also fit Gloo allreduce/broadcast latency and bandwidth for 2..N local "
                   "ranks (0 = skip)")
      ->capture_default_str();
  command->add_option("--comm-repeats", options->comm_repeats, "timed collectives per size")
      ->capture_default_str();
  command
      ->add_option("--step-workers", options->step_workers,
                   "also time whole SPB steps at every depth with N concurrent replicas "
                   "(0 = skip)")
      ->capture_default_str();
  command->callback([options, action] {
    *action = [options] {
      options->out = FileInFolder(options->out, "profile.json");
      return RunProfile(*options);
    };
  });
}

}  // namespace jigsaw
