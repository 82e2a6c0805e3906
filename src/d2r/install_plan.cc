#include "d2r/install_plan.h"

#include <algorithm>
#include <numeric>

namespace jigsaw::d2r {

InstallPlan::InstallPlan(Router& router) : router_(router) {
  const int n = router.topology().num_nodes();
  rounds_.assign(n, {});
  overrides_.assign(n, {});
  destination_changed_.assign(n, false);
  busy_until_.assign(n, 0);
  written_.assign(n, 0);
}

std::vector<net::Time> InstallPlan::AddRound(const std::vector<std::pair<int, net::Time>>& arrivals,
                                             int set, net::Time per_entry) {
  const int n = router_.topology().num_nodes(), q_count = router_.Q();
  const int accepting = router_.policy().accepting();
  std::vector<Round*> rounds;
  for (auto [x, arrival] : arrivals) {
    rounds_[x].push_back({set, std::max(arrival, busy_until_[x]), per_entry, {}});
    rounds.push_back(&rounds_[x].back());
  }
  const std::vector<int>& links = router_.Links(set);
  for (int dst = 0; dst < n; ++dst) {
    if (!destination_changed_[dst] && !router_.RoutesUse(dst, links)) continue;
    const std::vector<int32_t>& fresh = router_.NextHops(set, dst);
    const std::vector<int32_t>& intact = router_.NextHops(0, dst);
    for (size_t i = 0; i < arrivals.size(); ++i) {
      const int x = arrivals[i].first;
      std::unordered_map<int32_t, int32_t>& overrides = overrides_[x];
      for (int q = 0; q < q_count; ++q) {
        if (dst == x && q == accepting) continue;
        const int32_t key = dst * q_count + q;
        const int32_t base = intact[x * q_count + q];
        auto it = overrides.find(key);
        const int32_t installed = it == overrides.end() ? base : it->second;
        const int32_t next = fresh[x * q_count + q];
        if (next == installed) continue;
        rounds[i]->changed.emplace_back(key, static_cast<int32_t>(rounds[i]->changed.size()));
        if (next == base) {
          overrides.erase(it);
        } else {
          overrides[key] = next;
        }
        destination_changed_[dst] = true;
      }
    }
  }
  std::vector<net::Time> ends;
  for (size_t i = 0; i < arrivals.size(); ++i) {
    const int x = arrivals[i].first;
    const int64_t changed = static_cast<int64_t>(rounds[i]->changed.size());
    const net::Time end = rounds[i]->start + changed * per_entry;
    busy_until_[x] = end;
    written_[x] += changed;
    if (changed > 0) last_write_ = std::max(last_write_, end);
    ends.push_back(end);
  }
  return ends;
}

int InstallPlan::SetAt(int x, int q, int dst, net::Time t, net::Time* next_change) const {
  const int32_t key = dst * router_.Q() + q;
  *next_change = net::kNever;
  const std::vector<Round>& rounds = rounds_[x];
  for (auto it = rounds.rbegin(); it != rounds.rend(); ++it) {
    auto entry =
        std::lower_bound(it->changed.begin(), it->changed.end(), std::make_pair(key, INT32_MIN));
    if (entry == it->changed.end() || entry->first != key) continue;
    const net::Time in_force = it->start + (entry->second + 1) * it->per_entry;
    if (in_force <= t) return it->set;
    *next_change = std::min(*next_change, in_force);
  }
  return 0;
}

int InstallPlan::RoundSetAt(int x, net::Time t, net::Time* next_change) const {
  *next_change = net::kNever;
  int set = 0;
  for (const Round& round : rounds_[x]) {
    if (round.start > t) {
      *next_change = round.start;
      break;
    }
    set = round.set;
  }
  return set;
}

int64_t InstallPlan::total_entries_written() const {
  return std::accumulate(written_.begin(), written_.end(), int64_t{0});
}

int64_t InstallPlan::max_entries_written() const {
  return written_.empty() ? 0 : *std::max_element(written_.begin(), written_.end());
}

}  // namespace jigsaw::d2r
