#include "d2r/scheme.h"

#include "net/event_queue.h"

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
  // Multi-source shortest propagation delay from every detector (the failure-free graph: a path
  // through a failed link or node only reaches switches that are detectors themselves).
  news.assign(topology_in.nodes.size(), net::kNever);
  net::EventQueue queue;
  for (const std::vector<int>& ends : detectors) {
    for (int x : ends) {
      if (timing_in.detection < news[x]) {
        news[x] = timing_in.detection;
        queue.Push(news[x], 0, static_cast<uint32_t>(x), 0);
      }
    }
  }
  while (!queue.empty()) {
    const net::Event event = queue.Pop();
    const int x = static_cast<int>(event.a);
    if (event.time != news[x]) continue;
    for (const Adjacent& adjacent : topology_in.adjacency[x]) {
      const net::Time t = event.time + topology_in.links[adjacent.link].delay;
      if (t < news[adjacent.node]) {
        news[adjacent.node] = t;
        queue.Push(t, 0, static_cast<uint32_t>(adjacent.node), 0);
      }
    }
  }
}

}  // namespace jigsaw::d2r
