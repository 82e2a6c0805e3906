// Options of Chakra trace jobs (`jigsaw net --chakra PREFIX`, chakra_workload.h): the command
// line binds flags to ChakraOptions' fields; Validate() checks them (UsageError naming the
// option) and reads the optional ASTRA-sim system file.
#ifndef JIGSAW_NET_CHAKRA_OPTIONS_H_
#define JIGSAW_NET_CHAKRA_OPTIONS_H_

#include <string>
#include <vector>

namespace jigsaw::net {

struct ChakraRunSpec {
  std::vector<std::string> prefixes;  // one job each
  double npu_tflops = 0;              // compute rate for nodes with num_ops only (0: none)
  std::string system_file;
  // What the system file asked for that runs otherwise (e.g. its ring all-to-all runs as the
  // direct all-to-all), named on stderr and in summary.json.
  std::vector<std::string> notes;
};

struct ChakraOptions {
  std::vector<std::string> prefixes;  // --chakra PREFIX (repeatable)
  std::string npu_tflops;             // --npu-tflops
  std::string system;                 // --chakra-system FILE (ASTRA-sim system JSON)

  bool any_given() const { return !prefixes.empty() || !npu_tflops.empty() || !system.empty(); }
  // The system file's *-implementation entries must name ring (all-to-all: ring or direct; both
  // run as the direct all-to-all); anything else is an InputError naming the key and the value.
  ChakraRunSpec Validate() const;
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_CHAKRA_OPTIONS_H_
