// `jigsaw net --chakra`: loads every job's traces, places their ranks on the fabric, runs them
// (chakra_workload.h) and reports: summary.json's "chakra" (settings) and "chakra_jobs" (per job:
// ranks, hosts, iteration times, node counts by type, what was not modelled or ignored, by name)
// and the text of collectives.csv (one row per collective and per send:
// job,iteration,node_id,name,type,bytes,src_rank,dst_rank,issued_us,started_us,finished_us,
// duration_us). Whatever was read and not modelled is also named once on stderr.
#ifndef JIGSAW_NET_CHAKRA_REPORT_H_
#define JIGSAW_NET_CHAKRA_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/output.h"
#include "net/chakra_options.h"
#include "net/chakra_workload.h"
#include "net/job_placement.h"

namespace jigsaw::net {

struct ChakraRunSettings {
  JobPlacement placement = JobPlacement::kInterleave;
  uint64_t seed = 1;
  std::vector<int> dims;
  int chunks = 4;
  int iterations = 1;
  Time stop = kNever;
  ChakraProgress progress;
};

struct ChakraRunOutput {
  uint64_t unfinished_jobs = 0;
  std::string collectives_csv;
};

ChakraRunOutput RunChakra(Network* network, const ChakraRunSpec& spec,
                          const ChakraRunSettings& settings, Json* summary);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_CHAKRA_REPORT_H_
