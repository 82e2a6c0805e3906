// Options of the PL2 rack experiment (`jigsaw net --load`, rack_workload.h): the command line binds
// flags to RackOptions' fields (named after them); Validate() turns them into a RackWorkloadSpec or
// throws UsageError naming the flag and what was expected. Whether --ml-hosts fits the topology is
// checked when the run has it (RunSimulation).
#ifndef JIGSAW_NET_RACK_OPTIONS_H_
#define JIGSAW_NET_RACK_OPTIONS_H_

#include <cstdint>
#include <string>

#include "net/enum_table.h"
#include "net/rack_workload.h"

namespace jigsaw::net {

// --ml-placement: RackWorkloadSpec::ml_with_server.
inline constexpr EnumName<bool> kMlPlacements[] = {
    {false, "away", "training hosts away from the loaded server"},
    {true, "with-server", "including it"},
};

inline constexpr EnumName<MlPattern> kMlPatterns[] = {
    {MlPattern::kRing, "ring", "all-reduce"},
    {MlPattern::kParameterServer, "ps",
     "parameter server on the first training host, the others push gradients and pull "
     "parameters"},
};

struct RackOptions {
  std::string load;                   // --load, e.g. 400% ("" = no rack experiment)
  double rpc_load = 0.05;             // --rpc-load, 0..0.99 of a link
  std::string duration = "10ms";      // --duration (arrivals window, at most 10s)
  std::string drain = "5ms";          // --drain (at most 10s)
  std::string ml_bytes = "0";         // --ml-bytes (0 = no training job)
  int ml_hosts = 8;                   // --ml-hosts 2..4096
  int ml_chunks = 1;                  // --ml-chunks
  std::string ml_placement = "away";  // --ml-placement
  std::string ml_pattern = "ring";    // --ml-pattern

  bool given() const { return !load.empty(); }
  // Checks every field. Throws UsageError naming the flag.
  RackWorkloadSpec Validate(uint64_t seed) const;
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_RACK_OPTIONS_H_
