// D2R: policy-compliant rerouting computed in the data plane (a reconstruction; docs/d2r.md).
//
// Registers of every switch hold the topology (adjacency entries and one link-state bit per link)
// and, per automaton state q, a breadth-first tree rooted at (self, q): per product node its
// distance, parent and first hop, which give the next hop to every destination.
//
// On a failure: each live end detects it after Timing::detection and floods a failure notice in
// the data plane (one pass per switch, deduplicated by a register, re-multicast on live ports).
// A switch that learns of a failed link checks with one register read per tree whether the link
// is a tree edge (the parent of its far end is its near end). If it is, the notice packet
// recirculates to recompute that tree: with BfsMode::kEntry, one pass per
// Timing::adjacency_per_pass adjacency entries examined (queue pop, link-state read, visited
// test-and-set, distance/parent/first-hop write); with BfsMode::kLevel, one pass per BFS level,
// its probes replicated per adjacency entry and serialised on the recirculation port (timing.h).
// While it computes, a packet whose next hop is a port the switch knows is down, or whose next
// hop in the old tree leads back into the product node it came from (ingress port = egress port
// and the same automaton state, which the packet carries: that neighbour has already rerouted
// through this switch, so the old route is stale; without this rule the two would bounce the
// packet until this switch's BFS ends; a waypoint detour x-y-x changes the state and is not
// held) is held (recirculated; on each pass it
// reads its destination's entry in the new tree) until the BFS discovers its destination, whose
// first hop is then final, and forwarded on its new route from
// then (dropped at the end of the BFS if the destination was not found). Every other packet is
// forwarded by the old tree until the new one is complete (at worst it takes a detour through a
// switch that has already rerouted). With HoldRule::kStale the switch also holds packets whose
// route in its old tree crosses any link it knows is down (a subtree-label test: per tree, a
// pre-order index and subtree end per product node; a recomputed tree's labels are ready 2 x its
// BFS time after it; until then the test reads the labels of the last tree that has them, whose
// routes every later tree keeps wherever they avoid the failures learned since, so it is exact
// where it says "intact" and holds the rest; with more than kStaleIntervals known failures every
// packet is held while the switch computes). A notice that arrives during a computation joins it:
// if the BFS has not yet discovered a node across the new failure it goes on with the failure's
// link-state bit down (its result is the BFS for all known failures); if it has, in level l, it
// rolls back to level l (BfsMode::kLevel: the levels before are those of the BFS for all known
// failures; the notice re-issues level l's frontier probes from the BFS queue, one pass each, and
// a rollback tag per entry marks those written since as unvisited; kEntry: it restarts).
// Likewise a computation that begins when the switch is not computing (kLevel) resumes the BFS
// that built the tree in force (its queue and level boundaries stay in registers) at the first
// level that discovered a node across the new failures, when re-issuing that level's frontier
// (a pass per probe) is sooner than running the levels before: those levels are the new BFS's.
// Destinations found before the notice keep their release. Before any failure, each switch
// computes in idle pipeline time the trees for the failure of each of up to Timing::backup_trees
// links near it (BackupLinks) and keeps them (with their BFS queues and labels) in registers: when
// the first failure it learns of is one of them, the notice pass switches the tree in force to
// that one (a bank-select register write, free like the tree check) and nothing is held. Forwarding
// follows the routing rule of routing.h on the failures the switch knows; a packet whose hop budget
// cannot be met from here is dropped, never forwarded on a non-compliant path.
#ifndef JIGSAW_D2R_D2R_SCHEME_H_
#define JIGSAW_D2R_D2R_SCHEME_H_

#include <cstdint>
#include <vector>

#include "d2r/scheme.h"

namespace jigsaw::d2r {

// Stale-subtree interval registers per tree; more known failures in one tree than this would fall
// back to holding every packet while computing (never reached in the studies: at most 2).
inline constexpr int kStaleIntervals = 4;

// Bits of the path filter a level BFS writes per tree entry (the parent's filter, carried in the
// probe, OR the bit of the link it came over: link id modulo this). Exact on graphs with at most
// this many links; elsewhere two links may share a bit and a filter may show a link that is not on
// the path (a packet then waits for the rerun).
inline constexpr int kPathFilterBits = 128;

// Register state per switch for a topology and policy (the same on every switch).
struct RegisterState {
  int64_t adjacency_bits = 0;   // 2 entries per link: neighbour id + link id
  int64_t link_state_bits = 0;  // one per link
  // Per tree and product node: dist, parent, first hop and path filter in two banks (a rolled-back
  // BFS goes on in one while its rerun writes the other), and the old tree's first hop.
  int64_t tree_bits = 0;
  int64_t generation_bits = 0;  // per tree and product node: rollback tag (BfsMode::kLevel)
  int64_t queue_bits = 0;       // per tree: BFS queue (one product node id per slot), level starts
  // HoldRule::kStale: subtree labels (pre-order index and subtree end per product node and tree)
  // and per tree kStaleIntervals label intervals of subtrees cut off by known failures; two banks.
  int64_t label_bits = 0;
  // Precomputed single-failure trees: per tree slot and automaton state, per product node dist,
  // parent, first hop, BFS queue slot and level start, and (kStale) subtree labels.
  int64_t backup_trees = 0;
  int64_t backup_bits = 0;
  int64_t policy_entries = 0;  // automaton transition table entries (match-action, not registers)
  // BfsMode::kLevel: packet replication engine state (not registers): one multicast group per
  // product node, one replica per adjacency entry of its switch.
  int64_t multicast_groups = 0;
  int64_t multicast_replicas = 0;
  int64_t total_bits() const {
    return adjacency_bits + link_state_bits + tree_bits + generation_bits + queue_bits +
           label_bits + backup_bits;
  }
};
// Register slots are sized for the switch with the most candidate links (CandidateBackupLinks),
// at most timing.backup_trees.
RegisterState D2rRegisters(const Topology& topology, int num_states, const Timing& timing);

// The links with an end at most `radius` hops from x (failure-free topology, every link), nearest
// end first, then by link id: the candidates for x's precomputed single-failure trees.
std::vector<int> CandidateBackupLinks(const Topology& topology, int x, int radius);

class D2rScheme : public Scheme {
 public:
  explicit D2rScheme(ScenarioContext& context);

  const char* name() const override { return "d2r"; }
  Decision Decide(int x, const Packet& packet, net::Time t, net::Time* next_change) override;
  net::Time LastChange() const override { return last_change_; }
  Json Totals() const override;
  Json PerSwitch() const override;

  // When switch x learned of failure i (net::kNever if never): for tests and outputs.
  net::Time LearnTime(int x, int i) const { return learn_[x][i]; }
  // The links whose single-failure trees x has precomputed, ascending: the first
  // Timing::backup_trees candidates that are an edge of one of x's failure-free trees.
  const std::vector<int>& BackupLinks(int x);

 private:
  // A rollback of a level BFS: levels from `level` on begin again at `at` (level 0: a restart).
  struct Resume {
    int32_t level;
    net::Time at;
  };
  // One BFS: when it began ({0, its start}) and each rollback since, in order of increasing level
  // (a rolled-back BFS continues an earlier one from the levels it kept); from slow_from on each
  // of its levels takes `slow` longer (another BFS shares the recirculation port).
  struct Bfs {
    int set = -1;  // failure set it computes the tree for
    std::vector<Resume> resumes;
    net::Time slow_from = net::kNever;
    net::Time slow = 0;
  };
  // One stretch of time in which a switch computes: decisions from start to done use it.
  struct Epoch {
    net::Time start;
    net::Time
        done;  // new tree ready, or the BFS stopped for a rollback (then labels_ready = kNever)
    // Its subtree labels ready (the failure-free trees are installed with them): until then the
    // hold test reads the labels of the latest tree whose labels are ready.
    net::Time labels_ready;
    // When the BFS finds each destination's new first hop (done when it finds none), by
    // destination: when a held packet is released.
    std::vector<std::pair<int, net::Time>> release;
    int old_set;  // failure set the old tree was computed for
    Bfs bfs;      // computes the new tree (its set is the new tree's failure set)
    // After a rollback (kLevel): the stopped BFS, going on beside the rerun (set -1: none).
    Bfs background;
    int64_t reissued = 0;  // probes the notice re-issued for the rollback (a pass each)
    bool backup = false;   // a switch to a precomputed tree: no BFS, done at start
  };
  struct SwitchWork {
    int64_t recomputations = 0;
    int64_t bfs_passes = 0;      // sequential passes (kLevel: levels)
    int64_t recirculations = 0;  // packets recirculated (kLevel: replicas)
    int64_t notices = 0;
    int64_t backup_switches = 0;  // computations replaced by a precomputed tree
    net::Time busy = 0;           // time spent computing
    net::Time longest_hold = 0;   // longest wait for the destinations behind a dead port
  };

  void Flood();
  void PlanTree(int x, int q);
  // Time of a whole BFS for failure set `set` from (x, q), run alone.
  net::Time BfsTime(int set, int x, int q);
  // The most adjacency entries one level of that BFS reads (kEntry: 1).
  int64_t MaxLevelEntries(int set, int x, int q);
  // When each level (kEntry: pass) of a BFS begins, and last when it ends.
  std::vector<net::Time> BfsStarts(const Bfs& bfs, int x, int q);
  // Charges to `work` the levels (passes) of a BFS begun in [from, to).
  void ChargeBfs(const Bfs& bfs, int x, int q, net::Time from, net::Time to, SwitchWork* work);
  void ChargeEpoch(const Epoch& epoch, int x, int q, SwitchWork* work);
  // kLevel: time of one BFS level that reads `entries` adjacency entries.
  net::Time LevelTime(int64_t entries) const;
  // When a BFS discovers each of `targets` (product nodes; kNever when it does not), and in which
  // level (kLevel: -1 root, -2 never).
  std::vector<net::Time> DiscoveryTimes(const Bfs& bfs, int x, int q,
                                        const std::vector<int>& targets,
                                        std::vector<int32_t>* levels);
  // Whether the path filter of product node `target`'s entry in x's tree for state q and failure
  // set `set` (one bit per link on the path, link id modulo kPathFilterBits) has the bit of one
  // of `links`.
  bool PathFilterShows(int set, int x, int q, int target, const std::vector<int>& links);
  // The product nodes x's BFS tree for state q and failure set `set` reaches across one of
  // `links` (over a tree edge).
  std::vector<int> Crossings(int set, int x, int q, const std::vector<int>& links);
  // The first level in which the epoch's BFS has discovered a product node across one of `links`
  // by time t (kEntry: 0), or -1 when it has not.
  int CrossingLevel(const Epoch& epoch, int x, int q, const std::vector<int>& links, net::Time t);
  // Fills epoch->release for its computation.
  void PlanReleases(Epoch* epoch, int x, int q);
  // Whether one of `links` is an edge of `tree` (the parent of the far end is the near end).
  bool TreeEdge(const ForwardTree& tree, const std::vector<int>& links) const;
  // Whether x knows at time t that `link` is down.
  bool KnowsDown(int x, int link, net::Time t) const;
  // Whether the route to dst in x's tree for state q of failure set `set` (the subtree-label test
  // against the tree edges x knows to be down at t) crosses a link x knows is down.
  bool OldRouteKnownDown(int set, int x, int q, int dst, net::Time t);

  ScenarioContext& context_;
  int q_;
  std::vector<std::vector<net::Time>> learn_;  // [switch][failure]
  std::vector<int> failure_of_link_;           // link -> failure index, -1
  std::vector<std::vector<Epoch>> epochs_;     // [switch * Q + q]
  std::vector<SwitchWork> work_;
  std::vector<std::vector<int>> backups_;  // BackupLinks, filled on first use
  std::vector<bool> backups_known_;
  net::Time last_change_ = 0;
};

}  // namespace jigsaw::d2r

#endif  // JIGSAW_D2R_D2R_SCHEME_H_
