#include "d2r/d2r_scheme.h"

#include <algorithm>
#include <cmath>

#include "net/event_queue.h"

namespace jigsaw::d2r {
namespace {

constexpr uint8_t kNotice = 1;

int64_t BitsFor(int64_t values) {
  int64_t bits = 1;
  while ((int64_t{1} << bits) < values) ++bits;
  return bits;
}

}  // namespace

RegisterState D2rRegisters(const Topology& topology, int num_states, HoldRule hold) {
  const int64_t n = topology.num_nodes(), e = topology.num_links(), q = num_states;
  const int64_t node_bits = BitsFor(n), link_bits = BitsFor(e), product_bits = BitsFor(n * q);
  RegisterState state;
  state.adjacency_bits = 2 * e * (node_bits + link_bits);
  state.link_state_bits = e;
  state.tree_bits = q * n * q * (16 + product_bits + 8);
  if (hold == HoldRule::kStale) {
    state.label_bits = q * n * q * 2 * product_bits + 2 * kStaleIntervals * q * product_bits;
  }
  state.queue_bits = n * q * product_bits;
  state.policy_entries = n * q;
  state.multicast_groups = n * q;
  state.multicast_replicas = 2 * e * q;
  return state;
}

D2rScheme::D2rScheme(ScenarioContext& context) : context_(context), q_(context.router->Q()) {
  const int n = context.topology->num_nodes();
  learn_.assign(n, std::vector<net::Time>(context.failed_links.size(), net::kNever));
  failure_of_link_.assign(context.topology->links.size(), -1);
  for (size_t i = 0; i < context.failed_links.size(); ++i) {
    failure_of_link_[context.failed_links[i]] = static_cast<int>(i);
  }
  epochs_.assign(static_cast<size_t>(n) * q_, {});
  work_.assign(n, {});
  Flood();
  for (int x = 0; x < n; ++x) {
    for (int q = 0; q < q_; ++q) PlanTree(x, q);
  }
}

void D2rScheme::Flood() {
  const Topology& topology = *context_.topology;
  net::EventQueue events;
  for (size_t i = 0; i < context_.detectors.size(); ++i) {
    for (int d : context_.detectors[i]) {
      events.Push(context_.timing->detection, kNotice, static_cast<uint32_t>(d),
                  static_cast<uint32_t>(i));
    }
  }
  while (!events.empty()) {
    net::Event event = events.Pop();
    const int x = static_cast<int>(event.a), i = static_cast<int>(event.b);
    if (learn_[x][i] != net::kNever) continue;
    learn_[x][i] = event.time;
    ++work_[x].notices;
    for (const Adjacent& adjacent : topology.adjacency[x]) {
      if (context_.link_failed[adjacent.link] || context_.node_failed[adjacent.node]) continue;
      if (learn_[adjacent.node][i] != net::kNever) continue;
      events.Push(event.time + context_.timing->pass + topology.links[adjacent.link].delay, kNotice,
                  static_cast<uint32_t>(adjacent.node), event.b);
    }
  }
}

net::Time D2rScheme::LevelTime(int64_t entries) const {
  if (entries <= 0) return 0;
  return context_.timing->pass + (entries - 1) * context_.timing->replica_gap;
}

net::Time D2rScheme::ComputeTime(int set, int x, int q, SwitchWork* work) {
  ++work->recomputations;
  net::Time time = 0;
  if (context_.timing->bfs == BfsMode::kLevel) {
    const LevelProfile profile = context_.router->Levels(set, x, q, {});
    for (int64_t entries : profile.entries) {
      time += LevelTime(entries);
      work->bfs_passes += entries > 0;
      work->recirculations += entries;
    }
  } else {
    const int64_t scanned = context_.router->Scanned(set, x, q);
    const int64_t per_pass = std::max(1, context_.timing->adjacency_per_pass);
    const int64_t passes = (scanned + per_pass - 1) / per_pass;
    work->bfs_passes += passes;
    work->recirculations += passes;
    time = passes * context_.timing->pass;
  }
  work->busy += time;
  return time;
}

void D2rScheme::PlanTree(int x, int q) {
  const Policy& policy = context_.router->policy();
  if (!policy.NodeAllowed(x) || context_.node_failed[x]) return;
  Router& router = *context_.router;
  const Topology& topology = *context_.topology;
  std::vector<std::pair<net::Time, int>> learned;
  for (size_t i = 0; i < learn_[x].size(); ++i) {
    if (learn_[x][i] != net::kNever) learned.emplace_back(learn_[x][i], static_cast<int>(i));
  }
  std::sort(learned.begin(), learned.end());
  // Whether one of `links` is a tree edge of `tree` (the far end's parent is the near end).
  auto tree_edge = [&](const ForwardTree& tree, const std::vector<int>& links) {
    for (int link : links) {
      for (int end = 0; end < 2; ++end) {
        const int a = end ? topology.links[link].b : topology.links[link].a;
        const int b = topology.Other(link, a);
        for (int qa = 0; qa < q_; ++qa) {
          const int pa = a * q_ + qa;
          if (tree.dist[pa] != kUnreachable && tree.parent[b * q_ + policy.Step(qa, b)] == pa) {
            return true;
          }
        }
      }
    }
    return false;
  };
  std::vector<Epoch>& epochs = epochs_[x * q_ + q];
  std::vector<int> known;
  int tree_set = 0;
  for (size_t g = 0; g < learned.size();) {
    const net::Time t = learned[g].first;
    std::vector<int> fresh;
    for (; g < learned.size() && learned[g].first == t; ++g) {
      fresh.push_back(context_.failed_links[learned[g].second]);
    }
    known.insert(known.end(), fresh.begin(), fresh.end());
    const bool computing = !epochs.empty() && epochs.back().done > t;
    if (!computing && !tree_edge(router.Tree(tree_set, x, q), fresh)) {
      continue;  // no failed edge in the tree: its paths are all intact
    }
    if (!computing) epochs.push_back(Epoch{t, t, t, {}, tree_set, tree_set});
    Epoch& epoch = epochs.back();  // a computation in progress restarts with more failures
    epoch.new_set = router.Intern(known);
    const net::Time compute = ComputeTime(epoch.new_set, x, q, &work_[x]);
    epoch.done = t + compute;
    // The new tree's subtree labels: a bottom-up and a top-down sweep over it after the BFS.
    epoch.labels_ready = epoch.done + 2 * compute;
    PlanReleases(&epoch, x, q, t);
    tree_set = epoch.new_set;
    last_change_ = std::max(last_change_, epoch.done);
  }
}

void D2rScheme::PlanReleases(Epoch* epoch, int x, int q, net::Time t) {
  Router& router = *context_.router;
  epoch->release.clear();
  std::vector<int> destinations, targets;
  for (int dst = 0; dst < context_.topology->num_nodes(); ++dst) {
    if (router.NextHop(epoch->old_set, x, q, dst) < 0) continue;
    destinations.push_back(dst);
    targets.push_back(dst * q_ + router.policy().accepting());
  }
  // When the BFS started at t discovers each destination (the computation's end when never).
  std::vector<net::Time> found(destinations.size(), epoch->done);
  if (context_.timing->bfs == BfsMode::kLevel) {
    const LevelProfile profile = router.Levels(epoch->new_set, x, q, targets);
    std::vector<net::Time> level_start(profile.entries.size() + 1, t);
    for (size_t l = 0; l < profile.entries.size(); ++l) {
      level_start[l + 1] = level_start[l] + LevelTime(profile.entries[l]);
    }
    for (size_t i = 0; i < destinations.size(); ++i) {
      const int32_t level = profile.target_level[i];
      if (level == -1) found[i] = t;
      if (level < 0) continue;
      found[i] = level_start[level] + context_.timing->pass +
                 (profile.target_rank[i] - 1) * context_.timing->replica_gap;
    }
  } else {
    const std::vector<int64_t> scans = router.DiscoveryScans(epoch->new_set, x, q, targets);
    const int64_t per_pass = std::max(1, context_.timing->adjacency_per_pass);
    for (size_t i = 0; i < destinations.size(); ++i) {
      if (scans[i] >= 0)
        found[i] = t + (scans[i] + per_pass - 1) / per_pass * context_.timing->pass;
    }
  }
  for (size_t i = 0; i < destinations.size(); ++i) {
    found[i] = std::min(found[i], epoch->done);
    epoch->release.emplace_back(destinations[i], found[i]);
    work_[x].longest_hold = std::max(work_[x].longest_hold, found[i] - t);
  }
}

bool D2rScheme::KnowsDown(int x, int link, net::Time t) const {
  const int i = failure_of_link_[link];
  return i >= 0 && learn_[x][i] <= t;
}

bool D2rScheme::OldRouteKnownDown(int set, int x, int q, int dst, net::Time t) {
  const Topology& topology = *context_.topology;
  const ForwardTree& tree = context_.router->Tree(set, x, q);
  for (int p = dst * q_ + context_.router->policy().accepting(); tree.parent[p] >= 0;
       p = tree.parent[p]) {
    if (KnowsDown(x, topology.FindLink(tree.parent[p] / q_, p / q_), t)) return true;
  }
  return false;
}

Decision D2rScheme::Decide(int x, const Packet& packet, net::Time t, net::Time* next_change) {
  Router& router = *context_.router;
  const std::vector<Epoch>& epochs = epochs_[x * q_ + packet.q];
  auto after = std::upper_bound(epochs.begin(), epochs.end(), t,
                                [](net::Time time, const Epoch& e) { return time < e.start; });
  int set = 0;
  *next_change = net::kNever;
  if (after == epochs.begin()) {
    if (!epochs.empty()) *next_change = epochs.front().start;
  } else {
    const size_t epoch_index = after - 1 - epochs.begin();
    const Epoch& epoch = *(after - 1);
    if (t < epoch.done) {
      // The hold test changes when x learns of another failure or the old tree's labels are ready.
      *next_change = epoch.done;
      for (net::Time learned : learn_[x]) {
        if (learned > t) *next_change = std::min(*next_change, learned);
      }
      if (epoch_index > 0 && epochs[epoch_index - 1].labels_ready > t) {
        *next_change = std::min(*next_change, epochs[epoch_index - 1].labels_ready);
      }
      set = epoch.old_set;
      // Held: a packet for a port x knows is down, or one its old route would send back into the
      // product node it came from (same switch, same automaton state: a loop no compliant route
      // takes, so that neighbour has rerouted through x and x's old route is stale).
      const int next = router.NextHop(set, x, packet.q, packet.dst);
      const bool bounce =
          next >= 0 && next == packet.from && router.policy().Step(packet.q, next) == packet.from_q;
      // Without the old tree's labels, or with more known failures than stale-interval
      // registers, x cannot tell intact routes from broken ones and holds every packet.
      int known = 0;
      for (net::Time learned : learn_[x]) known += learned <= t;
      const bool blind =
          known > kStaleIntervals || (epoch_index > 0 && epochs[epoch_index - 1].labels_ready > t);
      if (next >= 0 &&
          (bounce || KnowsDown(x, context_.topology->FindLink(x, next), t) ||
           (context_.timing->hold == HoldRule::kStale &&
            (blind || OldRouteKnownDown(epoch.old_set, x, packet.q, packet.dst, t))))) {
        auto entry = std::lower_bound(epoch.release.begin(), epoch.release.end(),
                                      std::make_pair(packet.dst, net::Time{INT64_MIN}));
        const net::Time found =
            entry != epoch.release.end() && entry->first == packet.dst ? entry->second : epoch.done;
        if (t < found) {
          *next_change = found;
          return {Decision::kHold, -1, found};
        }
        set = epoch.new_set;  // the BFS has found its destination: its first hop is final
      }
    } else {
      set = epoch.new_set;
      if (after != epochs.end()) *next_change = after->start;
    }
  }
  const int32_t d = router.Distance(set, x, packet.q, packet.dst);
  if (d == kUnreachable) return {Decision::kDrop, -1, 0, DropReason::kNoRoute};
  if (static_cast<int64_t>(packet.hops) + d > packet.budget) {
    return {Decision::kDrop, -1, 0, DropReason::kNoCompliantContinuation};
  }
  return {Decision::kForward, router.NextHop(set, x, packet.q, packet.dst)};
}

Json D2rScheme::Totals() const {
  int64_t recomputations = 0, bfs = 0, recirculations = 0, notices = 0, switches = 0;
  net::Time longest = 0, hold = 0;
  for (const SwitchWork& work : work_) {
    recomputations += work.recomputations;
    bfs += work.bfs_passes;
    recirculations += work.recirculations;
    notices += work.notices;
    switches += work.recomputations > 0;
    longest = std::max(longest, work.busy);
    hold = std::max(hold, work.longest_hold);
  }
  const RegisterState registers = D2rRegisters(*context_.topology, q_, context_.timing->hold);
  Json json;
  json["switches_recomputing"] = switches;
  json["tree_recomputations"] = recomputations;
  json["bfs_passes"] = bfs;
  json["recirculations"] = recirculations;
  json["notices_processed"] = notices;
  json["max_compute_us_per_switch"] = RoundTo(net::ToMicroseconds(longest), 3);
  json["max_hold_us_per_switch"] = RoundTo(net::ToMicroseconds(hold), 3);
  json["register_bits_per_switch"] = registers.total_bits();
  return json;
}

Json D2rScheme::PerSwitch() const {
  const Topology& topology = *context_.topology;
  const RegisterState registers = D2rRegisters(topology, q_, context_.timing->hold);
  Json list = Json::array();
  for (int x = 0; x < topology.num_nodes(); ++x) {
    const SwitchWork& work = work_[x];
    if (work.recomputations == 0) continue;
    net::Time first = net::kNever;
    for (net::Time t : learn_[x]) first = std::min(first, t);
    Json entry;
    entry["switch"] = topology.NodeName(x);
    entry["learned_us"] = RoundTo(net::ToMicroseconds(first), 3);
    entry["tree_recomputations"] = work.recomputations;
    entry["bfs_passes"] = work.bfs_passes;
    entry["recirculations"] = work.recirculations;
    entry["compute_us"] = RoundTo(net::ToMicroseconds(work.busy), 3);
    entry["hold_us"] = RoundTo(net::ToMicroseconds(work.longest_hold), 3);
    entry["register_bits"] = registers.total_bits();
    list.push_back(std::move(entry));
  }
  return list;
}

}  // namespace jigsaw::d2r
