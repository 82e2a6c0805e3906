// Small topologies built in code for the d2r tests.
#ifndef JIGSAW_TESTS_D2R_TEST_GRAPHS_H_
#define JIGSAW_TESTS_D2R_TEST_GRAPHS_H_

#include <string>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "d2r/topology.h"

namespace jigsaw::d2r {

// Nodes "n0".."n{n-1}" (labels "N0"..), no coordinates, every link `delay` long at 10 Gb/s.
inline Topology MakeGraph(int n, const std::vector<std::pair<int, int>>& edges,
                          net::Time delay = 100 * net::kMicrosecond) {
  Topology t;
  t.name = "test";
  for (int i = 0; i < n; ++i) {
    Node node;
    node.id = std::string("n").append(std::to_string(i));
    node.label = std::string("N").append(std::to_string(i));
    t.nodes.push_back(node);
  }
  std::vector<RawEdge> raw;
  for (auto [a, b] : edges) raw.push_back({a, b, 0, 0});
  TopologyDefaults defaults;
  defaults.link_delay = delay;
  FinishTopology(raw, defaults, &t);
  return t;
}

// A connected random graph: a random spanning tree plus extra edges with probability p.
inline Topology RandomGraph(int n, double p, Rng* rng) {
  std::vector<std::pair<int, int>> edges;
  for (int i = 1; i < n; ++i) edges.emplace_back(static_cast<int>(rng->UniformInt(i)), i);
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      if (rng->Uniform() < p) edges.emplace_back(a, b);
    }
  }
  return MakeGraph(n, edges);
}

}  // namespace jigsaw::d2r

#endif  // JIGSAW_TESTS_D2R_TEST_GRAPHS_H_
