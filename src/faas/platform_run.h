// `jigsaw faas` as a library call: the real platform's options as the command line gives them
// (src/cli binds each flag to one field; the names below are the flags without "--") and the run.
//
// PlatformRunOptions::Validate(catalog) checks every field and throws UsageError naming the
// option (as its flag) and what was expected: the platform name (faas::Platforms()), the queue
// policy (faas::QueuePolicies()), sizes and durations, the ranges, the options that apply to one
// platform only (--invoker-memory, --ow-pause-grace, --ow-unpause-cost: openwhisk;
// --sparrow-probes: sparrow), every function's memory against --memory and --invoker-memory, and
// a readable CIFAR-10 archive when a function resizes images. It returns the typed
// faas::PlatformOptions (faas/platform.h) with the sandbox executable `jigsaw_exe` still empty.
#ifndef JIGSAW_FAAS_PLATFORM_RUN_H_
#define JIGSAW_FAAS_PLATFORM_RUN_H_

#include <string>

#include "faas/dag.h"
#include "faas/platform.h"

namespace jigsaw::faas {

// The CIFAR-10 JPEG archive the resize functions read, under the shared data folder.
inline constexpr char kCifarArchive[] = "datasets/cifar10/cifar10-jpeg.tar.gz";

struct PlatformRunOptions {
  std::string dags;
  PlatformOptions platform;  // platform, sgs, slots, restarts, threads, HTTP bounds, port, out
  std::string policy = "rlsf";
  std::string memory = "1GiB";
  std::string invoker_memory;   // empty: --memory
  std::string ow_pause_grace;   // empty: 50ms (openwhisk only)
  std::string ow_unpause_cost;  // empty: 15ms (openwhisk only)
  std::string keep_alive = "600s";
  std::string epoch = "500ms";
  std::string request_timeout = "60s";
  std::string ready_timeout = "30s";
  std::string cifar;  // "": SharedDataPath(kCifarArchive)
  int max_retries = 1;
  std::string sparrow_probes;  // empty: 2 (sparrow only)
  bool no_proactive = false;
  std::string sandbox_memory = "512MiB";

  PlatformOptions Validate(const Catalog& catalog) const;
};

// Reads the DAG file, validates, and serves until SIGTERM (faas::RunPlatform); the sandboxes
// run this process's executable. Returns the exit status.
int RunPlatformCommand(const PlatformRunOptions& options);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_PLATFORM_RUN_H_
