#include "ps/timed_worker.h"

#include <chrono>
#include <cstdio>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/limits.h"
#include "core/output.h"
#include "core/rng.h"
#include "core/wire_message.h"
#include "ps/server.h"

namespace jigsaw::ps {
namespace {

using Clock = std::chrono::steady_clock;

// splitmix64: cheap, seedable, identical everywhere.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in [-scale, scale).
float Uniform(uint64_t key, float scale) {
  return (static_cast<float>(Mix(key) >> 40) / static_cast<float>(1 << 24) * 2.0f - 1.0f) * scale;
}

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

std::vector<float> TimedWorkerInitialParameters(uint64_t parameters, uint64_t seed) {
  std::vector<float> values(parameters);
  for (uint64_t i = 0; i < parameters; ++i) values[i] = Uniform(seed * 0x100000001b3ull + i, 0.1f);
  return values;
}

std::vector<float> TimedWorkerNoise(uint64_t parameters, uint64_t seed, int rank) {
  std::vector<float> noise(parameters);
  const uint64_t key = Mix(seed * 1315423911ull + static_cast<uint64_t>(rank));
  for (uint64_t i = 0; i < parameters; ++i) noise[i] = Uniform(key + i, 0.01f);
  return noise;
}

TimedWorkerResult RunTimedWorker(const TimedWorkerOptions& options, ParameterClient& client) {
  if (options.rank < 0 || options.rank >= options.workers) {
    throw UsageError("--rank " + std::to_string(options.rank) + " must be in [0, --workers)");
  }
  RequireCountInRange("--iters", options.iterations, 1, kMaxPsIterations);
  RequireOptionInRange("--compute-s", options.compute_s, 0, 3600);
  if (options.parameters < 1 || options.parameters > wire::kMaxFloats) {
    throw UsageError("--parameters must be in 1.." + std::to_string(wire::kMaxFloats));
  }
  const size_t n = options.parameters;
  const std::vector<float> noise = TimedWorkerNoise(n, options.seed, options.rank);
  Rng draw(options.seed * 7 + static_cast<uint64_t>(options.rank));

  const double wait_s = options.start_at_wall_s - WallSeconds();
  if (options.start_at_wall_s > 0 && wait_s > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(wait_s));
  }
  TimedWorkerResult result;
  result.start_wall_s = WallSeconds();
  if (options.rank == 0) client.Init(TimedWorkerInitialParameters(n, options.seed));
  std::vector<float> params = client.Pull(0);
  std::vector<float> gradient(n);
  std::ostringstream csv;
  csv << "job,rank,iteration,start_wall_s,compute_s,push_s,pull_s,end_wall_s,loss\n";
  for (int t = 0; t < options.iterations;) {
    if (options.before_iteration) options.before_iteration(t);
    const double start_wall = WallSeconds();
    const auto start = Clock::now();
    double compute = options.compute_s;
    if (!options.compute_samples_s.empty()) {
      compute = options.compute_samples_s[draw.UniformInt(options.compute_samples_s.size())];
    }
    const size_t shift = (static_cast<uint64_t>(t) * 7919u) % n;
    for (size_t i = 0; i < n; ++i) {
      size_t j = i + shift;
      if (j >= n) j -= n;
      gradient[i] = options.decay * params[i] + noise[j];
    }
    const double left = compute - Since(start);
    if (left > 0) std::this_thread::sleep_for(std::chrono::duration<double>(left));
    const double compute_s = Since(start);
    const auto push_start = Clock::now();
    client.Push(static_cast<uint64_t>(t), gradient);
    const double push_s = Since(push_start);
    const auto pull_start = Clock::now();
    try {
      params = client.Pull(static_cast<uint64_t>(t) + 1);
    } catch (const JobRolledBack& e) {
      const int resume = static_cast<int>(e.version());
      result.replayed_iterations += t > resume ? static_cast<uint64_t>(t - resume) : 0;
      ++result.rollbacks;
      if (!options.quiet) {
        std::fprintf(stderr, "jigsaw: ps-timed-worker %s/%d: %s; replaying from iteration %d\n",
                     options.job.c_str(), options.rank, e.what(), resume);
      }
      params = client.Pull(static_cast<uint64_t>(resume));
      t = resume;
      continue;
    }
    const double pull_s = Since(pull_start);
    csv << options.job << ',' << options.rank << ',' << t << ',' << FormatFixed(start_wall, 6)
        << ',' << FormatFixed(compute_s, 6) << ',' << FormatFixed(push_s, 6) << ','
        << FormatFixed(pull_s, 6) << ',' << FormatFixed(WallSeconds(), 6) << ",0\n";
    ++t;
    if (!options.quiet && t % 100 == 0) {
      std::fprintf(stderr, "jigsaw: ps-timed-worker %s/%d: iteration %d\n", options.job.c_str(),
                   options.rank, t);
    }
  }
  client.Bye();
  result.end_wall_s = WallSeconds();
  result.final_parameters = std::move(params);
  if (!options.out.empty()) WriteFileAtomically(options.out, csv.str());
  return result;
}

}  // namespace jigsaw::ps
