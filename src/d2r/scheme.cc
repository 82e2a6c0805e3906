#include "d2r/scheme.h"

namespace jigsaw::d2r {

ScenarioContext::ScenarioContext(const Topology& topology_in, const Timing& timing_in,
                                 Router& router_in, Router& plain_in, const Scenario& scenario)
    : topology(&topology_in), timing(&timing_in), router(&router_in), plain(&plain_in) {
  failed_links = scenario.links;
  failed_set = router_in.Intern(scenario.links);
  link_failed.assign(topology_in.links.size(), false);
  node_failed.assign(topology_in.nodes.size(), false);
  for (int link : scenario.links) link_failed[link] = true;
  for (int x : scenario.nodes) node_failed[x] = true;
  for (int l = 0; l < topology_in.num_links(); ++l) {
    hop_time.push_back(HopTime(topology_in, timing_in, l));
  }
  for (int link : failed_links) {
    std::vector<int> ends;
    for (int x : {topology_in.links[link].a, topology_in.links[link].b}) {
      if (!node_failed[x]) ends.push_back(x);
    }
    detectors.push_back(ends);
  }
}

}  // namespace jigsaw::d2r
