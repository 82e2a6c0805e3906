#include <algorithm>
#include <tuple>

#include "d2r/baselines.h"

namespace jigsaw::d2r {

LfaScheme::LfaScheme(ScenarioContext& context, LinkStateScheme& igp)
    : context_(context), igp_(igp) {}

int LfaScheme::Backup(int x, int dst, int primary) {
  const int64_t n = context_.topology->num_nodes();
  const int64_t key = (static_cast<int64_t>(x) * n + dst) * n + primary;
  auto it = backups_.find(key);
  if (it != backups_.end()) return it->second;
  Router& plain = *context_.plain;
  const std::vector<int32_t>& to_dst = plain.DistancesTo(0, dst);
  const std::vector<int32_t>& to_x = plain.DistancesTo(0, x);
  const std::vector<int32_t>& to_primary = plain.DistancesTo(0, primary);
  int best = -1;
  std::tuple<int, int32_t, int> best_rank{};
  for (const Adjacent& adjacent : context_.topology->adjacency[x]) {
    const int candidate = adjacent.node;
    if (candidate == primary) continue;
    const int64_t d_nd = to_dst[candidate];
    if (d_nd == kUnreachable) continue;
    if (!(d_nd < static_cast<int64_t>(to_x[candidate]) + to_dst[x])) continue;  // loop-free
    const bool node_protecting =
        candidate != dst && primary != dst &&
        d_nd < static_cast<int64_t>(to_primary[candidate]) + to_dst[primary];
    std::tuple<int, int32_t, int> rank{node_protecting ? 0 : 1, to_dst[candidate], candidate};
    if (best < 0 || rank < best_rank) {
      best = candidate;
      best_rank = rank;
    }
  }
  backups_.emplace(key, best);
  return best;
}

Decision LfaScheme::Decide(int x, const Packet& packet, net::Time t, net::Time* next_change) {
  Decision decision = context_.router->policy().NodeAllowed(x)
                          ? igp_.Decide(x, packet, t, next_change)
                          : igp_.PlainDecide(x, packet, t, next_change);
  if (decision.kind != Decision::kForward) return decision;
  const int link = context_.topology->FindLink(x, decision.next);
  if (!context_.link_failed[link]) return decision;
  // x is an end of the failed link: it has seen its port go down.
  const net::Time active = context_.timing->detection + context_.timing->lfa_switchover;
  if (t < active) {
    *next_change = std::min(*next_change, active);
    return decision;
  }
  const int backup = Backup(x, packet.dst, decision.next);
  if (backup >= 0) decision.next = backup;
  return decision;  // without an LFA the packet goes to the dead port and is lost
}

Json LfaScheme::Totals() const {
  int64_t protected_entries = 0;
  for (const auto& [key, backup] : backups_) protected_entries += backup >= 0;
  Json json;
  json["repairs_needed"] = backups_.size();
  json["repairs_with_lfa"] = protected_entries;
  json["lfa_coverage"] =
      backups_.empty() ? 1.0 : RoundTo(static_cast<double>(protected_entries) / backups_.size(), 4);
  return json;
}

Json LfaScheme::PerSwitch() const {
  const Topology& topology = *context_.topology;
  const int64_t n = topology.num_nodes();
  std::vector<int64_t> needed(n, 0), covered(n, 0);
  for (const auto& [key, backup] : backups_) {
    const int x = static_cast<int>(key / (n * n));
    ++needed[x];
    covered[x] += backup >= 0;
  }
  Json list = Json::array();
  for (int x = 0; x < n; ++x) {
    if (needed[x] == 0) continue;
    Json entry;
    entry["switch"] = topology.NodeName(x);
    entry["repairs_needed"] = needed[x];
    entry["repairs_with_lfa"] = covered[x];
    list.push_back(std::move(entry));
  }
  return list;
}

}  // namespace jigsaw::d2r
