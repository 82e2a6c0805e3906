// Magnitude limits of every numeric input, as policy rather than accident.
//
// docs/limits.md is the users' table of these values. Readers check them at read time and throw
// InputError naming file:line; the CLI checks options and throws UsageError naming the option;
// both end in exit code 2. The limits are far above every real input in ../shared/data (the
// largest values seen there are noted beside each), and low enough that nothing downstream can
// overflow, allocate without bound or run without end. Messages never echo more than
// kMaxEchoBytes of the offending input (Excerpt).
#ifndef JIGSAW_CORE_LIMITS_H_
#define JIGSAW_CORE_LIMITS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace jigsaw {

// Any input file (traces, JSON, topologies, workloads): read at most this many bytes.
inline constexpr size_t kMaxInputBytes = size_t{256} << 20;
// JSON nesting (objects and arrays); the deepest real file nests 4 levels.
inline constexpr int kMaxJsonDepth = 64;
// Input quoted in an error message, and an error message as a whole.
inline constexpr size_t kMaxEchoBytes = 64;
inline constexpr size_t kMaxErrorBytes = 1024;

// Traces (largest real values: 82,247 jobs; arrival 1.1e7 s; duration 4.6e6 s; 8.8e8 steps;
// 447,534 epochs; 128 GPUs; batch 8,192).
inline constexpr size_t kMaxTraceJobs = 10'000'000;
inline constexpr double kMaxTraceSeconds = 1e8;  // arrival, duration, isolated run time
inline constexpr double kMaxTotalSteps = 1e12;
inline constexpr long long kMaxEpochs = 1'000'000;
inline constexpr int kMaxGpus = 1 << 20;  // scale factor, --gpus, --gpus-per-node
inline constexpr int kMaxBatchSize = 1 << 20;
inline constexpr double kMaxPriorityWeight = 1e6;
inline constexpr double kMaxAbsSlo = 1e9;
// Throughputs (iterations/s) in throughputs.json.
inline constexpr double kMaxThroughput = 1e9;

// Block profiles and measured efficiencies (JSON written by jigsaw profile / bench scripts).
inline constexpr double kMaxProfileSeconds = 1e6;  // any time in a profile
inline constexpr double kMaxProfileBytes = 1e15;   // parameter / activation bytes of a block
inline constexpr long long kMaxProfileBlocks = 100'000;
inline constexpr long long kMaxWorkers = 1'000'000;  // workers / members in profiles and tables

// jigsaw train: local worker processes.
inline constexpr long long kMaxLocalWorkers = 1024;

// Parameter-server jobs (jigsaw ps, ps-worker, tlights-report).
inline constexpr long long kMaxPsIterations = 10'000'000;
inline constexpr long long kMaxPsWorkers = 100'000;
inline constexpr double kMaxWallClockS = 1e11;  // seconds since the Unix epoch

// The cluster simulator.
inline constexpr double kMinRoundS = 1e-3;
inline constexpr double kMaxRoundS = 1e7;
inline constexpr double kMaxSimSeconds = 1e9;  // --min-reallocation-interval-s, overheads
inline constexpr double kMaxDeadlineFactor = 1e6;
inline constexpr long long kMaxSimRounds = 10'000'000;  // Philly on 2,048 GPUs: 78,195
// Rounds in a row in which no job ran an iteration, arrived or finished.
inline constexpr long long kMaxIdleRounds = 100'000;

// The packet simulator (Time is in picoseconds).
inline constexpr int64_t kMaxNetTimePs = 1'000'000'000'000'000'000;   // 10^6 s simulated
inline constexpr int64_t kMaxLinkDelayPs = 1'000'000'000'000;         // 1 s
inline constexpr uint64_t kMaxCollectiveBytes = 100'000'000'000;      // 100 GB per collective
inline constexpr uint64_t kMaxComputeCycles = 1'000'000'000'000'000;  // 10^15 per layer step
inline constexpr int kMaxChunks = 1024;
inline constexpr int kMaxNetIterations = 1'000'000;
inline constexpr size_t kMaxNetFlowFileFlows = 10'000'000;  // flows of a flow file or generator
inline constexpr int kMaxActiveCollectives = 1024;
inline constexpr double kMaxCycleNs = 1e6;
inline constexpr long long kMaxTopologyNodes = 10'000'000;
inline constexpr long long kMaxTopologyLinks = 10'000'000;

// At most kMaxEchoBytes of `text`, non-printable bytes as \xNN, "..." and the total size
// appended when cut.
std::string Excerpt(std::string_view text);
// `message` cut to kMaxErrorBytes (head and tail kept), non-printable bytes as \xNN.
std::string BoundedMessage(std::string_view message);

// Throw UsageError "<option> must be in [lo, hi] (docs/limits.md), got <value>" unless
// lo <= value <= hi (NaN is never in range).
void RequireOptionInRange(std::string_view option, double value, double lo, double hi);
void RequireCountInRange(std::string_view option, long long value, long long lo, long long hi);

// Formats a number for messages: integers exactly, others with up to 6 significant digits.
std::string FormatNumber(double value);

}  // namespace jigsaw

#endif  // JIGSAW_CORE_LIMITS_H_
