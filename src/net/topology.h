// A network graph: nodes (hosts and switches) joined by full-duplex links.
//
// Node ids are dense, 0..num_nodes-1; hosts are the nodes that are not switches, ranked in id order
// (host rank r = the r-th non-switch node), which is how workloads and collectives address them.
// Hosts never forward traffic. Topologies come from ns-3/HPCC topology files or from the built-in
// k-ary fat-tree and 2-level Clos generators; every constructor validates what it builds and throws
// InputError (file:line, what was expected) or UsageError (bad generator spec).
#ifndef JIGSAW_NET_TOPOLOGY_H_
#define JIGSAW_NET_TOPOLOGY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "net/units.h"

namespace jigsaw::net {

struct Link {
  uint32_t a = 0;
  uint32_t b = 0;
  uint64_t rate_bps = 0;
  Time delay = 0;
  double error_rate = 0;  // probability that a packet is corrupted (dropped) on arrival
};

struct Topology {
  std::string name;
  std::vector<uint8_t> is_switch;  // one per node
  std::vector<Link> links;
  // Shared packet buffer of each switch as the hardware has it; 0 = not given (NetConfig decides).
  uint64_t switch_buffer_bytes = 0;

  uint32_t num_nodes() const { return static_cast<uint32_t>(is_switch.size()); }
  // Node ids of the hosts, in rank order.
  std::vector<uint32_t> HostNodes() const;
  uint32_t num_switches() const;
};

// The ns-3/HPCC text format: "<nodes> <switches> <links>", then the switch ids, then one
// "<a> <b> <rate> <delay> <error_rate>" line per link (e.g. "0 128 200Gbps 0.005ms 0").
Topology ReadTopologyFile(const std::string& path);
Topology ParseTopologyText(const std::string& name, const std::string& text);

// k-ary fat-tree (k even): k^3/4 hosts, k pods of k/2 edge and k/2 aggregation switches,
// (k/2)^2 core switches; every link has the same rate and delay. Hosts are nodes 0..k^3/4-1.
Topology MakeFatTree(int k, uint64_t rate_bps, Time delay);

// 2-level Clos: `leaves` ToRs with `hosts_per_leaf` hosts each, every ToR linked to every spine.
struct ClosSpec {
  int leaves = 8;
  int spines = 8;
  int hosts_per_leaf = 16;
  uint64_t host_rate_bps = 200'000'000'000;
  uint64_t fabric_rate_bps = 200'000'000'000;
  Time host_delay = 5 * kMicrosecond;
  Time fabric_delay = 12500 * kNanosecond;
};
Topology MakeClos(const ClosSpec& spec);

// One top-of-rack switch (node `hosts`) and `hosts` hosts (nodes 0..hosts-1), each on one link of
// `rate_bps` and `delay`. The default models a 32 x 100 Gbps ToR of the Broadcom Tomahawk class:
// 16 MiB of shared buffer (about 500 KB per port), 0.5 us of cable + PHY/MAC latency per link end.
struct RackSpec {
  int hosts = 32;
  uint64_t rate_bps = 100'000'000'000;
  Time delay = 500 * kNanosecond;
  uint64_t buffer_bytes = 16ull << 20;
};
Topology MakeRack(const RackSpec& spec);

// A file path, or a generator spec:
//   "rack:hosts=32,gbps=100,delay=500ns,buffer=16MiB"  (all keys optional; rate=200Mbps
//   instead of gbps= for any link rate)
//   "fattree:k=16,rate=100Gbps,delay=1us"
//   "clos:leaves=8,spines=8,hosts=16,rate=200Gbps,fabric_rate=200Gbps,host_delay=5us,
//    fabric_delay=12.5us"  (all keys optional)
Topology LoadTopology(const std::string& spec_or_path);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_TOPOLOGY_H_
