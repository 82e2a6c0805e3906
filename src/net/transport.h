// The interface between the simulator's fabric (links, switches, NIC ports: network.h) and a
// message transport running on its hosts (Homa-like in homa.h, PL2 in pl2.h).
//
// The fabric owns packets, ports and time; a transport owns its per-message and per-host state and
// decides what each host's NIC sends next. The fabric calls the transport when a message starts,
// when a host NIC is idle with no control packet waiting (NextPacket), when any packet reaches a
// host, when one of the transport's timers fires, and, for packets the transport marks as switch
// control (PacketType::kRequest), when such a packet reaches a switch. The transport acts only
// through the fabric's public "for transports" methods (Network::AllocatePacket, SendControl,
// SetTransportTimer, ...). Homa-like and PL2
// run without PFC and without ECN; the built-in RDMA queue-pair transport (queue_pair.h: rate-based
// CC laws, cc.h) runs with the fabric's PFC, ECN and INT and uses the optional hooks below, whose
// defaults leave the other transports unchanged.
#ifndef JIGSAW_NET_TRANSPORT_H_
#define JIGSAW_NET_TRANSPORT_H_

#include <cstdint>

#include "net/units.h"

namespace jigsaw::net {

inline constexpr uint32_t kNoPacket = UINT32_MAX;

// Event types a transport may push itself with Network::PushTypedTimer (the fabric's own types
// lie below kFirstTransportEventType): the queue pairs' retransmission timeout (operand a = flow),
// and kFirstTransportEventType and above (cc.h's DCQCN timers).
inline constexpr uint8_t kEventRetransmit = 6;
inline constexpr uint8_t kFirstTransportEventType = 200;

class Transport {
 public:
  virtual ~Transport() = default;
  virtual const char* name() const = 0;

  // Flow `flow` (a message, Network::flow) became active at its sending host.
  virtual void Start(uint32_t flow) = 0;
  // Host `host`'s NIC is idle: returns a packet handle to transmit now, or kNoPacket and sets
  // *wake to when it might have one (kNever: when told by Start, Receive or a timer).
  virtual uint32_t NextPacket(uint32_t host, Time* wake) = 0;
  // Host `host`'s NIC port `port` (a global port index; hosts with several NIC ports call it per
  // port) is idle: as NextPacket. The fabric counts a returned packet as data sent and transmits
  // it. Default: NextPacket(host, wake).
  virtual uint32_t NextPacketOnPort(uint32_t host, uint32_t port, Time* wake) {
    (void)port;
    return NextPacket(host, wake);
  }
  // A packet reached host `host`; the transport frees or reuses it.
  virtual void Receive(uint32_t host, uint32_t packet) = 0;
  // A timer the transport set with Network::SetTransportTimer fired.
  virtual void OnTimer(uint32_t a, uint32_t b) = 0;
  // An event of a transport-specific type (not kTransportTimer) that the transport pushed with
  // Network::PushTypedTimer fired (the queue pairs' kRetransmit and DCQCN timers). Returns
  // whether it changed anything: false keeps it from extending NetStats::end. Default: true.
  virtual bool OnTypedTimer(uint8_t type, uint32_t a, uint32_t b) {
    (void)type;
    (void)a;
    (void)b;
    return true;
  }
  // The fabric is about to drop packet `packet` (it frees it right after). Default: nothing.
  virtual void OnDrop(uint32_t packet) { (void)packet; }
  // A kRequest packet reached switch `switch_index` on its local port `in_local`.
  virtual void SwitchReceive(uint32_t switch_index, uint16_t in_local, uint32_t packet) {
    (void)switch_index;
    (void)in_local;
    (void)packet;
  }
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_TRANSPORT_H_
