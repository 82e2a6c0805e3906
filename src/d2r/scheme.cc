#include "d2r/scheme.h"

#include <algorithm>

#include "d2r/signal_times.h"

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
  // Per failure: shortest signal time from its detectors over the surviving links and switches,
  // with no processing (news_of) or one pipeline traversal per switch passed (notice_of).
  news.assign(topology_in.nodes.size(), net::kNever);
  for (const std::vector<int>& ends : detectors) {
    news_of.push_back(
        SignalTimes(topology_in, ends, timing_in.detection, 0, &link_failed, &node_failed));
    notice_of.push_back(SignalTimes(topology_in, ends, timing_in.detection,
                                    timing_in.switch_latency, &link_failed, &node_failed));
    for (size_t x = 0; x < news.size(); ++x) news[x] = std::min(news[x], news_of.back()[x]);
  }
}

}  // namespace jigsaw::d2r
