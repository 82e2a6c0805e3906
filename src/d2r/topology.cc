#include "d2r/topology.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <utility>

namespace jigsaw::d2r {
namespace {

constexpr double kEarthRadiusKm = 6371.0;
constexpr double kFibreKmPerSecond = 299792.458 * 2.0 / 3.0;

}  // namespace

double GreatCircleKm(double lat1, double lon1, double lat2, double lon2) {
  const double to_rad = std::numbers::pi / 180.0;
  const double dlat = (lat2 - lat1) * to_rad;
  const double dlon = (lon2 - lon1) * to_rad;
  const double h =
      std::sin(dlat / 2) * std::sin(dlat / 2) +
      std::cos(lat1 * to_rad) * std::cos(lat2 * to_rad) * std::sin(dlon / 2) * std::sin(dlon / 2);
  return 2 * kEarthRadiusKm * std::asin(std::min(1.0, std::sqrt(h)));
}

net::Time FibreDelay(double km) {
  return static_cast<net::Time>(std::llround(km / kFibreKmPerSecond * 1e12));
}

int Topology::FindLink(int x, int y) const {
  for (const Adjacent& adjacent : adjacency[x]) {
    if (adjacent.node == y) return adjacent.link;
  }
  return -1;
}

std::string Topology::NodeName(int x) const {
  const Node& node = nodes[x];
  if (node.label.empty()) return node.id;
  int same = 0;
  for (const Node& other : nodes) same += other.label == node.label;
  return same == 1 ? node.label : node.label + "#" + node.id;
}

int Topology::ResolveNode(const std::string& text, std::string* why) const {
  for (int x = 0; x < num_nodes(); ++x) {
    if (nodes[x].id == text || NodeName(x) == text) return x;
  }
  std::vector<int> matches;
  for (int x = 0; x < num_nodes(); ++x) {
    if (nodes[x].label == text) matches.push_back(x);
  }
  if (matches.size() == 1) return matches[0];
  if (matches.empty()) {
    *why = "no node with id or label '" + text + "'";
  } else {
    *why = "label '" + text + "' names " + std::to_string(matches.size()) +
           " nodes; use one of their ids:";
    for (int x : matches) *why += " " + nodes[x].id;
  }
  return -1;
}

int Topology::ResolveLink(const std::string& text, std::string* why) const {
  int found = -1;
  std::string first_why;
  for (size_t dash = text.find('-'); dash != std::string::npos; dash = text.find('-', dash + 1)) {
    std::string ignored;
    int x = ResolveNode(text.substr(0, dash), first_why.empty() ? &first_why : &ignored);
    if (x < 0) continue;
    int y = ResolveNode(text.substr(dash + 1), first_why.empty() ? &first_why : &ignored);
    if (y < 0) continue;
    int link = FindLink(x, y);
    if (link < 0) {
      if (first_why.empty()) first_why = "no link between " + NodeName(x) + " and " + NodeName(y);
      continue;
    }
    if (found >= 0 && found != link) {
      *why = "'" + text + "' is ambiguous; use node ids";
      return -1;
    }
    found = link;
  }
  if (found < 0) *why = first_why.empty() ? "expected X-Y with two node references" : first_why;
  return found;
}

void FinishTopology(const std::vector<RawEdge>& edges, const TopologyDefaults& defaults,
                    Topology* topology) {
  Topology& t = *topology;
  t.links.clear();
  std::map<std::pair<int, int>, int> index;
  std::vector<double> known_rate;  // per link: sum of known rates
  for (const RawEdge& edge : edges) {
    if (edge.a == edge.b) {
      ++t.self_loops_dropped;
      continue;
    }
    auto key = std::minmax(edge.a, edge.b);
    auto [it, inserted] = index.emplace(key, t.num_links());
    if (inserted) {
      Link link;
      link.a = key.first;
      link.b = key.second;
      link.line = edge.line;
      t.links.push_back(link);
      known_rate.push_back(0);
    } else {
      ++t.parallel_edges_merged;
      ++t.links[it->second].parallel_edges;
    }
    if (edge.rate_bps > 0) known_rate[it->second] += edge.rate_bps;
  }

  std::vector<net::Time> geo_delays;
  for (int l = 0; l < t.num_links(); ++l) {
    Link& link = t.links[l];
    link.rate_known = known_rate[l] > 0;
    link.rate_bps = link.rate_known ? static_cast<uint64_t>(std::llround(known_rate[l]))
                                    : defaults.link_rate_bps;
    if (!link.rate_known) ++t.links_without_rate;
    const Node& a = t.nodes[link.a];
    const Node& b = t.nodes[link.b];
    if (a.has_coordinates && b.has_coordinates) {
      link.delay_from_coordinates = true;
      link.delay = FibreDelay(GreatCircleKm(a.latitude, a.longitude, b.latitude, b.longitude));
      geo_delays.push_back(link.delay);
    }
  }
  net::Time fallback = defaults.link_delay;
  if (!geo_delays.empty()) {
    std::sort(geo_delays.begin(), geo_delays.end());
    fallback = geo_delays[geo_delays.size() / 2];
  }
  for (Link& link : t.links) {
    if (!link.delay_from_coordinates) {
      link.delay = fallback;
      ++t.links_without_coordinates;
    }
  }

  t.adjacency.assign(t.nodes.size(), {});
  for (int l = 0; l < t.num_links(); ++l) {
    t.adjacency[t.links[l].a].push_back({t.links[l].b, l});
    t.adjacency[t.links[l].b].push_back({t.links[l].a, l});
  }
  for (auto& list : t.adjacency) {
    std::sort(list.begin(), list.end(),
              [](const Adjacent& x, const Adjacent& y) { return x.node < y.node; });
  }

  t.component.assign(t.nodes.size(), -1);
  t.num_components = 0;
  std::vector<int> stack;
  for (int start = 0; start < t.num_nodes(); ++start) {
    if (t.component[start] >= 0) continue;
    const int c = t.num_components++;
    t.component[start] = c;
    stack.push_back(start);
    while (!stack.empty()) {
      int x = stack.back();
      stack.pop_back();
      for (const Adjacent& adjacent : t.adjacency[x]) {
        if (t.component[adjacent.node] < 0) {
          t.component[adjacent.node] = c;
          stack.push_back(adjacent.node);
        }
      }
    }
  }
}

}  // namespace jigsaw::d2r
