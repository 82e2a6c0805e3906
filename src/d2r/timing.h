// The timing constants of every scheme, with their defaults. docs/d2r.md gives the source of each
// default (published measurement, standard, or stated assumption); every one is a CLI option.
#ifndef JIGSAW_D2R_TIMING_H_
#define JIGSAW_D2R_TIMING_H_

#include <cstdint>

#include "net/units.h"

namespace jigsaw::d2r {

// How the D2R data plane runs its BFS (docs/d2r.md, "Pipeline model").
//  kEntry: one probe packet recirculates; each pass examines Timing::adjacency_per_pass adjacency
//          entries (sequential BFS, a queue in registers).
//  kLevel: one BFS level per pass: each frontier probe is multicast by the packet replication
//          engine to one replica per adjacency entry of its product node, and every replica that
//          discovers a node recirculates as next level's probe. A level with E entries takes
//          pass + (E - 1) x replica_gap (the replicas share the recirculation port).
enum class BfsMode : uint8_t { kEntry, kLevel };

// Which packets a D2R switch holds while it computes (docs/d2r.md, "Pipeline model").
//  kPort:  those whose next hop is a port it knows is down, or that its old route would send back
//          into the product node they came from; the rest follow the old tree.
//  kStale: also those whose route in its old tree crosses any link it knows is down (a subtree
//          label test; until a recomputed tree's labels are ready, every packet). The default:
//          the port rule sends such packets on towards the failure while the BFS runs, and from
//          there the detour may not fit in their remaining hops; the stale rule holds them
//          (Schemes.StaleHoldRuleHoldsPacketsWhoseOldRouteCrossesAKnownFailure).
enum class HoldRule : uint8_t { kPort, kStale };

struct Timing {
  // Common to all schemes.
  net::Time detection = 0;                       // failure -> adjacent switch knows
  net::Time switch_latency = net::kMicrosecond;  // one pipeline traversal per hop
  uint32_t packet_bytes = 1500;                  // data packets (serialisation per hop)
  // A packet delayed (held) longer than this in all counts as disrupted for
  // recovery_bounded; shorter holds do not (docs/d2r.md, "Metrics").
  net::Time delay_bound = 100 * net::kMicrosecond;
  int ttl = 64;  // IP time to live set by the sending host (the Linux default): hops per packet

  // D2R data plane.
  net::Time pass = net::kMicrosecond;  // one recirculation pass (ingress + egress + loopback)
  int adjacency_per_pass = 1;          // adjacency entries a BFS pass can examine
  int64_t buffer_packets = 4096;       // packets a switch can hold while it computes
  BfsMode bfs = BfsMode::kLevel;
  HoldRule hold = HoldRule::kStale;
  // kLevel: one probe replica on a 100 Gb/s recirculation port (64 B + 20 B preamble and gap).
  net::Time replica_gap = 6720 * net::kPicosecond;
  // Precomputed single-failure trees (docs/d2r.md, "Pipeline model"): before any failure each
  // switch computes, in idle pipeline time, the trees for the failure of each of up to
  // backup_trees links of its failure-free trees with an end within backup_radius hops (nearest
  // first, then by link id), and keeps them in registers; when the first failure it learns of is
  // one of them, it switches to that tree instead of running a BFS. 0 trees: none.
  int backup_trees = 16;
  int backup_radius = 1;
  // A held packet that has a waypoint ahead is released when the BFS discovers (next waypoint,
  // next state), whose first hop every destination's tree path inherits (docs/d2r.md).
  bool early_waypoint_release = true;

  // Central SDN controller.
  net::Time controller_compute = 10 * net::kMillisecond;  // recompute all routes
  net::Time rule_install = net::kMillisecond;             // per changed rule, serial per switch
  // Control messages over the surviving data-plane links (like D2R's notices), or over an
  // out-of-band network along the failure-free paths that the failures do not touch.
  bool in_band_control = true;

  // Link-state IGP (also what restores LFA-protected traffic to its final routes).
  net::Time lsa_generation = 10 * net::kMillisecond;  // detection -> LSA sent
  net::Time flood_per_hop = 2 * net::kMillisecond;    // LSA processing before re-flooding
  net::Time spf_delay = 50 * net::kMillisecond;       // initial SPF back-off (RFC 8405)
  net::Time spf_base = net::kMillisecond;             // SPF run: base + per node
  net::Time spf_per_node = 5 * net::kMicrosecond;
  net::Time fib_per_entry = 100 * net::kMicrosecond;  // per changed FIB entry, serial

  // Precomputed fast reroute (loop-free alternates).
  net::Time lfa_switchover = 0;  // backup next hop is pre-installed in hardware
};

}  // namespace jigsaw::d2r

#endif  // JIGSAW_D2R_TIMING_H_
