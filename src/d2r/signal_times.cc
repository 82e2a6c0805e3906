#include "d2r/signal_times.h"

#include "net/event_queue.h"

namespace jigsaw::d2r {

std::vector<net::Time> SignalTimes(const Topology& topology, const std::vector<int>& sources,
                                   net::Time start, net::Time per_hop,
                                   const std::vector<bool>* link_failed,
                                   const std::vector<bool>* node_failed) {
  std::vector<net::Time> at(topology.nodes.size(), net::kNever);
  net::EventQueue queue;
  for (int x : sources) {
    if (start < at[x]) {
      at[x] = start;
      queue.Push(start, 0, static_cast<uint32_t>(x), 0);
    }
  }
  while (!queue.empty()) {
    const net::Event event = queue.Pop();
    const int x = static_cast<int>(event.a);
    if (event.time != at[x]) continue;
    for (const Adjacent& adjacent : topology.adjacency[x]) {
      if (link_failed != nullptr && (*link_failed)[adjacent.link]) continue;
      if (node_failed != nullptr && (*node_failed)[adjacent.node]) continue;
      const net::Time t = event.time + per_hop + topology.links[adjacent.link].delay;
      if (t < at[adjacent.node]) {
        at[adjacent.node] = t;
        queue.Push(t, 0, static_cast<uint32_t>(adjacent.node), 0);
      }
    }
  }
  return at;
}

}  // namespace jigsaw::d2r
