// PL2-style switch-scheduled transmission for a rack (one ToR switch): a reconstruction from the
// paper's abstract (docs/pl2.md), not the paper's algorithm.
//
// Senders ask before sending. A host sends a 64-byte REQUEST for one burst of at most
// burst_packets packets of a message; the switch, in its data plane, books the burst and answers
// with a GRANT carrying the time the sender must start, or a REJECT carrying when to ask again.
// Per switch port p (one per host) it keeps five 64-bit registers:
//   rx_free[p]: when the egress towards p is free of booked data (switch egress time),
//   tx_free[p]: when the uplink from p is free of booked data (sender time),
//   gap[p]:     start and end of one idle interval left on that uplink before a later booking,
//   ticket[p]:  the tail of the virtual queue of rejected bulk requests for egress p.
// A request from ingress port i for destination port e carries the burst's bytes (hence its wire
// time `dur` and its first packet's wire time `f`) and a class: SMALL (the whole message is this
// burst), BULK, or RETRY (BULK holding a ticket). With link delay d, control-packet wire time c,
// MTU wire time m, at the request's arrival time `now` the switch computes
//   lead     = now + 2d + f + m + 3c
//   earliest = max(rx_free[e], tx_free[i] + f + d)
//   start    = max(lead, earliest)                      (egress time of the burst's first packet)
//   early    = max(lead, rx_free[e], gap_start[i] + f + d)
//   in_gap   = early < start and early - f - d + dur + 2c <= gap_end[i];  if so start = early
//   accept   = start - now <= small_horizon                        for SMALL
//              start - now <= bulk_horizon + burst_packets * m      for RETRY
//              start - now <= bulk_horizon and ticket[e] <= now    for BULK
//   accept:  rx_free[e] = start + dur + 2c;  send = start - f - d
//            in_gap: gap_start[i] = send + dur + 2c
//            else:   if send > max(tx_free[i], now): gap[i] = [max(tx_free[i], now), send)
//                    tx_free[i] = send + dur + 2c
//            if not RETRY and ticket[e] > now: ticket[e] += dur + 2c;
//            GRANT(send at start - f - d)
//   reject:  t = max(ticket[e], earliest - bulk_horizon);  ticket[e] = t + dur + 2c;
//            REJECT(ask again at t - d - c, as RETRY)
// i.e. five registers read and written, about twenty adds, maxes and compares per request and no
// per-flow state: bounded state and work, as a Tofino-class pipeline allows (the division-free
// wire times come from the request). Data packets are plain data to the switch. The lead covers
// the grant's trip (it may wait for one data packet in service and a few control packets); the
// 2c guard leaves room for control packets, which overtake data at every port. Bulk bookings
// reach at most bulk_horizon ahead, so small messages (RPCs) wait at most about that long, and an
// uplink is never held for a far-away slot; rejected bulk requests come back one at a time in
// ticket order (FIFO, no retry storms, no starvation).
//
// Senders (pl2.bulk_oldest_first, the default): per destination only a host's oldest waiting bulk
// message asks, so one sender's messages to one receiver finish in start order while the
// receiver's FIFO tickets interleave the senders (a host-side choice; the switch is unchanged).
// Without it (`shared`) every waiting bulk message asks, so an overloaded receiver's messages share
// it burst by burst in ticket order.
//
// Invariants (tested): booked intervals never overlap on any egress or uplink, so the egress data
// queue only holds what store-and-forward timing and overtaking control packets shift: at most
// QueueBound() bytes; no data packet is ever dropped; every byte sent is delivered. Load beyond a
// link's capacity waits at the senders, in host memory (Pl2Stats::max_host_backlog_bytes).
#ifndef JIGSAW_NET_PL2_H_
#define JIGSAW_NET_PL2_H_

#include <cstdint>
#include <vector>

#include "net/config.h"
#include "net/transport.h"

namespace jigsaw::net {

class Network;

struct Pl2Stats {
  uint64_t requests = 0;
  uint64_t grants = 0;
  uint64_t rejects = 0;
  uint64_t max_host_backlog_bytes = 0;  // data waiting for a slot at one sender, at most
  Time max_grant_lateness = 0;          // how late a sender started a burst, at most
};

class Pl2Transport : public Transport {
 public:
  explicit Pl2Transport(Network* network);
  const char* name() const override { return "pl2"; }

  void Start(uint32_t flow) override;
  uint32_t NextPacket(uint32_t host, Time* wake) override;
  void Receive(uint32_t host, uint32_t packet) override;
  void OnTimer(uint32_t a, uint32_t b) override;
  void SwitchReceive(uint32_t switch_index, uint16_t in_local, uint32_t packet) override;

  const Pl2Stats& stats() const { return stats_; }
  // The design bound on any switch egress data queue, in bytes, for `config` (docs/pl2.md).
  static uint64_t QueueBound(const NetConfig& config);

 private:
  struct Burst {
    uint32_t flow;
    uint64_t offset;
    uint64_t bytes;
    Time start;  // sender time of the first bit
  };
  struct Message {
    uint64_t unrequested = 0;  // bytes not covered by a request or grant yet
    uint64_t next_offset = 0;  // first byte not yet assigned to a granted burst
    uint32_t outstanding = 0;  // requests asked or bursts granted, not yet sent
    uint32_t tickets = 0;      // rejections whose retry is still to be sent
    Time retry_at = 0;
  };
  struct Host {
    std::vector<uint32_t> waiting;  // flows with unrequested bytes, in start order
    std::vector<Burst> granted;     // bursts not started, by start time
    bool sending = false;
    Burst current{};
    uint64_t current_sent = 0;
    Time next_due = 0;  // planned start of the current burst's next packet
    int outstanding = 0;
    uint64_t backlog = 0;
    Time retry_timer = kNever;
  };
  struct SwitchPorts {
    std::vector<Time> rx_free;
    std::vector<Time> tx_free;
    std::vector<Time> ticket;
    std::vector<Time> gap_start;
    std::vector<Time> gap_end;
  };

  void TryRequest(uint32_t host);
  bool SendRequest(uint32_t host, uint32_t flow, bool reserve_for_small);
  Time WireTime(uint64_t bytes, uint64_t rate_bps) const;
  Time FirstPacketTime(uint64_t bytes, uint64_t rate_bps) const;

  Network* network_;
  const NetConfig& config_;
  std::vector<Message> messages_;
  std::vector<Host> hosts_;
  std::vector<SwitchPorts> switches_;
  std::vector<uint32_t> oldest_;  // TryRequest's scratch: oldest bulk message per destination
  Pl2Stats stats_;
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_PL2_H_
