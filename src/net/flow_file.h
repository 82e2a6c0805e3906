// Flows given up front: the ns-3/HPCC flow file, and Poisson background traffic drawn from a
// flow-size CDF (HPCC's traffic_gen).
//
// Flow file (HPCC's flow.txt, read by its third.cc): the first line is the number of flows, then
// one flow per line, "src dst priority dport size start_time": src and dst are node ids of the
// topology (hosts only), priority the traffic class (0..7; HPCC's files use 3), dport an ns-3
// port number (checked, unused), size in bytes and start_time in seconds (HPCC's traffic_gen
// starts flows at 2 s). Blank lines are skipped. Every error names file:line.
//
// Size CDF (traffic_gen's format): one "size cumulative_percent" per line, sizes in bytes strictly
// increasing, percents strictly increasing from 0 to 100; sizes between points are interpolated
// linearly, as traffic_gen's CustomRand does.
#ifndef JIGSAW_NET_FLOW_FILE_H_
#define JIGSAW_NET_FLOW_FILE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/text_input.h"
#include "net/topology.h"
#include "net/units.h"

namespace jigsaw::net {

struct FlowSpec {
  uint32_t src_host = 0;  // host ranks
  uint32_t dst_host = 0;
  uint8_t priority = 0;
  uint64_t bytes = 0;
  Time start = 0;
};

std::vector<FlowSpec> ParseFlowFile(TextFile& file, const Topology& topology);
std::vector<FlowSpec> ReadFlowFile(const std::string& path, const Topology& topology);

class SizeCdf {
 public:
  // Throws InputError (file:line) on a malformed CDF.
  static SizeCdf Parse(TextFile& file);
  // "websearch" or "datamining" (embedded, see flow_file.cc for their sources) or a file path.
  static SizeCdf Load(const std::string& name_or_path);

  const std::string& name() const { return name_; }
  // Mean flow size in bytes (the piecewise-linear CDF's expectation, as traffic_gen computes).
  double Mean() const;
  // The size at cumulative fraction u in [0, 1) (at least 1 byte).
  uint64_t SizeAt(double u) const;

 private:
  std::string name_;
  std::vector<std::pair<double, double>> points_;  // (bytes, percent)
};

// Poisson background traffic: every host in `hosts` starts flows with exponential gaps so that it
// offers `load` (0..1] of its NIC rate on average, from `start` until `start + duration`, each to a
// uniformly drawn other host of `hosts`, sized from `cdf`, in class `priority`.
struct BackgroundSpec {
  double load = 0.3;
  Time start = 0;
  Time duration = 0;
  uint8_t priority = 0;
  uint64_t seed = 1;
};

std::vector<FlowSpec> GenerateBackground(const SizeCdf& cdf, const BackgroundSpec& spec,
                                         const std::vector<uint32_t>& hosts,
                                         const std::vector<uint64_t>& host_rate_bps);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_FLOW_FILE_H_
