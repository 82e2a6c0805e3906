// A receiver-driven transport modelled after Homa (Montazeri et al., SIGCOMM'18), the PL2 paper's
// baseline, on lossy Ethernet with 8 strict-priority queues per switch egress.
//
// Sender: a message's first rtt_bytes (one bandwidth-delay product unless set) go unscheduled at
// once, at priority 0..unscheduled_levels-1 by message size (<= 1 KB, <= 8 KB, <= 64 KB, larger);
// the rest only as the receiver grants it. The NIC sends the packet of the message with the fewest
// bytes left to send (SRPT) among those with granted, unsent bytes.
// Receiver: keeps every incomplete message it heard of; after each data packet it grants, to the
// `overcommit` messages with the fewest bytes left to receive (SRPT), up to received + rtt_bytes,
// at scheduled priority unscheduled_levels + rank (with max_per_sender, at most that many of one
// sender's messages among them); a message it will not grant yet gets one empty
// grant so the sender knows it arrived. On completion it sends DONE.
// Loss recovery: a receiver asks for a resend from the first missing packet of a message that made
// no progress for resend_timeout while granted bytes are missing, and, while it still makes none,
// again only after twice the previous wait each time (resend_timeout x 2^k, k capped at
// kMaxSenderBackoff; progress resets k). A sender that has sent all its
// unscheduled bytes and never heard from the receiver (no grant, resend or done: none of them
// acknowledged) resends them once after resend_timeout, and again only after twice the previous
// wait each time (resend_timeout x 2^k, k capped at kMaxSenderBackoff): unscheduled packets
// that merely wait in a deep queue are not resent in a loop. The receiver drops duplicates.
#ifndef JIGSAW_NET_HOMA_H_
#define JIGSAW_NET_HOMA_H_

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "net/config.h"
#include "net/packet.h"
#include "net/transport.h"

namespace jigsaw::net {

class Network;

struct HomaStats {
  uint64_t grants = 0;
  uint64_t resend_requests = 0;
  uint64_t sender_timeouts = 0;
  uint64_t duplicate_packets = 0;
};

class HomaTransport : public Transport {
 public:
  // The wait before a sender's k-th resend of unheard unscheduled bytes, and before a receiver's
  // k-th RESEND for a message without progress, is resend_timeout x 2^min(k, kMaxSenderBackoff)
  // (k = 0 for the first).
  static constexpr int kMaxSenderBackoff = 6;

  explicit HomaTransport(Network* network);
  const char* name() const override { return "homa"; }

  void Start(uint32_t flow) override;
  uint32_t NextPacket(uint32_t host, Time* wake) override;
  void Receive(uint32_t host, uint32_t packet) override;
  void OnTimer(uint32_t a, uint32_t b) override;

  const HomaStats& stats() const { return stats_; }
  // Unscheduled bytes of a message of `bytes` on `flow`'s path.
  uint64_t UnscheduledBytes(uint32_t flow) const;
  // Priority of a message's unscheduled packets.
  uint8_t UnscheduledPriority(uint64_t message_bytes) const;
  // Bytes granted so far to `flow` (what the sender may send).
  uint64_t granted(uint32_t flow) const { return out_[flow].granted; }

 private:
  struct OutMessage {
    uint64_t sent = 0;
    uint64_t granted = 0;
    uint8_t prio = 0;
    bool heard = false;  // a grant, resend or done came back
    bool active = false;
    uint8_t sender_resends = 0;  // resends of the unscheduled bytes while unheard
    Time last_sent = 0;
  };
  struct InMessage {
    uint64_t received = 0;
    uint64_t granted = 0;
    std::vector<uint64_t> have;  // bit per packet
    Time last_progress = 0;
    bool known = false;
    bool done = false;
    bool told = false;    // sent the empty "heard you" grant
    uint8_t resends = 0;  // RESENDs since the last progress
  };
  struct Host {
    std::vector<uint32_t> out;  // active outbound messages
    std::vector<uint32_t> in;   // incomplete inbound messages
    // Inbound messages with bytes still to grant, by (bytes left to receive, flow): SRPT order.
    std::set<std::pair<uint64_t, uint32_t>> to_grant;
    bool sender_timer = false;
    bool receiver_timer = false;
  };

  void Grow();
  // Grants after a data packet of `arrived` reached `host` (or completed it).
  void Regrant(uint32_t host, uint32_t arrived);
  void SendControl(uint32_t from_host, uint32_t to_host, uint32_t flow, PacketType type,
                   uint64_t seq, uint8_t prio);
  void ArmTimer(uint32_t host, bool receiver);
  uint64_t RttBytes(uint32_t flow) const;

  Network* network_;
  const NetConfig& config_;
  std::vector<OutMessage> out_;
  std::vector<InMessage> in_;
  std::vector<Host> hosts_;
  HomaStats stats_;
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_HOMA_H_
