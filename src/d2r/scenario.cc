#include "d2r/scenario.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>

#include "core/error.h"
#include "core/rng.h"
#include "core/text_input.h"

namespace jigsaw::d2r {
namespace {

[[noreturn]] void Bad(const std::string& spec, const std::string& why) {
  throw UsageError("--fail '" + spec + "': " + why);
}

int ParseCount(const std::string& spec, const std::string& text, int min) {
  char* end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || value < min || value > 1'000'000) {
    Bad(spec, "expected a whole number >= " + std::to_string(min) + ", got '" + text + "'");
  }
  return static_cast<int>(value);
}

std::string LinkName(const Topology& topology, int link) {
  return topology.NodeName(topology.links[link].a) + "-" +
         topology.NodeName(topology.links[link].b);
}

// k distinct indices out of n (partial Fisher-Yates), in increasing order.
std::vector<int> Sample(int n, int k, Rng* rng) {
  std::vector<int> all(n);
  for (int i = 0; i < n; ++i) all[i] = i;
  for (int i = 0; i < k; ++i) {
    int j = i + static_cast<int>(rng->UniformInt(static_cast<uint64_t>(n - i)));
    std::swap(all[i], all[j]);
  }
  all.resize(k);
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace

std::vector<Scenario> ParseFailures(const std::string& spec, const Topology& topology,
                                    uint64_t seed) {
  Rng rng(seed ^ 0x5bd1e995ULL);
  const int links = topology.num_links();
  std::vector<Scenario> scenarios;
  if (spec.rfind("link:", 0) == 0) {
    Scenario scenario;
    scenario.name = spec;
    const std::string list = spec.substr(5);  // outlives the views SplitFields returns
    for (std::string_view part : SplitFields(list, ',')) {
      std::string why;
      int link = topology.ResolveLink(std::string(Trim(part)), &why);
      if (link < 0) Bad(spec, why);
      scenario.links.push_back(link);
    }
    scenarios.push_back(scenario);
  } else if (spec.rfind("node:", 0) == 0) {
    Scenario scenario;
    scenario.name = spec;
    std::string why;
    int x = topology.ResolveNode(spec.substr(5), &why);
    if (x < 0) Bad(spec, why);
    scenario.nodes.push_back(x);
    for (const Adjacent& adjacent : topology.adjacency[x]) scenario.links.push_back(adjacent.link);
    if (scenario.links.empty()) Bad(spec, topology.NodeName(x) + " has no links");
    scenarios.push_back(scenario);
  } else if (spec.rfind("random:", 0) == 0) {
    int k = ParseCount(spec, spec.substr(7), 1);
    if (k > links) Bad(spec, "the topology has only " + std::to_string(links) + " links");
    Scenario scenario;
    scenario.links = Sample(links, k, &rng);
    scenario.name = "links:";
    for (size_t i = 0; i < scenario.links.size(); ++i) {
      if (i > 0) scenario.name += ',';
      scenario.name += LinkName(topology, scenario.links[i]);
    }
    scenarios.push_back(scenario);
  } else if (spec == "each-link" || spec.rfind("each-link:", 0) == 0) {
    int limit = spec == "each-link" ? links : ParseCount(spec, spec.substr(10), 1);
    for (int link : Sample(links, std::min(limit, links), &rng)) {
      scenarios.push_back({"link:" + LinkName(topology, link), {link}, {}});
    }
  } else if (spec.rfind("pairs:", 0) == 0) {
    int n = ParseCount(spec, spec.substr(6), 1);
    if (links < 2) Bad(spec, "needs a topology with at least two links");
    const int64_t possible = static_cast<int64_t>(links) * (links - 1) / 2;
    std::set<std::pair<int, int>> chosen;
    while (static_cast<int64_t>(chosen.size()) < std::min<int64_t>(n, possible)) {
      int a = static_cast<int>(rng.UniformInt(links));
      int b = static_cast<int>(rng.UniformInt(links));
      if (a != b) chosen.insert(std::minmax(a, b));
    }
    for (auto [a, b] : chosen) {
      scenarios.push_back(
          {"links:" + LinkName(topology, a) + "," + LinkName(topology, b), {a, b}, {}});
    }
  } else {
    Bad(spec, "expected link:X-Y[,..], node:X, random:K, each-link[:N] or pairs:N");
  }
  for (const Scenario& scenario : scenarios) {
    if (scenario.links.size() > 64) Bad(spec, "at most 64 simultaneous link failures");
  }
  return scenarios;
}

net::Time HopTime(const Topology& topology, const Timing& timing, int link) {
  return timing.switch_latency +
         net::SerializationTime(timing.packet_bytes, topology.links[link].rate_bps) +
         topology.links[link].delay;
}

std::vector<Flow> MakeFlows(Router& router, Router& plain, const Timing& timing, double pps,
                            int64_t max_flows, uint64_t seed, TrafficStats* stats) {
  const Topology& topology = router.topology();
  const Policy& policy = router.policy();
  const int n = topology.num_nodes();
  *stats = TrafficStats();
  std::vector<std::pair<int, int>> eligible;
  for (int src = 0; src < n; ++src) {
    for (int dst = 0; dst < n; ++dst) {
      if (src == dst) continue;
      ++stats->candidate_pairs;
      if (topology.component[src] != topology.component[dst]) {
        ++stats->disconnected;
        continue;
      }
      int32_t plain_hops = plain.Distance(0, src, 0, dst);
      int32_t hops =
          policy.NodeAllowed(src) ? router.Distance(0, src, policy.Start(src), dst) : kUnreachable;
      if (hops == kUnreachable || hops > std::min(policy.HopBudget(plain_hops), timing.ttl)) {
        ++stats->not_compliant;
        continue;
      }
      eligible.emplace_back(src, dst);
    }
  }
  stats->eligible = static_cast<int64_t>(eligible.size());
  if (max_flows > 0 && static_cast<int64_t>(eligible.size()) > max_flows) {
    Rng rng(seed ^ 0x2545f4914f6cdd1dULL);
    for (int64_t i = 0; i < max_flows; ++i) {
      int64_t j = i + static_cast<int64_t>(rng.UniformInt(eligible.size() - i));
      std::swap(eligible[i], eligible[j]);
    }
    eligible.resize(max_flows);
    std::sort(eligible.begin(), eligible.end());
  }
  stats->sampled = static_cast<int64_t>(eligible.size());
  const double period = 1e12 / pps;
  std::vector<Flow> flows;
  flows.reserve(eligible.size());
  for (auto [src, dst] : eligible) {
    Flow flow;
    flow.src = src;
    flow.dst = dst;
    flow.path = router.Path(0, src, dst);
    for (size_t i = 1; i < flow.path.size(); ++i) {
      flow.path_time +=
          HopTime(topology, timing, topology.FindLink(flow.path[i - 1], flow.path[i]));
    }
    flow.plain_hops = plain.Distance(0, src, 0, dst);
    flow.hop_budget = std::min(policy.HopBudget(flow.plain_hops), timing.ttl);
    const double golden = 0.6180339887498949;
    double fraction = std::fmod((flows.size() + 1) * golden, 1.0);
    flow.phase = static_cast<net::Time>(fraction * period);
    flows.push_back(std::move(flow));
  }
  return flows;
}

bool ParseTrafficRate(const std::string& text, uint32_t packet_bytes, double* pps) {
  struct Unit {
    const char* suffix;
    double scale;
  };
  static constexpr Unit kPps[] = {{"Mpps", 1e6}, {"kpps", 1e3}, {"Kpps", 1e3}, {"pps", 1.0}};
  for (const Unit& unit : kPps) {
    const std::string suffix = unit.suffix;
    if (text.size() > suffix.size() &&
        text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
      const std::string number = text.substr(0, text.size() - suffix.size());
      char* end = nullptr;
      double value = std::strtod(number.c_str(), &end);
      if (end != number.c_str() + number.size() || !(value > 0) || !std::isfinite(value)) {
        return false;
      }
      *pps = value * unit.scale;
      return *pps <= 1e9;
    }
  }
  uint64_t bps = 0;
  if (!net::ParseRate(text, &bps)) return false;
  *pps = static_cast<double>(bps) / (8.0 * packet_bytes);
  return *pps > 0;
}

}  // namespace jigsaw::d2r
