// Route tables that a control plane installs entry by entry (the SDN controller's rules, the IGP's
// FIB updates): per switch, rounds of changes, each written serially.
//
// A round brings a switch's table from what is in force to the routing rule's routes under a
// failure set. Only entries whose next hop changes are written (a missing route becomes a drop
// entry); entry k of the round (in destination, then automaton-state order) is in force from
// start + (k + 1) x per_entry, where start is the later of the round's arrival at the switch and
// the end of the switch's previous round. Only destinations whose failure-free routes use a
// failed link (or that an earlier round changed) can change, so only those are examined.
#ifndef JIGSAW_D2R_INSTALL_PLAN_H_
#define JIGSAW_D2R_INSTALL_PLAN_H_

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "d2r/routing.h"
#include "net/units.h"

namespace jigsaw::d2r {

class InstallPlan {
 public:
  explicit InstallPlan(Router& router);

  // One round that moves the listed switches, (switch, arrival time), to `set`'s routes. Returns
  // for each the time its last changed entry is in force (its start when nothing changes).
  std::vector<net::Time> AddRound(const std::vector<std::pair<int, net::Time>>& arrivals, int set,
                                  net::Time per_entry);
  // The failure set whose routes are in force at x for (q, dst) at time t (0 before any change),
  // and the earliest later time at which that changes (net::kNever if none).
  int SetAt(int x, int q, int dst, net::Time t, net::Time* next_change) const;
  // The failure set of x's latest round started by time t (0 before any), and when the next starts.
  int RoundSetAt(int x, net::Time t, net::Time* next_change) const;

  int64_t entries_written(int x) const { return written_[x]; }
  // Over every switch: the entries written in all, and the most any one switch wrote.
  int64_t total_entries_written() const;
  int64_t max_entries_written() const;
  int rounds(int x) const { return static_cast<int>(rounds_[x].size()); }
  net::Time last_write() const { return last_write_; }

 private:
  struct Round {
    int set;
    net::Time start;
    net::Time per_entry;
    std::vector<std::pair<int32_t, int32_t>> changed;  // (key = dst * Q + q, rank), by key
  };

  Router& router_;
  std::vector<std::vector<Round>> rounds_;
  // Per switch: entries whose installed next hop differs from the failure-free one.
  std::vector<std::unordered_map<int32_t, int32_t>> overrides_;
  std::vector<bool> destination_changed_;
  std::vector<net::Time> busy_until_;
  std::vector<int64_t> written_;
  net::Time last_write_ = 0;
};

}  // namespace jigsaw::d2r

#endif  // JIGSAW_D2R_INSTALL_PLAN_H_
