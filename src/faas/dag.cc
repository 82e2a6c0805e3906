#include "faas/dag.h"

#include <algorithm>

namespace jigsaw::faas {

std::vector<Time> CriticalPathFrom(const Dag& dag, const std::vector<Time>& durations) {
  std::vector<Time> path(dag.nodes.size(), 0);
  for (size_t i = dag.nodes.size(); i-- > 0;) {
    Time longest_after = 0;
    for (uint32_t next : dag.successors[i]) longest_after = std::max(longest_after, path[next]);
    path[i] = durations[dag.nodes[i]] + longest_after;
  }
  return path;
}

bool TopologicalOrder(const std::vector<std::vector<uint32_t>>& after, std::vector<uint32_t>* order,
                      uint32_t* cycle_node) {
  const size_t n = after.size();
  std::vector<uint32_t> pending(n, 0);
  std::vector<std::vector<uint32_t>> successors(n);
  for (uint32_t node = 0; node < n; ++node) {
    pending[node] = static_cast<uint32_t>(after[node].size());
    for (uint32_t before : after[node]) successors[before].push_back(node);
  }
  order->clear();
  for (uint32_t node = 0; node < n; ++node) {
    if (pending[node] == 0) order->push_back(node);
  }
  for (size_t next = 0; next < order->size(); ++next) {
    for (uint32_t successor : successors[(*order)[next]]) {
      if (--pending[successor] == 0) order->push_back(successor);
    }
  }
  if (order->size() == n) return true;
  for (uint32_t node = 0; node < n; ++node) {
    if (pending[node] > 0) {
      *cycle_node = node;
      break;
    }
  }
  return false;
}

}  // namespace jigsaw::faas
