// Entry points of the SPB training runtime for the CLI. This header is torch-free on purpose: the
// CLI and anything else outside src/runtime never include LibTorch headers.
//
// RunTrain: data-parallel training with structured partial backpropagation (see spb_plan.h). With
// rank < 0 it launches `workers` local worker processes (re-executing this binary with --rank k)
// and waits for them; with rank >= 0 it runs that one rank of a `world`-rank job whose
// rendezvous (runtime/rendezvous_store.h: on the master address only, every rank proves the
// job's token first) is at `master` (rank 0 hosts it). Rank 0 writes out/iterations.csv (one row
// per worker and iteration), out/summary.json and, after every epoch, out/checkpoint.pt
// (atomically). Returns the process exit code; a failed or vanished peer makes every survivor exit
// non-zero with a message naming the failure, within about timeout_s.
//
// RunProfile: per-block forward/backward timings and sizes of a model, the per-iteration work
// outside the blocks and optionally a fitted communication model, written as JSON (format in
// docs/runtime.md).
#ifndef JIGSAW_RUNTIME_RUNTIME_H_
#define JIGSAW_RUNTIME_RUNTIME_H_

#include <cstdint>
#include <string>

namespace jigsaw {

struct DataOptions {
  std::string dataset = "fashion-mnist";  // fashion-mnist, cifar10 or synthetic (train_data.h)
  std::string data_dir;                   // "" = the data set's default location
  std::string cache_dir;                  // "" = $XDG_CACHE_HOME/jigsaw or ~/.cache/jigsaw
  std::string augment = "auto";           // auto (cifar10 only), on, off
  int train_samples = 0;                  // > 0: a fixed subset of the training set
  int synthetic_train = 2048;
  int synthetic_test = 512;
  int synthetic_size = 28;
  int synthetic_classes = 10;
};

struct TrainOptions {
  std::string model = "mlp";
  DataOptions data;
  std::string spb = "full";
  int workers = 1;
  int epochs = 1;
  int batch = 64;               // per worker
  int max_iters_per_epoch = 0;  // 0: a full pass over the training set
  double lr = 0.05;
  double momentum = 0.9;
  double weight_decay = 0;
  std::string lr_schedule = "constant";  // constant, cosine (to 0 at the last iteration), step
                                         // (x0.1 at 50% and 75% of the iterations)
  // How a block's summed gradient is scaled: contributors, world or lr (spb/balanced_exchange.h).
  std::string spb_scale = "world";
  // balanced (all-to-all + all-gather, spb/balanced_exchange.h) or tree (per-contributor-set
  // all-reduce + broadcast, the first exchange; no overlap, static plans only).
  std::string exchange = "balanced";
  bool overlap = true;  // balanced exchange: overlap it with the backward pass
  int bucket_kb = 256;  // gradient bucket cap
  // --spb adaptive (spb/adaptive_plan.h). The defaults are the configuration chosen by the rule
  // of docs/runtime.md "Adaptive defaults" (tuned on seeds 0-2, confirmed on held-out seeds).
  // Warm-up: `spb_warmup_epochs` epochs when >= 0, else `spb_warmup_fraction` of the run.
  double spb_warmup_epochs = -1;
  double spb_warmup_fraction = 0.4;
  int spb_window = 100;
  double spb_freeze_below = 0.8;
  double spb_full_above = 1.2;
  int spb_patience = 1;
  int spb_span = 1;
  int spb_min_trained_blocks = 3;
  std::string spb_structure = "freeze";
  std::string spb_signal = "auto";  // coherence with structure freeze, else plasticity
  // Samples per micro-batch through a frozen prefix (spb_worker.h RunSpbStep); 0 = whole batch.
  int spb_frozen_chunk = 8;
  // Test evaluation every `eval_every` iterations (0 = only after each epoch) on `eval_samples`
  // test samples (0 = all) drawn once with a fixed seed, the same in every run; evals.csv.
  int eval_every = 0;
  int eval_samples = 0;
  uint64_t seed = 0;
  int threads = 1;  // intra-op threads per worker
  // Where the model trains: "cpu", or "cuda" (rank k on cuda:(k mod GPUs)) / "cuda:N" with a CUDA
  // LibTorch; on a GPU the collectives run on host copies (runtime/host_staging.h), so several
  // workers may share a GPU. Checkpoints load on any device.
  std::string device = "cpu";
  // On the CPU: run the collectives on host copies anyway, the GPU's path (bitwise the same
  // results; for tests).
  bool stage_through_host = false;
  std::string out = "out/train";
  bool resume = false;
  bool quiet = false;
  // Multi-host: this process is `rank` of `world`; rank < 0 launches `workers` local processes.
  int rank = -1;
  int world = 0;
  std::string master = "127.0.0.1:29500";
  // The job's token (32 hex digits) that every rank proves to the rendezvous; rank 0 creates the
  // file (mode 0600, a random token) when it is missing. Required with `rank`.
  std::string token_file;
  // Local workers started by the launcher rendezvous through this file (a c10d::FileStore in a
  // private folder) instead of a TCPStore at `master`.
  std::string rendezvous_file;
  // Address peers reach this rank's Gloo transport at; "" = 127.0.0.1 when the master is local,
  // else the address of this machine's interface towards the master (net_address.h).
  std::string gloo_host;
  double timeout_s = 30;
  std::string profile;  // optional `jigsaw profile` output: adds cost-model predictions
  // Fault injection for tests: worker `kill_rank`, at global iteration kill_at_iter, SIGKILLs
  // itself (or SIGSTOPs itself when stall_instead_of_kill: a hung peer).
  int kill_rank = -1;
  int kill_at_iter = -1;
  bool stall_instead_of_kill = false;
  // Fault injection for tests: rank `corrupt_rank` perturbs a parameter before the replica
  // checksum of epoch `corrupt_at_epoch` (0-based), which must then fail the job.
  int corrupt_rank = -1;
  int corrupt_at_epoch = 0;
  // Fault injection for tests: rank 0 SIGKILLs itself right after step `kill_at_commit_step` of
  // epoch `kill_at_commit_epoch`'s (0-based) output commit (core/result_set.h names the steps).
  int kill_at_commit_epoch = -1;
  std::string kill_at_commit_step;
};

struct ProfileOptions {
  std::string model = "mlp";
  DataOptions data;
  int batch = 64;
  int repeats = 20;
  int threads = 1;
  uint64_t seed = 0;
  std::string out = "profile.json";
  // Communication calibration: for n = 2 .. comm_workers, n local processes (this one and forked
  // copies, Gloo over TCP on 127.0.0.1, as `jigsaw train` runs) time allreduces and broadcasts of
  // 4 payload sizes the way training issues them (after a training step, then back to back),
  // `comm_repeats` each; the fitted latency and bandwidth go into the profile's "comm" section.
  // 0 = no calibration (the profile then has no "comm" section).
  int comm_workers = 0;
  int comm_repeats = 30;
  // Whole-iteration compute at every depth through the training code path, with `step_workers`
  // processes running concurrently (as that many local workers share the machine's cores);
  // the profile's "steps" section. 0 = skip.
  int step_workers = 0;
};

int RunTrain(const TrainOptions& options);
int RunProfile(const ProfileOptions& options);

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_RUNTIME_H_
