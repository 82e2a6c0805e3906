// The RDMA queue-pair transport: what hosts run when NetConfig::transport is kRdma.
//
// Each message is a queue pair (flow.h) bound to its sender's NIC port (Flow::src_port). A NIC
// round-robins over its port's queue pairs that have data to send, an open window and a rate
// limiter that allows a packet now; the receiver ACKs every data packet in order and sends one
// NACK per gap (go-back-N); the sender runs the configured congestion-control law (cc.h) on every
// ACK/NACK and, where packets can be lost, a retransmission timeout. ECN marking, INT stamping and
// PFC stay in the fabric (network.h).
//
// It uses only Network's public "for transports" methods: typed timers (kEventRetransmit and the
// DCQCN timers, through PushTypedTimer), routed control sends, port kicks and counters. Its own
// state is the CC law and each NIC port's active queue pairs.
#ifndef JIGSAW_NET_QUEUE_PAIR_H_
#define JIGSAW_NET_QUEUE_PAIR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "net/cc.h"
#include "net/nic_scheduler.h"
#include "net/transport.h"

namespace jigsaw::net {

class Network;
struct Flow;
struct RateSample;

class QueuePairTransport : public Transport, private CcTimers {
 public:
  explicit QueuePairTransport(Network* network);

  const char* name() const override { return "rdma"; }
  void Start(uint32_t flow) override;
  // The queue pairs of host `host`'s first NIC port.
  uint32_t NextPacket(uint32_t host, Time* wake) override;
  uint32_t NextPacketOnPort(uint32_t host, uint32_t port, Time* wake) override;
  void Receive(uint32_t host, uint32_t packet) override;
  // Never called: the queue pairs set no kTransportTimer.
  void OnTimer(uint32_t a, uint32_t b) override;
  bool OnTypedTimer(uint8_t type, uint32_t a, uint32_t b) override;
  void OnDrop(uint32_t packet) override;

  // The queue pairs of NIC port `port` with data to send or to have acknowledged, in round-robin
  // order (for the PFC victim accounting).
  const std::vector<uint32_t>& active_flows(uint32_t port) const { return ports_[port].flows; }
  // Gives NIC port `port` priority classes (nic_scheduler.h) from now on; queue pairs already
  // active there join their Flow::nic_class. Returns the scheduler (owned here).
  NicScheduler* InstallScheduler(uint32_t port, uint16_t classes, uint8_t initial_band);
  // Appends the rate of every unfinished queue pair, in flow order, at `now`.
  void SampleRates(Time now, std::vector<RateSample>* out) const;

 private:
  struct PortQueues {
    std::vector<uint32_t> flows;
    size_t next_flow = 0;                     // round-robin cursor into flows
    std::unique_ptr<NicScheduler> scheduler;  // null: plain round-robin over flows
  };
  uint32_t NextScheduled(PortQueues& port, Time* wake);

  void PushCcTimer(Time at, uint8_t type, uint32_t id, uint32_t generation) override;
  uint32_t SendData(uint32_t id);
  void ReceiveData(uint32_t host, uint32_t packet);
  void ReceiveAck(uint32_t packet);
  void RateChanged(Flow& flow);
  void FinishSending(uint32_t id);
  void ArmRetransmitTimer(uint32_t id);
  void RetransmitTimeout(uint32_t id);

  Network* net_;
  CongestionControl cc_;
  std::vector<PortQueues> ports_;  // per fabric port (only host NIC ports are used)
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_QUEUE_PAIR_H_
