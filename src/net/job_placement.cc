#include "net/job_placement.h"

#include <utility>

#include "core/error.h"
#include "core/limits.h"
#include "core/rng.h"

namespace jigsaw::net {

JobPlacement ParseJobPlacement(const std::string& text) {
  return ParseEnumOption(kJobPlacements, "--placement", text);
}

std::vector<std::vector<uint32_t>> PlaceJobs(uint32_t hosts, uint32_t jobs, JobPlacement placement,
                                             uint64_t seed) {
  std::vector<std::vector<uint32_t>> placed(jobs);
  if (jobs == 0) return placed;
  const uint32_t per_job = hosts / jobs;
  std::vector<uint32_t> order(hosts);
  for (uint32_t h = 0; h < hosts; ++h) order[h] = h;
  if (placement == JobPlacement::kRandom && hosts > 0) {
    Rng rng(seed ^ 0x706c6163656d656eULL);
    for (uint32_t h = hosts - 1; h > 0; --h) std::swap(order[h], order[rng.UniformInt(h + 1)]);
  }
  for (uint32_t j = 0; j < jobs; ++j) {
    for (uint32_t r = 0; r < per_job; ++r) {
      placed[j].push_back(placement == JobPlacement::kInterleave ? r * jobs + j
                                                                 : order[j * per_job + r]);
    }
  }
  return placed;
}

}  // namespace jigsaw::net
