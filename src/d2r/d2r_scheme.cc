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

std::vector<int> CandidateBackupLinks(const Topology& topology, int x, int radius) {
  const int n = topology.num_nodes();
  std::vector<int> hops(n, -1);
  std::vector<int> frontier = {x};
  hops[x] = 0;
  for (int h = 0; h < radius && !frontier.empty(); ++h) {
    std::vector<int> next;
    for (int y : frontier) {
      for (const Adjacent& adjacent : topology.adjacency[y]) {
        if (hops[adjacent.node] >= 0) continue;
        hops[adjacent.node] = h + 1;
        next.push_back(adjacent.node);
      }
    }
    frontier = std::move(next);
  }
  std::vector<std::pair<int, int>> near;  // (hops of the nearer end, link)
  for (int link = 0; link < topology.num_links(); ++link) {
    const int a = hops[topology.links[link].a], b = hops[topology.links[link].b];
    if (a < 0 && b < 0) continue;
    near.emplace_back(a < 0 ? b : (b < 0 ? a : std::min(a, b)), link);
  }
  std::sort(near.begin(), near.end());
  std::vector<int> links;
  for (const auto& entry : near) links.push_back(entry.second);
  return links;
}

RegisterState D2rRegisters(const Topology& topology, int num_states, const Timing& timing) {
  const HoldRule hold = timing.hold;
  const int64_t n = topology.num_nodes(), e = topology.num_links(), q = num_states;
  const int64_t node_bits = BitsFor(n), link_bits = BitsFor(e), product_bits = BitsFor(n * q);
  RegisterState state;
  state.adjacency_bits = 2 * e * (node_bits + link_bits);
  state.link_state_bits = e;
  // Dist, parent, first hop and path filter per product node and tree in two banks, and the old
  // tree's first hop, which forwards while the BFS writes the new tree.
  state.tree_bits = q * n * q * (2 * (16 + product_bits + 8 + kPathFilterBits) + 8);
  // A rollback tag per entry: the entries a rolled-back BFS wrote in levels it runs again count
  // as unvisited. At most one rollback per failed link.
  state.generation_bits = q * n * q * BitsFor(e + 1);
  if (hold == HoldRule::kStale) {
    // Two banks: the sweeps write a new tree's labels while the last labelled tree's are read.
    state.label_bits = 2 * (q * n * q * 2 * product_bits + 2 * kStaleIntervals * q * product_bits);
  }
  // Per tree, the queue of the BFS that built it (one product node id per slot, in BFS order) and
  // the first slot of each level: kept until the tree's next computation resumes it (kLevel).
  state.queue_bits = q * 2 * n * q * product_bits;
  // Precomputed single-failure trees: one slot per candidate link of the switch with the most,
  // at most timing.backup_trees; per slot Q trees of n x Q entries (no second bank, no path
  // filter: a precomputed tree is only ever the tree in force, never a BFS under way).
  if (timing.backup_trees > 0) {
    int64_t most = 0;
    for (int x = 0; x < n; ++x) {
      most = std::max<int64_t>(
          most,
          static_cast<int64_t>(CandidateBackupLinks(topology, x, timing.backup_radius).size()));
    }
    state.backup_trees = std::min<int64_t>(most, timing.backup_trees);
    const int64_t per_entry = 16 + product_bits + 8 + 2 * product_bits +
                              (hold == HoldRule::kStale ? 2 * product_bits : 0);
    state.backup_bits = state.backup_trees * q * n * q * per_entry;
  }
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
  backups_.assign(n, {});
  backups_known_.assign(n, false);
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

net::Time D2rScheme::BfsTime(int set, int x, int q) {
  Bfs bfs;
  bfs.set = set;
  bfs.resumes = {Resume{0, 0}};
  return BfsStarts(bfs, x, q).back();
}

int64_t D2rScheme::MaxLevelEntries(int set, int x, int q) {
  if (context_.timing->bfs != BfsMode::kLevel) return 1;
  int64_t most = 0;
  for (int64_t entries : context_.router->Levels(set, x, q, {}).entries) {
    most = std::max(most, entries);
  }
  return most;
}

std::vector<net::Time> D2rScheme::BfsStarts(const Bfs& bfs, int x, int q) {
  std::vector<net::Time> starts;
  if (context_.timing->bfs == BfsMode::kLevel) {
    const std::vector<int64_t> entries = context_.router->Levels(bfs.set, x, q, {}).entries;
    std::vector<net::Time> offset(entries.size() + 1, 0);  // as if run alone from 0
    for (size_t l = 0; l < entries.size(); ++l) offset[l + 1] = offset[l] + LevelTime(entries[l]);
    starts.resize(offset.size());
    size_t r = 0;
    net::Time extra = 0;  // levels slowed down by another BFS on the recirculation port
    for (size_t l = 0; l < offset.size(); ++l) {
      while (r < bfs.resumes.size() && static_cast<size_t>(bfs.resumes[r].level) <= l) {
        ++r;
        extra = 0;
      }
      const Resume resume = r > 0 ? bfs.resumes[r - 1] : Resume{0, 0};
      starts[l] = resume.at + offset[l] - offset[resume.level] + extra;
      if (l + 1 < offset.size() &&
          resume.at + offset[l + 1] - offset[resume.level] + extra > bfs.slow_from) {
        extra += bfs.slow;
      }
    }
    return starts;
  }
  const int64_t per_pass = std::max(1, context_.timing->adjacency_per_pass);
  const int64_t passes = (context_.router->Scanned(bfs.set, x, q) + per_pass - 1) / per_pass;
  const net::Time begin = bfs.resumes.empty() ? 0 : bfs.resumes.back().at;
  net::Time extra = 0;
  for (int64_t p = 0; p <= passes; ++p) {
    starts.push_back(begin + p * context_.timing->pass + extra);
    if (starts.back() + context_.timing->pass > bfs.slow_from) extra += bfs.slow;
  }
  return starts;
}

void D2rScheme::ChargeBfs(const Bfs& bfs, int x, int q, net::Time from, net::Time to,
                          SwitchWork* work) {
  const std::vector<net::Time> starts = BfsStarts(bfs, x, q);
  std::vector<int64_t> entries(starts.size() - 1, 1);  // kEntry: one recirculation per pass
  if (context_.timing->bfs == BfsMode::kLevel) {
    entries = context_.router->Levels(bfs.set, x, q, {}).entries;
  }
  // The levels (passes) begun in [from, to); a level cut short by a rollback counts in full.
  for (size_t l = 0; l + 1 < starts.size(); ++l) {
    if (starts[l] < from || starts[l] >= to) continue;
    work->bfs_passes += entries[l] > 0;
    work->recirculations += entries[l];
    work->busy += std::min(starts[l + 1], to) - starts[l];
  }
}

void D2rScheme::ChargeEpoch(const Epoch& epoch, int x, int q, SwitchWork* work) {
  ++work->recomputations;
  ChargeBfs(epoch.bfs, x, q, epoch.start, epoch.done, work);
  work->bfs_passes += epoch.reissued;
  work->recirculations += epoch.reissued;
  work->busy += epoch.reissued * context_.timing->pass;
  // The stopped BFS going on beside this one (its busy time overlaps: not added again).
  if (epoch.background.set >= 0) {
    SwitchWork background;
    ChargeBfs(epoch.background, x, q, epoch.start, epoch.done, &background);
    work->bfs_passes += background.bfs_passes;
    work->recirculations += background.recirculations;
  }
}

std::vector<net::Time> D2rScheme::DiscoveryTimes(const Bfs& bfs, int x, int q,
                                                 const std::vector<int>& targets,
                                                 std::vector<int32_t>* levels) {
  Router& router = *context_.router;
  const std::vector<net::Time> starts = BfsStarts(bfs, x, q);
  std::vector<net::Time> found(targets.size(), net::kNever);
  if (levels != nullptr) levels->assign(targets.size(), 0);
  if (context_.timing->bfs == BfsMode::kLevel) {
    const LevelProfile profile = router.Levels(bfs.set, x, q, targets);
    for (size_t i = 0; i < targets.size(); ++i) {
      const int32_t level = profile.target_level[i];
      if (levels != nullptr) (*levels)[i] = level;
      if (level == -1) found[i] = starts[0];
      if (level < 0) continue;
      found[i] = starts[level] + context_.timing->pass +
                 (profile.target_rank[i] - 1) * context_.timing->replica_gap;
    }
  } else {
    const std::vector<int64_t> scans = router.DiscoveryScans(bfs.set, x, q, targets);
    const int64_t per_pass = std::max(1, context_.timing->adjacency_per_pass);
    for (size_t i = 0; i < targets.size(); ++i) {
      if (scans[i] >= 0) found[i] = starts[(scans[i] + per_pass - 1) / per_pass];
    }
  }
  return found;
}

bool D2rScheme::PathFilterShows(int set, int x, int q, int target, const std::vector<int>& links) {
  const Topology& topology = *context_.topology;
  const ForwardTree& tree = context_.router->Tree(set, x, q);
  std::vector<bool> bits(kPathFilterBits, false);
  for (int p = target; tree.parent[p] >= 0; p = tree.parent[p]) {
    bits[topology.FindLink(tree.parent[p] / q_, p / q_) % kPathFilterBits] = true;
  }
  for (int link : links) {
    if (bits[link % kPathFilterBits]) return true;
  }
  return false;
}

std::vector<int> D2rScheme::Crossings(int set, int x, int q, const std::vector<int>& links) {
  const Topology& topology = *context_.topology;
  const Policy& policy = context_.router->policy();
  const ForwardTree& tree = context_.router->Tree(set, x, q);
  std::vector<int> children;
  for (int link : links) {
    for (int end = 0; end < 2; ++end) {
      const int a = end ? topology.links[link].b : topology.links[link].a;
      const int b = topology.Other(link, a);
      for (int qa = 0; qa < q_; ++qa) {
        const int child = b * q_ + policy.Step(qa, b);
        if (tree.dist[a * q_ + qa] != kUnreachable && tree.parent[child] == a * q_ + qa) {
          children.push_back(child);
        }
      }
    }
  }
  return children;
}

int D2rScheme::CrossingLevel(const Epoch& epoch, int x, int q, const std::vector<int>& links,
                             net::Time t) {
  const std::vector<int> children = Crossings(epoch.bfs.set, x, q, links);
  std::vector<int32_t> levels;
  const std::vector<net::Time> found = DiscoveryTimes(epoch.bfs, x, q, children, &levels);
  int crossing = -1;
  for (size_t i = 0; i < children.size(); ++i) {
    if (found[i] > t) continue;
    const int level = context_.timing->bfs == BfsMode::kLevel ? levels[i] : 0;
    if (crossing < 0 || level < crossing) crossing = level;
  }
  return crossing;
}

void D2rScheme::PlanTree(int x, int q) {
  const Policy& policy = context_.router->policy();
  if (!policy.NodeAllowed(x) || context_.node_failed[x]) return;
  Router& router = *context_.router;
  std::vector<std::pair<net::Time, int>> learned;
  for (size_t i = 0; i < learn_[x].size(); ++i) {
    if (learn_[x][i] != net::kNever) learned.emplace_back(learn_[x][i], static_cast<int>(i));
  }
  std::sort(learned.begin(), learned.end());
  // The BFS of `epoch` now computes the tree for the known failures.
  auto plan = [&](Epoch* epoch, const std::vector<int>& known) {
    epoch->bfs.set = router.Intern(known);
    if (epoch->background.set >= 0) {
      // The rerun and the stopped BFS share the recirculation port: each level of either is
      // charged the replicas of the other's largest level.
      const net::Time gap = context_.timing->replica_gap;
      epoch->bfs.slow = MaxLevelEntries(epoch->background.set, x, q) * gap;
      epoch->background.slow = MaxLevelEntries(epoch->bfs.set, x, q) * gap;
    }
    epoch->done = BfsStarts(epoch->bfs, x, q).back();
    // The new tree's subtree labels: a bottom-up and a top-down sweep over it after the BFS.
    epoch->labels_ready = epoch->done + 2 * BfsTime(epoch->bfs.set, x, q);
    PlanReleases(epoch, x, q);
  };
  std::vector<Epoch>& epochs = epochs_[x * q_ + q];
  std::vector<int> known;
  int tree_set = 0;  // the tree in force once the last computation has ended
  for (size_t g = 0; g < learned.size();) {
    const net::Time t = learned[g].first;
    std::vector<int> fresh;
    for (; g < learned.size() && learned[g].first == t; ++g) {
      fresh.push_back(context_.failed_links[learned[g].second]);
    }
    known.insert(known.end(), fresh.begin(), fresh.end());
    const bool computing = !epochs.empty() && epochs.back().done > t;
    if (!computing) {
      if (!TreeEdge(router.Tree(tree_set, x, q), fresh)) {
        continue;  // no failed edge in the tree: its paths are all intact
      }
      Epoch epoch{t, t, t, {}, tree_set, Bfs{-1, {Resume{0, t}}}, Bfs{}};
      const std::vector<int>& backups = BackupLinks(x);
      if (tree_set == 0 && known.size() == 1 &&
          std::binary_search(backups.begin(), backups.end(), known[0])) {
        // The tree for this failure was computed before it: the notice pass selects its bank.
        epoch.bfs.set = router.Intern(known);
        epoch.backup = true;
        epochs.push_back(std::move(epoch));
        tree_set = epochs.back().bfs.set;
        continue;
      }
      if (context_.timing->bfs == BfsMode::kLevel) {
        // The tree in force was built by a BFS whose queue (in BFS order, with each level's first
        // slot) is still in the registers. Its levels before the first one that discovered a node
        // across the new failures are those of the BFS for all known failures (Router::Tree,
        // tested), so the new BFS resumes there: the notice re-issues that level's frontier probes
        // from the queue, one pass each, when that is sooner than running the levels before.
        const std::vector<int> children = Crossings(tree_set, x, q, fresh);
        const LevelProfile old = router.Levels(tree_set, x, q, children);
        int level = -1;
        for (int32_t l : old.target_level) {
          if (l >= 0 && (level < 0 || l < level)) level = l;
        }
        net::Time kept = 0;  // the levels before `level`, run alone
        for (int l = 0; l < level; ++l) kept += LevelTime(old.entries[static_cast<size_t>(l)]);
        if (level > 0) {
          const int64_t reissued = old.frontier[static_cast<size_t>(level)];
          if (reissued * context_.timing->pass < kept) {
            // Levels 0..level-1 count as run before t (they are not charged).
            epoch.bfs.resumes = {Resume{0, t - kept},
                                 Resume{level, t + reissued * context_.timing->pass}};
            epoch.reissued = reissued;
          }
        }
      }
      epochs.push_back(std::move(epoch));
      plan(&epochs.back(), known);
    } else if (const int level = CrossingLevel(epochs.back(), x, q, fresh, t); level < 0) {
      // The BFS under way has discovered nothing across the new failures: it goes on with their
      // link-state bits down and builds the tree a BFS for all known failures would have built.
      plan(&epochs.back(), known);
    } else {
      // It has, in level `level`: the levels before are those of a BFS for all known failures
      // (nothing in them came across the new ones) and stay; the BFS rolls back and expands level
      // `level`'s frontier again (kEntry: it restarts). Destinations found so far keep the
      // release they had; found again later, they wait for the rerun from now on.
      Epoch& stopped = epochs.back();
      stopped.done = t;
      stopped.labels_ready = net::kNever;
      for (auto& release : stopped.release) release.second = std::min(release.second, t);
      Epoch rerun = stopped;
      rerun.start = t;
      rerun.reissued = 0;
      std::vector<Resume>& resumes = rerun.bfs.resumes;
      while (!resumes.empty() && resumes.back().level >= level) resumes.pop_back();
      if (level > 0) {
        // The notice re-issues one probe per frontier node (read from the BFS queue), a pass each.
        rerun.reissued =
            router.Levels(rerun.bfs.set, x, q, {}).frontier[static_cast<size_t>(level)];
      }
      resumes.push_back(Resume{level, t + rerun.reissued * context_.timing->pass});
      rerun.bfs.slow_from = t;
      rerun.background = Bfs{};
      if (context_.timing->bfs == BfsMode::kLevel) {
        // The stopped BFS goes on in its own register bank to its end, its probes carrying the
        // ids of the failures it computes for (at most kStaleIntervals) and taking every other
        // down link as up: a destination it finds whose path filter shows none of the failures it
        // did not know of has the same path in the rerun's tree (Router::Tree, tested) and is
        // released then.
        rerun.background = stopped.bfs;
        rerun.background.slow_from = t;
      }
      epochs.push_back(std::move(rerun));
      plan(&epochs.back(), known);
    }
    tree_set = epochs.back().bfs.set;
  }
  for (const Epoch& epoch : epochs) {
    if (epoch.backup) {
      ++work_[x].backup_switches;
      continue;
    }
    ChargeEpoch(epoch, x, q, &work_[x]);
    for (const auto& release : epoch.release) {
      work_[x].longest_hold = std::max(work_[x].longest_hold, release.second - epoch.start);
    }
    last_change_ = std::max(last_change_, epoch.done);
  }
}

void D2rScheme::PlanReleases(Epoch* epoch, int x, int q) {
  Router& router = *context_.router;
  epoch->release.clear();
  const Policy& policy = router.policy();
  std::vector<int> destinations, targets;
  for (int dst = 0; dst < context_.topology->num_nodes(); ++dst) {
    if (router.NextHop(epoch->old_set, x, q, dst) < 0) continue;
    destinations.push_back(dst);
    targets.push_back(dst * q_ + policy.accepting());
  }
  // A packet in state q before its next waypoint w: every compliant path from (x, q) enters
  // (w, q + 1) first, so each destination's tree path runs through that product node and
  // inherits its first hop: the held packet reads that entry (the automaton table gives w).
  // Destinations the BFS does not reach keep their release at its end (then dropped).
  const int release_node = q < policy.accepting() && context_.timing->early_waypoint_release
                               ? policy.waypoints()[static_cast<size_t>(q)] * q_ + q + 1
                               : -1;
  // When the BFS discovers each destination (the computation's end when never), or the stopped
  // BFS going on beside it, if its path filter shows none of the failures it did not know of.
  std::vector<net::Time> found = DiscoveryTimes(epoch->bfs, x, q, targets, nullptr);
  // Every destination `bfs` reaches is released no later than when it reaches release_node.
  auto release_at_waypoint = [&](const Bfs& bfs) {
    const net::Time at = DiscoveryTimes(bfs, x, q, {release_node}, nullptr)[0];
    for (net::Time& time : found) {
      if (time != net::kNever) time = std::min(time, at);
    }
  };
  if (release_node >= 0) release_at_waypoint(epoch->bfs);
  if (epoch->background.set >= 0) {
    const std::vector<int>& known = router.Links(epoch->bfs.set);
    std::vector<int> unknown;
    for (int link : known) {
      if (!router.Dead(epoch->background.set, link)) unknown.push_back(link);
    }
    const std::vector<net::Time> early = DiscoveryTimes(epoch->background, x, q, targets, nullptr);
    for (size_t i = 0; i < destinations.size(); ++i) {
      if (early[i] < found[i] &&
          !PathFilterShows(epoch->background.set, x, q, targets[i], unknown)) {
        found[i] = early[i];
      }
    }
    if (release_node >= 0 && !PathFilterShows(epoch->background.set, x, q, release_node, unknown)) {
      release_at_waypoint(epoch->background);
    }
  }
  for (size_t i = 0; i < destinations.size(); ++i) {
    epoch->release.emplace_back(destinations[i], std::min(found[i], epoch->done));
  }
}

bool D2rScheme::TreeEdge(const ForwardTree& tree, const std::vector<int>& links) const {
  const Topology& topology = *context_.topology;
  const Policy& policy = context_.router->policy();
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
}

const std::vector<int>& D2rScheme::BackupLinks(int x) {
  if (backups_known_[x]) return backups_[x];
  backups_known_[x] = true;
  std::vector<int>& links = backups_[x];
  const int most = context_.timing->backup_trees;
  if (most <= 0) return links;
  for (int link : CandidateBackupLinks(*context_.topology, x, context_.timing->backup_radius)) {
    if (static_cast<int>(links.size()) >= most) break;
    for (int q = 0; q < q_; ++q) {
      if (TreeEdge(context_.router->Tree(0, x, q), {link})) {
        links.push_back(link);
        break;
      }
    }
  }
  std::sort(links.begin(), links.end());
  return links;
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
      // The hold test changes when x learns of another failure or a tree's labels get ready.
      *next_change = epoch.done;
      for (net::Time learned : learn_[x]) {
        if (learned > t) *next_change = std::min(*next_change, learned);
      }
      // The labels in x's registers: those of the latest tree whose sweeps have ended (the
      // failure-free tree's are installed with it). Their routes are the routes of every later
      // tree wherever they avoid the failures learned since (a BFS that scans neighbours in a
      // fixed order keeps each path that avoids the removed links: Router::Tree, tested), so the
      // subtree-label test against every known failure is exact where it says "intact" and
      // holds the rest.
      int labelled = 0;
      for (size_t j = epoch_index; j-- > 0;) {
        if (epochs[j].labels_ready <= t) {
          labelled = epochs[j].bfs.set;
          break;
        }
        *next_change = std::min(*next_change, epochs[j].labels_ready);
      }
      set = epoch.old_set;
      // Held: a packet for a port x knows is down, or one its old route would send back into the
      // product node it came from (same switch, same automaton state: a loop no compliant route
      // takes, so that neighbour has rerouted through x and x's old route is stale).
      const int next = router.NextHop(set, x, packet.q, packet.dst);
      const bool bounce =
          next >= 0 && next == packet.from && router.policy().Step(packet.q, next) == packet.from_q;
      // With more known failures than stale-interval registers, x cannot tell intact routes from
      // broken ones and holds every packet.
      int known = 0;
      for (net::Time learned : learn_[x]) known += learned <= t;
      const bool blind = known > kStaleIntervals;
      if (next >= 0 && (bounce || KnowsDown(x, context_.topology->FindLink(x, next), t) ||
                        (context_.timing->hold == HoldRule::kStale &&
                         (blind || OldRouteKnownDown(labelled, x, packet.q, packet.dst, t))))) {
        auto entry = std::lower_bound(epoch.release.begin(), epoch.release.end(),
                                      std::make_pair(packet.dst, net::Time{INT64_MIN}));
        const net::Time found =
            entry != epoch.release.end() && entry->first == packet.dst ? entry->second : epoch.done;
        if (t < found) {
          *next_change = found;
          return {Decision::kHold, -1, found};
        }
        set = epoch.bfs.set;  // the BFS has found its destination: its first hop is final
      }
    } else {
      set = epoch.bfs.set;
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
  int64_t backup_switches = 0;
  net::Time longest = 0, hold = 0;
  for (const SwitchWork& work : work_) {
    recomputations += work.recomputations;
    bfs += work.bfs_passes;
    recirculations += work.recirculations;
    notices += work.notices;
    switches += work.recomputations > 0;
    backup_switches += work.backup_switches;
    longest = std::max(longest, work.busy);
    hold = std::max(hold, work.longest_hold);
  }
  const RegisterState registers = D2rRegisters(*context_.topology, q_, *context_.timing);
  Json json;
  json["switches_recomputing"] = switches;
  json["tree_recomputations"] = recomputations;
  json["backup_tree_switches"] = backup_switches;
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
  const RegisterState registers = D2rRegisters(topology, q_, *context_.timing);
  Json list = Json::array();
  for (int x = 0; x < topology.num_nodes(); ++x) {
    const SwitchWork& work = work_[x];
    if (work.recomputations == 0 && work.backup_switches == 0) continue;
    net::Time first = net::kNever;
    for (net::Time t : learn_[x]) first = std::min(first, t);
    Json entry;
    entry["switch"] = topology.NodeName(x);
    entry["learned_us"] = RoundTo(net::ToMicroseconds(first), 3);
    entry["tree_recomputations"] = work.recomputations;
    entry["backup_tree_switches"] = work.backup_switches;
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
