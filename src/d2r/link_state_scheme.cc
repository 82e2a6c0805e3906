#include <algorithm>
#include <map>

#include "d2r/baselines.h"
#include "net/event_queue.h"

namespace jigsaw::d2r {
namespace {

constexpr uint8_t kLsa = 2;

}  // namespace

LinkStateScheme::LinkStateScheme(ScenarioContext& context)
    : context_(context), plan_(*context.router) {
  const Topology& topology = *context.topology;
  const Timing& timing = *context.timing;
  const int n = topology.num_nodes();
  const size_t failures = context.failed_links.size();
  first_lsa_.assign(n, net::kNever);

  // Flooding: receipt[x][i] = when router x first has the LSA of failure i.
  std::vector<std::vector<net::Time>> receipt(n, std::vector<net::Time>(failures, net::kNever));
  net::EventQueue events;
  for (size_t i = 0; i < failures; ++i) {
    for (int d : context.detectors[i]) {
      events.Push(timing.detection + timing.lsa_generation, kLsa, static_cast<uint32_t>(d),
                  static_cast<uint32_t>(i));
    }
  }
  while (!events.empty()) {
    net::Event event = events.Pop();
    const int x = static_cast<int>(event.a), i = static_cast<int>(event.b);
    if (receipt[x][i] != net::kNever) continue;
    receipt[x][i] = event.time;
    ++lsas_processed_;
    for (const Adjacent& adjacent : topology.adjacency[x]) {
      if (context.link_failed[adjacent.link] || context.node_failed[adjacent.node]) continue;
      if (receipt[adjacent.node][i] != net::kNever) continue;
      events.Push(event.time + timing.flood_per_hop + topology.links[adjacent.link].delay, kLsa,
                  static_cast<uint32_t>(adjacent.node), event.b);
    }
  }

  // Each router runs SPF rounds in turn; rounds that use the same failure set are installed
  // together (they differ only in timing).
  const net::Time spf_time = timing.spf_base + timing.spf_per_node * n;
  std::vector<std::vector<std::pair<net::Time, int>>> heard(n);
  for (int x = 0; x < n; ++x) {
    if (context.node_failed[x]) continue;
    for (size_t i = 0; i < failures; ++i) {
      if (receipt[x][i] != net::kNever)
        heard[x].emplace_back(receipt[x][i], context.failed_links[i]);
    }
    std::sort(heard[x].begin(), heard[x].end());
    if (!heard[x].empty()) first_lsa_[x] = heard[x].front().first;
  }
  std::vector<size_t> used(n, 0);
  std::vector<std::vector<int>> known(n);
  std::vector<net::Time> fib_done(n, 0);
  while (true) {
    std::map<int, std::vector<std::pair<int, net::Time>>> by_set;  // set -> (router, SPF end)
    for (int x = 0; x < n; ++x) {
      if (used[x] == heard[x].size()) continue;
      const net::Time start = std::max(heard[x][used[x]].first + timing.spf_delay, fib_done[x]);
      for (; used[x] < heard[x].size() && heard[x][used[x]].first <= start; ++used[x]) {
        known[x].push_back(heard[x][used[x]].second);
      }
      ++spf_runs_;
      by_set[context.router->Intern(known[x])].emplace_back(x, start + spf_time);
    }
    if (by_set.empty()) break;
    for (const auto& [set, arrivals] : by_set) {
      std::vector<net::Time> ends = plan_.AddRound(arrivals, set, timing.fib_per_entry);
      for (size_t i = 0; i < arrivals.size(); ++i) fib_done[arrivals[i].first] = ends[i];
    }
  }
}

Decision LinkStateScheme::Decide(int x, const Packet& packet, net::Time t, net::Time* next_change) {
  const int set = plan_.SetAt(x, packet.q, packet.dst, t, next_change);
  const int next = context_.router->NextHop(set, x, packet.q, packet.dst);
  if (next < 0) return {Decision::kDrop, -1, 0, DropReason::kNoRoute};
  return {Decision::kForward, next};
}

Decision LinkStateScheme::PlainDecide(int x, const Packet& packet, net::Time t,
                                      net::Time* next_change) {
  const int set = plan_.RoundSetAt(x, t, next_change);
  Router& plain = *context_.plain;
  const int next = plain.NextHop(plain.Intern(context_.router->Links(set)), x, 0, packet.dst);
  if (next < 0) return {Decision::kDrop, -1, 0, DropReason::kNoRoute};
  return {Decision::kForward, next};
}

Json LinkStateScheme::Totals() const {
  Json json;
  json["lsas_processed"] = lsas_processed_;
  json["spf_runs"] = spf_runs_;
  json["fib_updates"] = plan_.total_entries_written();
  json["max_fib_updates_per_switch"] = plan_.max_entries_written();
  return json;
}

Json LinkStateScheme::PerSwitch() const {
  const Topology& topology = *context_.topology;
  Json list = Json::array();
  for (int x = 0; x < topology.num_nodes(); ++x) {
    if (plan_.entries_written(x) == 0) continue;
    Json entry;
    entry["switch"] = topology.NodeName(x);
    entry["first_lsa_us"] = RoundTo(net::ToMicroseconds(first_lsa_[x]), 3);
    entry["spf_runs"] = plan_.rounds(x);
    entry["fib_updates"] = plan_.entries_written(x);
    list.push_back(std::move(entry));
  }
  return list;
}

}  // namespace jigsaw::d2r
