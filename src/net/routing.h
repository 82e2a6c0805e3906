// Shortest-path ECMP next hops towards every host.
//
// For each node and destination host, the local ports whose neighbour is one hop closer to the
// host; only switches forward, so a path never passes through another host. Built once by one BFS
// per destination host (O(hosts * (nodes + links))).
#ifndef JIGSAW_NET_ROUTING_H_
#define JIGSAW_NET_ROUTING_H_

#include <cstdint>
#include <span>
#include <vector>

namespace jigsaw::net {

class Routing {
 public:
  // neighbors[node][local_port] = the node at the other end, or kNoNeighbor for a link that is
  // down; hosts = host node ids by rank.
  static constexpr uint32_t kNoNeighbor = UINT32_MAX;
  Routing(const std::vector<std::vector<uint32_t>>& neighbors,
          const std::vector<uint8_t>& is_switch, const std::vector<uint32_t>& hosts);

  // Empty when `node` cannot reach the host (or is that host).
  std::span<const uint16_t> NextPorts(uint32_t node, uint32_t dst_host) const {
    const Entry& entry = entries_[static_cast<size_t>(node) * num_hosts_ + dst_host];
    return {ports_.data() + entry.offset, entry.count};
  }

 private:
  // Identical port lists of a node are stored once, so the lists stay small and cache-resident.
  struct Entry {
    uint32_t offset;
    uint16_t count;
  };
  size_t num_hosts_;
  std::vector<Entry> entries_;
  std::vector<uint16_t> ports_;
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_ROUTING_H_
