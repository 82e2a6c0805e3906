#include "net/routing.h"

#include <limits>
#include <map>

namespace jigsaw::net {

Routing::Routing(const std::vector<std::vector<uint32_t>>& neighbors,
                 const std::vector<uint8_t>& is_switch, const std::vector<uint32_t>& hosts)
    : num_hosts_(hosts.size()) {
  const size_t nodes = neighbors.size();
  entries_.assign(nodes * num_hosts_, Entry{0, 0});
  std::vector<std::map<std::vector<uint16_t>, uint32_t>> interned(nodes);
  std::vector<uint16_t> list;
  constexpr uint32_t kUnreached = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> distance(nodes);
  std::vector<uint32_t> frontier;
  for (size_t dst = 0; dst < num_hosts_; ++dst) {
    std::fill(distance.begin(), distance.end(), kUnreached);
    const uint32_t target = hosts[dst];
    distance[target] = 0;
    frontier.assign(1, target);
    for (size_t i = 0; i < frontier.size(); ++i) {
      uint32_t node = frontier[i];
      if (node != target && !is_switch[node]) continue;  // hosts do not forward
      for (uint32_t next : neighbors[node]) {
        if (next == kNoNeighbor || distance[next] != kUnreached) continue;
        distance[next] = distance[node] + 1;
        frontier.push_back(next);
      }
    }
    for (size_t node = 0; node < nodes; ++node) {
      if (node == target || distance[node] == kUnreached) continue;
      list.clear();
      const auto& adjacent = neighbors[node];
      for (size_t port = 0; port < adjacent.size(); ++port) {
        uint32_t next = adjacent[port];
        if (next == kNoNeighbor) continue;
        bool forwards = next == target || is_switch[next];
        if (forwards && distance[next] + 1 == distance[node])
          list.push_back(static_cast<uint16_t>(port));
      }
      auto [it, added] = interned[node].try_emplace(list, static_cast<uint32_t>(ports_.size()));
      if (added) ports_.insert(ports_.end(), list.begin(), list.end());
      entries_[node * num_hosts_ + dst] = Entry{it->second, static_cast<uint16_t>(list.size())};
    }
  }
}

}  // namespace jigsaw::net
