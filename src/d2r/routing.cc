#include "d2r/routing.h"

#include <algorithm>

namespace jigsaw::d2r {

Router::Router(const Topology& topology, const Policy& policy)
    : topology_(topology), policy_(policy), q_(policy.num_states()) {
  Intern({});
}

int Router::Intern(std::vector<int> links) {
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  for (size_t id = 0; id < sets_.size(); ++id) {
    if (sets_[id].links == links) return static_cast<int>(id);
  }
  LinkSet set;
  set.dead.assign(topology_.links.size(), false);
  for (int l : links) set.dead[l] = true;
  set.links = std::move(links);
  set.to.resize(topology_.nodes.size());
  set.next.resize(topology_.nodes.size());
  sets_.push_back(std::move(set));
  return static_cast<int>(sets_.size()) - 1;
}

void Router::ForgetFailures() { sets_.resize(1); }

const std::vector<int32_t>& Router::DistancesTo(int set_id, int dst) {
  LinkSet& set = sets_[set_id];
  if (set.to[dst]) return *set.to[dst];
  const int n = topology_.num_nodes();
  auto dist = std::make_unique<std::vector<int32_t>>(static_cast<size_t>(n) * q_, kUnreachable);
  if (policy_.NodeAllowed(dst)) {
    std::vector<int32_t> queue;
    queue.reserve(dist->size());
    const int target = dst * q_ + policy_.accepting();
    (*dist)[target] = 0;
    queue.push_back(target);
    for (size_t head = 0; head < queue.size(); ++head) {
      const int p = queue[head];
      const int y = p / q_, qy = p % q_;
      const int32_t d = (*dist)[p] + 1;
      // Predecessor states q with Step(q, y) == qy.
      int preds[2];
      int count = 0;
      const bool y_is_next_waypoint = qy < policy_.accepting() && policy_.waypoints()[qy] == y;
      if (!y_is_next_waypoint) preds[count++] = qy;
      if (qy >= 1 && policy_.waypoints()[qy - 1] == y) preds[count++] = qy - 1;
      for (const Adjacent& adjacent : topology_.adjacency[y]) {
        const int x = adjacent.node;
        if (set.dead[adjacent.link] || !policy_.LinkAllowed(adjacent.link) ||
            !policy_.NodeAllowed(x)) {
          continue;
        }
        for (int i = 0; i < count; ++i) {
          const int from = x * q_ + preds[i];
          if ((*dist)[from] == kUnreachable) {
            (*dist)[from] = d;
            queue.push_back(from);
          }
        }
      }
    }
  }
  set.to[dst] = std::move(dist);
  return *set.to[dst];
}

const std::vector<int32_t>& Router::NextHops(int set_id, int dst) {
  LinkSet& set = sets_[set_id];
  if (set.next[dst]) return *set.next[dst];
  const std::vector<int32_t>& dist = DistancesTo(set_id, dst);
  auto next = std::make_unique<std::vector<int32_t>>(dist.size(), -1);
  for (int x = 0; x < topology_.num_nodes(); ++x) {
    for (int q = 0; q < q_; ++q) {
      const int32_t d = dist[x * q_ + q];
      if (d == kUnreachable || d == 0) continue;
      for (const Adjacent& adjacent : topology_.adjacency[x]) {
        if (set.dead[adjacent.link] || !policy_.LinkAllowed(adjacent.link) ||
            !policy_.NodeAllowed(adjacent.node)) {
          continue;
        }
        if (dist[adjacent.node * q_ + policy_.Step(q, adjacent.node)] == d - 1) {
          (*next)[x * q_ + q] = adjacent.node;
          break;
        }
      }
    }
  }
  set.next[dst] = std::move(next);
  return *set.next[dst];
}

bool Router::RoutesUse(int dst, const std::vector<int>& links) {
  const std::vector<int32_t>& next = NextHops(0, dst);
  for (int link : links) {
    const int a = topology_.links[link].a, b = topology_.links[link].b;
    for (int q = 0; q < q_; ++q) {
      if (next[a * q_ + q] == b || next[b * q_ + q] == a) return true;
    }
  }
  return false;
}

std::vector<int> Router::Path(int set_id, int src, int dst) {
  std::vector<int> path;
  if (!policy_.NodeAllowed(src)) return path;
  int q = policy_.Start(src);
  if (Distance(set_id, src, q, dst) == kUnreachable) return path;
  path.push_back(src);
  int x = src;
  while (!(x == dst && q == policy_.accepting())) {
    int y = NextHop(set_id, x, q, dst);
    path.push_back(y);
    q = policy_.Step(q, y);
    x = y;
  }
  return path;
}

const ForwardTree& Router::Tree(int set_id, int x, int q) {
  LinkSet& set = sets_[set_id];
  const int root = x * q_ + q;
  auto it = set.trees.find(root);
  if (it != set.trees.end()) return *it->second;
  auto tree = std::make_unique<ForwardTree>();
  const size_t size = topology_.nodes.size() * static_cast<size_t>(q_);
  tree->parent.assign(size, -1);
  tree->dist.assign(size, kUnreachable);
  if (policy_.NodeAllowed(x)) {
    std::vector<int32_t> queue;
    queue.reserve(size);
    tree->dist[root] = 0;
    queue.push_back(root);
    for (size_t head = 0; head < queue.size(); ++head) {
      const int p = queue[head];
      const int u = p / q_, qu = p % q_;
      for (const Adjacent& adjacent : topology_.adjacency[u]) {
        ++tree->scanned;
        const int y = adjacent.node;
        if (set.dead[adjacent.link] || !policy_.LinkAllowed(adjacent.link) ||
            !policy_.NodeAllowed(y)) {
          continue;
        }
        const int child = y * q_ + policy_.Step(qu, y);
        if (tree->dist[child] == kUnreachable) {
          tree->dist[child] = tree->dist[p] + 1;
          tree->parent[child] = p;
          queue.push_back(child);
        }
      }
    }
    tree->reached = static_cast<int64_t>(queue.size());
  }
  const ForwardTree& result = *tree;
  set.trees.emplace(root, std::move(tree));
  return result;
}

}  // namespace jigsaw::d2r

namespace jigsaw::d2r {

std::vector<int64_t> Router::DiscoveryScans(int set_id, int x, int q,
                                            const std::vector<int>& targets) {
  std::vector<int64_t> result(targets.size(), -1);
  if (targets.empty()) return result;
  const LinkSet& set = sets_[set_id];
  std::vector<int64_t> found(topology_.nodes.size() * static_cast<size_t>(q_), -1);
  std::vector<int32_t> queue;
  const int root = x * q_ + q;
  found[root] = 0;
  queue.push_back(root);
  int64_t scanned = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    const int u = queue[head] / q_, qu = queue[head] % q_;
    for (const Adjacent& adjacent : topology_.adjacency[u]) {
      ++scanned;
      const int y = adjacent.node;
      if (set.dead[adjacent.link] || !policy_.LinkAllowed(adjacent.link) ||
          !policy_.NodeAllowed(y)) {
        continue;
      }
      const int child = y * q_ + policy_.Step(qu, y);
      if (found[child] >= 0) continue;
      found[child] = scanned;
      queue.push_back(child);
    }
  }
  for (size_t i = 0; i < targets.size(); ++i) result[i] = found[targets[i]];
  return result;
}

LevelProfile Router::Levels(int set_id, int x, int q, const std::vector<int>& targets) {
  LevelProfile profile;
  profile.target_level.assign(targets.size(), -2);
  profile.target_rank.assign(targets.size(), 0);
  if (!policy_.NodeAllowed(x)) return profile;
  const LinkSet& set = sets_[set_id];
  const size_t size = topology_.nodes.size() * static_cast<size_t>(q_);
  // Per product node: level of the expansion that discovered it and rank within that level.
  std::vector<int32_t> level(size, -2);
  std::vector<int64_t> rank(size, 0);
  const int root = x * q_ + q;
  level[root] = -1;
  std::vector<int32_t> frontier{root}, next;
  for (int32_t l = 0; !frontier.empty(); ++l) {
    int64_t read = 0;
    for (int32_t p : frontier) {
      const int u = p / q_, qu = p % q_;
      for (const Adjacent& adjacent : topology_.adjacency[u]) {
        ++read;
        const int y = adjacent.node;
        if (set.dead[adjacent.link] || !policy_.LinkAllowed(adjacent.link) ||
            !policy_.NodeAllowed(y)) {
          continue;
        }
        const int child = y * q_ + policy_.Step(qu, y);
        if (level[child] != -2) continue;
        level[child] = l;
        rank[child] = read;
        next.push_back(child);
      }
    }
    profile.entries.push_back(read);
    profile.frontier.push_back(static_cast<int64_t>(frontier.size()));
    frontier.swap(next);
    next.clear();
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    profile.target_level[i] = level[targets[i]];
    profile.target_rank[i] = rank[targets[i]];
  }
  return profile;
}

int64_t Router::Scanned(int set_id, int x, int q) {
  if (q_ != 1) return Tree(set_id, x, q).scanned;
  if (!policy_.NodeAllowed(x)) return 0;
  LinkSet& set = sets_[set_id];
  if (set.component.empty()) {
    set.component.assign(topology_.nodes.size(), -1);
    std::vector<int> stack;
    for (int start = 0; start < topology_.num_nodes(); ++start) {
      if (set.component[start] >= 0 || !policy_.NodeAllowed(start)) continue;
      const int c = static_cast<int>(set.component_scanned.size());
      set.component_scanned.push_back(0);
      set.component[start] = c;
      stack.push_back(start);
      while (!stack.empty()) {
        const int u = stack.back();
        stack.pop_back();
        set.component_scanned[c] += static_cast<int64_t>(topology_.adjacency[u].size());
        for (const Adjacent& adjacent : topology_.adjacency[u]) {
          const int y = adjacent.node;
          if (set.dead[adjacent.link] || !policy_.LinkAllowed(adjacent.link) ||
              !policy_.NodeAllowed(y) || set.component[y] >= 0) {
            continue;
          }
          set.component[y] = c;
          stack.push_back(y);
        }
      }
    }
  }
  return set.component_scanned[set.component[x]];
}

}  // namespace jigsaw::d2r
