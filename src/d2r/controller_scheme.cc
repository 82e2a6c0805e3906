#include <algorithm>

#include "d2r/baselines.h"
#include "d2r/signal_times.h"

namespace jigsaw::d2r {
namespace {

// One-way latency from `source` to every switch over the failure-free graph, or over the links
// and switches that survive when `context` is given (an in-band control channel).
std::vector<net::Time> Latencies(const Topology& topology, const Timing& timing, int source,
                                 const ScenarioContext* context = nullptr) {
  if (context == nullptr) return SignalTimes(topology, {source}, 0, timing.switch_latency);
  return SignalTimes(topology, {source}, 0, timing.switch_latency, &context->link_failed,
                     &context->node_failed);
}

}  // namespace

ControlPlacement PlaceControllers(const Topology& topology, const Timing& timing) {
  ControlPlacement placement;
  placement.controller.assign(topology.num_components, -1);
  placement.latency.assign(topology.nodes.size(), 0);
  std::vector<net::Time> best(topology.num_components, net::kNever);
  for (int c = 0; c < topology.num_nodes(); ++c) {
    std::vector<net::Time> latency = Latencies(topology, timing, c);
    net::Time worst = 0;
    for (int x = 0; x < topology.num_nodes(); ++x) {
      if (topology.component[x] == topology.component[c]) worst = std::max(worst, latency[x]);
    }
    const int component = topology.component[c];
    if (worst < best[component]) {
      best[component] = worst;
      placement.controller[component] = c;
    }
  }
  for (int component = 0; component < topology.num_components; ++component) {
    std::vector<net::Time> latency = Latencies(topology, timing, placement.controller[component]);
    for (int x = 0; x < topology.num_nodes(); ++x) {
      if (topology.component[x] == component) placement.latency[x] = latency[x];
    }
  }
  return placement;
}

ControllerScheme::ControllerScheme(ScenarioContext& context, const ControlPlacement& placement)
    : context_(context), placement_(placement), plan_(*context.router) {
  const Topology& topology = *context.topology;
  const Timing& timing = *context.timing;
  // Control latency per switch: out of band, the failure-free placement's; in band, over the
  // surviving links (kNever for switches the failures cut off from their controller).
  latency_ = placement.latency;
  if (timing.in_band_control) {
    for (int component = 0; component < topology.num_components; ++component) {
      const int controller = placement.controller[component];
      if (context.node_failed[controller]) {
        for (int x = 0; x < topology.num_nodes(); ++x) {
          if (topology.component[x] == component) latency_[x] = net::kNever;
        }
        continue;
      }
      const std::vector<net::Time> live = Latencies(topology, timing, controller, &context);
      for (int x = 0; x < topology.num_nodes(); ++x) {
        if (topology.component[x] == component) latency_[x] = live[x];
      }
    }
  }
  for (int component = 0; component < topology.num_components; ++component) {
    // When this component's controller first hears of each failure.
    std::vector<std::pair<net::Time, int>> heard;
    for (size_t i = 0; i < context.failed_links.size(); ++i) {
      net::Time first = net::kNever;
      for (int d : context.detectors[i]) {
        if (topology.component[d] == component && latency_[d] != net::kNever) {
          first = std::min(first, timing.detection + latency_[d]);
        }
      }
      if (first != net::kNever) heard.emplace_back(first, context.failed_links[i]);
    }
    std::sort(heard.begin(), heard.end());
    std::vector<int> known;
    net::Time free_at = 0;
    for (size_t next = 0; next < heard.size();) {
      const net::Time start = std::max(heard[next].first, free_at);
      for (; next < heard.size() && heard[next].first <= start; ++next) {
        known.push_back(heard[next].second);
      }
      const net::Time done = start + timing.controller_compute;
      free_at = done;
      ++computations_;
      std::vector<std::pair<int, net::Time>> arrivals;
      for (int x = 0; x < topology.num_nodes(); ++x) {
        if (topology.component[x] != component || context.node_failed[x]) continue;
        if (latency_[x] == net::kNever) continue;  // cut off in band: keeps its old rules
        arrivals.emplace_back(x, done + latency_[x]);
      }
      plan_.AddRound(arrivals, context.router->Intern(known), timing.rule_install);
    }
  }
}

Decision ControllerScheme::Decide(int x, const Packet& packet, net::Time t,
                                  net::Time* next_change) {
  const int set = plan_.SetAt(x, packet.q, packet.dst, t, next_change);
  const int next = context_.router->NextHop(set, x, packet.q, packet.dst);
  if (next < 0) return {Decision::kDrop, -1, 0, DropReason::kNoRoute};
  return {Decision::kForward, next};
}

Json ControllerScheme::Totals() const {
  Json json;
  json["computations"] = computations_;
  json["rules_installed"] = plan_.total_entries_written();
  json["max_rules_per_switch"] = plan_.max_entries_written();
  return json;
}

Json ControllerScheme::PerSwitch() const {
  const Topology& topology = *context_.topology;
  Json list = Json::array();
  for (int x = 0; x < topology.num_nodes(); ++x) {
    if (plan_.entries_written(x) == 0) continue;
    Json entry;
    entry["switch"] = topology.NodeName(x);
    entry["control_latency_us"] =
        latency_[x] == net::kNever ? -1.0 : RoundTo(net::ToMicroseconds(latency_[x]), 3);
    entry["rules_installed"] = plan_.entries_written(x);
    list.push_back(std::move(entry));
  }
  return list;
}

}  // namespace jigsaw::d2r
