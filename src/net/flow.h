// One RDMA queue pair carrying one message from a sender host to a receiver host.
//
// The sender side sends bytes [snd_una, bytes) in order at `rate` (a rate limiter: the next packet
// may leave at next_avail) and, with the window on, keeps at most one BDP (scaled by rate)
// unacknowledged; ACKs are cumulative and a NACK rewinds snd_nxt (go-back-N). The receiver side
// accepts bytes only in order. CcState holds the per-law state the congestion-control laws in cc.h
// update.
#ifndef JIGSAW_NET_FLOW_H_
#define JIGSAW_NET_FLOW_H_

#include <cstdint>

#include "net/packet.h"
#include "net/units.h"

namespace jigsaw::net {

struct CcState {
  // DCQCN (reaction point, Mellanox variant of the fork).
  double alpha = 1.0;
  double target_rate = 0;
  bool first_cnp = true;
  bool alpha_cnp = false;     // a CNP arrived since the last alpha tick
  bool decrease_cnp = false;  // a CNP arrived since the last decrease check
  bool decrease_pending = false;
  int stage = 0;
  Time alpha_next = 0;     // next alpha tick (ticks are evaluated lazily)
  Time decrease_next = 0;  // next point of the decrease-check grid
  uint32_t increase_generation = 0;
  bool increase_running = false;

  // DCTCP; TIMELY and HPCC share last_update_seq (the "one RTT later" marker).
  uint64_t last_update_seq = 0;
  double dctcp_alpha = 1.0;
  uint32_t ecn_count = 0;
  uint64_t batch_packets = 1;
  bool cwr = false;
  uint64_t high_seq = 0;

  // TIMELY.
  Time last_rtt = 0;
  double rtt_diff = 0;
  int increase_stage = 0;

  // HPCC.
  double utilization = 1.0;
  double reference_rate = 0;
  int hpcc_stage = 0;
  uint8_t hops = 0;
  IntHop hop[kMaxIntHops];
};

struct Flow {
  uint32_t src_host = 0;
  uint32_t dst_host = 0;
  uint32_t src_port = 0;  // global index of the sender's NIC port
  uint64_t bytes = 0;
  uint64_t tag = 0;
  uint8_t priority = 0;  // traffic class: the strict-priority data queue at every switch egress
  // Class at the sender's NIC where that port has a NicScheduler (nic_scheduler.h); set before
  // the flow starts.
  uint16_t nic_class = 0;
  Time start = 0;
  // The flow alone on an idle fabric (Network::IdealFct): its path's one-way latency plus every
  // packet, headers included, serialised at the path's slowest link.
  Time ideal_fct = 0;
  Time delivered = -1;  // receiver got the last byte
  Time acked = -1;      // sender got the last ACK

  uint64_t snd_nxt = 0;
  uint64_t snd_una = 0;
  uint64_t snd_max = 0;  // one past the highest byte ever sent: below it, a send is a resend
  uint64_t rcv_nxt = 0;
  double rate = 0;
  double line_rate = 0;
  Time next_avail = 0;
  Time last_send = 0;
  uint32_t last_size = 0;
  uint64_t bdp = 0;  // base RTT x line rate, in bytes
  Time base_rtt = 0;

  uint64_t last_nack_seq = UINT64_MAX;
  bool rto_armed = false;
  uint64_t rto_una = 0;

  CcState cc;

  // Whether the BDP window (scaled by rate / line rate when var_window) lets another packet out.
  bool WindowOpen(bool var_window) const {
    uint64_t limit = var_window ? static_cast<uint64_t>(bdp * (rate / line_rate)) : bdp;
    if (limit == 0) limit = 1;
    return snd_nxt - snd_una < limit;
  }
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_FLOW_H_
