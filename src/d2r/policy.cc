#include "d2r/policy.h"

#include <climits>
#include <cmath>
#include <string_view>

#include "core/error.h"
#include "core/output.h"
#include "core/rng.h"
#include "core/text_input.h"

namespace jigsaw::d2r {
namespace {

[[noreturn]] void Bad(const std::string& term, const std::string& why) {
  throw UsageError("--policy term '" + term + "': " + why);
}

}  // namespace

Policy::Policy(const Topology& topology)
    : avoid_node_(topology.nodes.size(), false), avoid_link_(topology.links.size(), false) {}

int Policy::HopBudget(int hops) const {
  if (stretch_ == 0) return INT32_MAX;
  return static_cast<int>(std::floor(stretch_ * hops + 1e-9));
}

std::string Policy::Describe(const Topology& topology) const {
  std::string text;
  auto add = [&](const std::string& term) {
    if (!text.empty()) text += '+';
    text += term;
  };
  if (!waypoints_.empty()) {
    std::string term = "waypoint:";
    for (size_t i = 0; i < waypoints_.size(); ++i) {
      if (i > 0) term += ',';
      term += topology.NodeName(waypoints_[i]);
    }
    add(term);
  }
  for (int x = 0; x < topology.num_nodes(); ++x) {
    if (avoid_node_[x]) add("avoid:node:" + topology.NodeName(x));
  }
  for (int l = 0; l < topology.num_links(); ++l) {
    if (avoid_link_[l]) {
      add("avoid:link:" + topology.NodeName(topology.links[l].a) + "-" +
          topology.NodeName(topology.links[l].b));
    }
  }
  if (stretch_ > 0) add("stretch:" + FormatFixed(stretch_, 2));
  return text.empty() ? "shortest" : text;
}

Policy Policy::Parse(const std::string& text, const Topology& topology, uint64_t seed) {
  Policy policy(topology);
  Rng rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::vector<std::string> random_avoids;  // resolved after the waypoints
  auto node = [&](const std::string& term, const std::string& ref) {
    if (ref == "random") return static_cast<int>(rng.UniformInt(topology.nodes.size()));
    std::string why;
    int x = topology.ResolveNode(ref, &why);
    if (x < 0) Bad(term, why);
    return x;
  };
  if (Trim(text).empty()) throw UsageError("--policy is empty; use 'shortest' for no constraint");
  for (std::string_view part : SplitFields(text, '+')) {
    const std::string term(Trim(part));
    if (term == "shortest") continue;
    if (term.rfind("waypoint:", 0) == 0) {
      if (!policy.waypoints_.empty()) Bad(term, "give all waypoints in one term, in order");
      const std::string list = term.substr(9);  // outlives the views SplitFields returns
      for (std::string_view ref : SplitFields(list, ',')) {
        policy.waypoints_.push_back(node(term, std::string(Trim(ref))));
      }
    } else if (term.rfind("avoid:node:", 0) == 0) {
      const std::string ref = term.substr(11);
      if (ref == "random") {
        random_avoids.push_back(term);
      } else {
        int x = node(term, ref);
        policy.avoided_nodes_ += !policy.avoid_node_[x];
        policy.avoid_node_[x] = true;
      }
    } else if (term.rfind("avoid:link:", 0) == 0) {
      std::string why;
      int link = topology.ResolveLink(term.substr(11), &why);
      if (link < 0) Bad(term, why);
      policy.avoided_links_ += !policy.avoid_link_[link];
      policy.avoid_link_[link] = true;
    } else if (term.rfind("stretch:", 0) == 0) {
      const std::string value = term.substr(8);
      char* end = nullptr;
      double f = std::strtod(value.c_str(), &end);
      if (value.empty() || end != value.c_str() + value.size() || !(f >= 1.0) || f > 1000) {
        Bad(term, "expected a stretch factor >= 1, e.g. stretch:1.5");
      }
      policy.stretch_ = f;
    } else {
      Bad(term, "expected shortest, waypoint:A[,B..], avoid:node:X, avoid:link:X-Y or stretch:F");
    }
  }
  for (const std::string& term : random_avoids) {
    std::vector<int> candidates;
    for (int x = 0; x < topology.num_nodes(); ++x) {
      bool waypoint = false;
      for (int w : policy.waypoints_) waypoint |= w == x;
      if (!waypoint && !policy.avoid_node_[x]) candidates.push_back(x);
    }
    if (candidates.empty()) Bad(term, "no node left to avoid");
    int x = candidates[rng.UniformInt(candidates.size())];
    policy.avoid_node_[x] = true;
    ++policy.avoided_nodes_;
  }
  for (int w : policy.waypoints_) {
    if (policy.avoid_node_[w]) {
      Bad(text, "waypoint " + topology.NodeName(w) + " is also avoided");
    }
  }
  return policy;
}

bool PathCompliant(const Policy& policy, const Topology& topology, const std::vector<int>& path,
                   int hop_budget) {
  if (path.empty()) return false;
  if (static_cast<int>(path.size()) - 1 > hop_budget) return false;
  if (!policy.NodeAllowed(path[0])) return false;
  int q = policy.Start(path[0]);
  for (size_t i = 1; i < path.size(); ++i) {
    int link = topology.FindLink(path[i - 1], path[i]);
    if (link < 0 || !policy.LinkAllowed(link) || !policy.NodeAllowed(path[i])) return false;
    q = policy.Step(q, path[i]);
  }
  return q == policy.accepting();
}

}  // namespace jigsaw::d2r
