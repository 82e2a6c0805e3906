// Options of the packet simulator's parameter-server jobs (`jigsaw net --ps-jobs`, ps_jobs.h):
// the command line binds flags to PsJobsOptions' fields, Validate() turns them into a typed
// PsJobsSpec or throws UsageError naming the option and what was expected.
#ifndef JIGSAW_NET_PS_OPTIONS_H_
#define JIGSAW_NET_PS_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "net/units.h"
#include "tlights/band_schedule.h"

namespace jigsaw::net {

// Models by name; the parameters are 4-byte floats on the wire (push and pull alike).
struct PsModelEntry {
  const char* name;
  uint64_t parameters;
  const char* what;
};
inline constexpr PsModelEntry kPsModels[] = {
    {"mlp", 242'762, "jigsaw ps-worker's MLP on 28x28 inputs"},
    {"resnet20", 272'474, "ResNet-20 for CIFAR-10"},
    {"resnet32", 464'154, "ResNet-32 for CIFAR-10 (TensorLights' model)"},
    {"resnet56", 855'770, "ResNet-56 for CIFAR-10"},
    {"resnet110", 1'730'714, "ResNet-110 for CIFAR-10"},
    {"resnet50", 25'557'032, "ResNet-50 for ImageNet"},
    {"vgg16", 138'357'544, "VGG-16 for ImageNet"},
};
std::string PsModelNames();  // "mlp, resnet20, ..."

// Where a job's workers run (its PS runs on host job mod --ps-hosts).
enum class PsPlacement : uint8_t { kSpread, kRandom };
struct PsPlacementEntry {
  PsPlacement placement;
  const char* name;
  const char* meaning;
};
inline constexpr PsPlacementEntry kPsPlacements[] = {
    {PsPlacement::kSpread, "spread",
     "worker k on the (k+1)-th host after the job's PS host, cyclically"},
    {PsPlacement::kRandom, "random", "W distinct hosts other than the PS host, seeded"},
};

inline constexpr int kMaxPsJobs = 4096;
inline constexpr int kMaxPsJobWorkers = 4096;
inline constexpr int kMaxPsJobIterations = 1'000'000;

struct PsJobsSpec {
  int jobs = 0;
  int workers = 0;
  int iterations = 10;
  uint64_t model_bytes = 0;
  std::string model;          // name, or "" when given in bytes
  Time compute = 0;           // per worker and iteration, unless samples are given
  double jitter = 0;          // compute x (1 + jitter x U(-1, 1))
  std::vector<Time> samples;  // drawn uniformly per worker and iteration when non-empty
  std::string compute_file;   // where the samples came from
  int ps_hosts = 1;
  PsPlacement placement = PsPlacement::kSpread;
  tlights::Policy policy = tlights::Policy::kFifo;
  double rotate_interval_s = 20;
  bool downlink = false;  // extension: the pushes' switch priority follows the job's band
  uint64_t seed = 1;
};

struct PsJobsOptions {
  int jobs = 0;                 // --ps-jobs (0: no PS jobs)
  int workers = 0;              // --ps-workers
  std::string model;            // --ps-model NAME
  std::string model_bytes;      // --ps-model-bytes SIZE
  std::string compute;          // --ps-compute DURATION (default 0s)
  std::string compute_file;     // --ps-compute-file CSV
  std::string compute_jitter;   // --ps-compute-jitter FRACTION
  int iterations = 0;           // --ps-iterations (0: not given, 10)
  int ps_hosts = 0;             // --ps-hosts (0: not given, 1)
  std::string placement;        // --ps-placement (default spread)
  std::string host_priority;    // --host-priority (default fifo)
  std::string rotate_interval;  // --rotate-interval (default 20s)
  std::string downlink;         // --ps-downlink-priority on|off (default off)
  uint64_t seed = 1;            // --seed

  // Whether any --ps-* / --host-priority / --rotate-interval option was given.
  bool any_given() const;
  // Checks every field and their combinations; reads --ps-compute-file (InputError with
  // file:line). Throws UsageError naming the option.
  PsJobsSpec Validate() const;

 private:
  void ValidateModel(PsJobsSpec* spec) const;
  void ValidateCompute(PsJobsSpec* spec) const;
  void ValidatePriority(PsJobsSpec* spec) const;
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_PS_OPTIONS_H_
