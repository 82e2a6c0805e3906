// End-host congestion-control laws: DCQCN, DCTCP, TIMELY and HPCC, as the HPCC ns-3 fork runs them
// (../shared/research/network.md §2.2), each reacting to per-packet ACKs by changing Flow::rate;
// and `reno`, a TCP-like loss-based AIMD for lossy Ethernet (a NACK halves the rate once per
// window, each window without loss adds DctcpParams::rate_ai_bps).
//
// DCQCN's periodic alpha and rate-decrease timers are evaluated lazily (alpha is caught up to the
// current time when it is read; a decrease check is scheduled only on the grid point after a CNP),
// which gives the same rates as ticking every microsecond without millions of idle events. The
// rate-increase timer is a real event, kept alive only while the rate is below line rate.
#ifndef JIGSAW_NET_CC_H_
#define JIGSAW_NET_CC_H_

#include <cstdint>

#include "net/config.h"
#include "net/flow.h"
#include "net/packet.h"

namespace jigsaw::net {

// Event types the laws schedule (operand a = flow id, b = generation).
inline constexpr uint8_t kEventDcqcnDecrease = 200;
inline constexpr uint8_t kEventDcqcnIncrease = 201;

// Where the laws schedule their timer events; the queue-pair transport passes them on to the
// fabric's event queue (Network::PushTypedTimer), which hands them back when they fire.
class CcTimers {
 public:
  // An event of `type` (kEventDcqcn*) for flow `id` at `at` (>= now), with `generation`.
  virtual void PushCcTimer(Time at, uint8_t type, uint32_t id, uint32_t generation) = 0;

 protected:
  ~CcTimers() = default;
};

class CongestionControl {
 public:
  CongestionControl(const NetConfig& config, CcTimers* timers) : config_(config), timers_(timers) {}

  // Called when the flow starts, at line rate.
  void Start(Flow& flow) const;
  // An ACK or NACK reached the sender (flow.snd_una already advanced); `hops` = its INT records.
  void OnAck(uint32_t id, Flow& flow, const Packet& ack, const IntHop* hops, Time now);
  // A timer event of type kEventDcqcn* fired.
  void OnTimer(uint8_t type, uint32_t id, uint32_t generation, Flow& flow, Time now);

 private:
  void DcqcnAck(uint32_t id, Flow& flow, const Packet& ack, Time now);
  void DcqcnCatchUpAlpha(Flow& flow, Time now) const;
  void DcqcnDecrease(uint32_t id, Flow& flow, Time now);
  void DcqcnIncrease(uint32_t id, Flow& flow, Time now);
  void DctcpAck(Flow& flow, const Packet& ack) const;
  void RenoAck(Flow& flow, const Packet& ack) const;
  void TimelyAck(Flow& flow, const Packet& ack, Time now) const;
  void HpccAck(Flow& flow, const Packet& ack, const IntHop* hops) const;
  double Clamp(const Flow& flow, double rate) const;

  const NetConfig& config_;
  CcTimers* timers_;
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_CC_H_
