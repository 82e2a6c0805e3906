// The packet-level discrete-event simulator of a lossless RoCE fabric.
//
// Network turns a Topology into ports (one per link end, each with a rate, a propagation delay and
// strict-priority queues: control (ACK/NACK) first, then data), output-queued switches with a
// shared-buffer MMU (switch_mmu.h) that sends PFC PAUSE/RESUME upstream, marks ECN at egress and
// stamps INT for HPCC, and hosts whose NIC round-robins over the active queue pairs (flow.h)
// subject to each one's rate limiter and window, ACKs every data packet and runs the configured
// congestion-control law (cc.h). Routing is per-flow ECMP over shortest paths.
//
// Hosts run a Transport (transport.h): the RDMA queue pairs (queue_pair.h) with
// NetConfig::transport kRdma, Homa-like or PL2 otherwise. The fabric calls it for every host-side
// decision, and it acts through the "for transports" methods below. Data packets wait at each
// egress in one of kNumPriorities strict-priority queues by Packet::prio (always 0 for queue
// pairs).
//
// Users add flows and timers, then Run(); a NetObserver hears when a flow's last byte is delivered
// and when a timer fires, and may add more flows from there. Everything is deterministic for a
// given config (seed included).
#ifndef JIGSAW_NET_NETWORK_H_
#define JIGSAW_NET_NETWORK_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "core/rng.h"
#include "net/config.h"
#include "net/event_queue.h"
#include "net/flow.h"
#include "net/nic_scheduler.h"
#include "net/packet.h"
#include "net/routing.h"
#include "net/switch_mmu.h"
#include "net/topology.h"
#include "net/transport.h"

namespace jigsaw::net {

class NetObserver {
 public:
  virtual ~NetObserver() = default;
  virtual void OnFlowDelivered(uint32_t flow, uint64_t tag) = 0;
  virtual void OnTimer(uint32_t token) = 0;
};

struct NetStats {
  Time now = 0;  // the clock: the last event processed, idle timers included
  // The simulated end time: the last event that moved traffic or changed an unfinished flow
  // (packets, PFC, flow starts, observer timers, CC and retransmission timers of flows not yet
  // acknowledged). Timers that fire after their flow finished (DCQCN rate increase 900 us
  // later, the 1 ms retransmission timeout) do not extend it. Queue averages are over [0, end].
  Time end = 0;
  uint64_t events = 0;
  uint64_t data_packets = 0;
  uint64_t ack_packets = 0;
  uint64_t retransmitted_packets = 0;
  uint64_t drops = 0;
  // Conservation: payload leaving host NICs (retransmissions included) = payload reaching hosts
  // (duplicates included) + payload dropped + payload in flight.
  uint64_t payload_sent = 0;
  uint64_t payload_received = 0;
  uint64_t payload_dropped = 0;
  uint64_t ecn_marks = 0;
  uint64_t pause_frames = 0;
  uint64_t resume_frames = 0;
  uint32_t ports_ever_paused = 0;
  Time pause_time = 0;  // summed over ports
  uint64_t max_queue_bytes = 0;
  double avg_queue_bytes = 0;  // time average, mean over switch ports that carried data
  uint64_t peak_packets = 0;   // packets alive at once (pool size)
  // Control packets (ACK, grant, request) waiting at one port, at most: NIC ports (hosts pull data
  // one packet at a time, so this is all a NIC ever queues) and switch ports.
  uint64_t max_nic_control_packets = 0;
  uint64_t max_switch_control_packets = 0;
  // Whether the congestion-control law reacted: decisions (per ACK/NACK or CC timer) that left a
  // queue pair's rate lower than before (DCQCN's first-CNP cut and each alpha decrease, DCTCP's
  // once-per-window cut, TIMELY's gradient / t_high decrease, HPCC's rate below its reference),
  // and the queue pairs cut at least once.
  uint64_t rate_cuts = 0;
  uint64_t rate_cut_flows = 0;
  // Head-of-line blocking (queue pairs only; docs/net.md "PFC victims"). The root of a PAUSE is
  // the longest data queue of the pausing switch when it sends it, or, if that port is itself
  // paused, the root of that port's pause. A queue pair is blocked when one of its data packets
  // is queued at a paused switch port, or it has data left to send while its NIC is paused; it is
  // a head-of-line victim if one of those pauses has a root its own path does not cross. Counted
  // when the pause ends (a pause still on at --stop is not counted).
  uint64_t pfc_blocked_flows = 0;
  uint64_t hol_victim_flows = 0;
  uint32_t pause_roots = 0;  // distinct switch egress ports at the root of a pause
};

// Time series (EnableTimeSeries): samples every `interval` of the data queue at switch egress
// ports and of the rate limiter of every unfinished queue pair, and every PFC pause interval.
struct QueueSample {
  Time time = 0;
  uint32_t node = 0;
  uint16_t port = 0;  // local port index at `node`
  uint64_t bytes = 0;
};
struct PauseInterval {
  uint32_t node = 0;  // the paused egress port: its node and local index
  uint16_t port = 0;
  uint8_t priority = 0;  // always 0: PFC pauses every class of a port (one lossless class)
  Time start = 0;
  Time end = 0;
};
struct RateSample {
  Time time = 0;
  uint32_t flow = 0;
  double rate_bps = 0;
};

// Queue statistics of one switch egress port.
struct PortReport {
  uint32_t switch_node = 0;
  uint32_t peer_node = 0;  // the node at the other end of the link
  uint64_t max_queue_bytes = 0;
  double avg_queue_bytes = 0;  // time average over [0, NetStats::end]
  uint64_t tx_bytes = 0;
};

class QueuePairTransport;

class Network {
 public:
  // Throws UsageError if, with PFC on, a switch's buffer is smaller than its ports' PFC headroom
  // plus reserve (the MMU would then admit bytes the buffer does not have).
  Network(const Topology& topology, const NetConfig& config);
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  uint32_t num_hosts() const { return static_cast<uint32_t>(host_nodes_.size()); }
  void set_observer(NetObserver* observer) { observer_ = observer; }

  // A message of `bytes` (> 0) from host rank src to host rank dst (src != dst) starting at `start`
  // (>= now) in traffic class `priority` (< kNumPriorities, 0 served first). Throws InputError
  // naming the topology if no path exists (unless a link has failed: the flow then never ends).
  uint32_t AddFlow(uint32_t src, uint32_t dst, uint64_t bytes, Time start, uint64_t tag,
                   uint8_t priority = 0);
  void AddTimer(Time at, uint32_t token);

  // Takes every link between nodes a and b down at `at`: packets queued for or travelling on it
  // are lost, PFC on it is lifted, and routing recomputes shortest paths without it (flows move
  // to the survivors; lost packets are recovered by NACK / timeout). A flow left without any
  // path gives up at its next timeout. Throws UsageError if a and b share no link.
  void FailLink(uint32_t node_a, uint32_t node_b, Time at);

  // Records time series from the next Run on: samples at every multiple of `interval` (> 0)
  // while traffic is in progress (idle stretches are skipped); queues of switch ports that held
  // data since the previous sample, or of every switch port with `all_ports`. Sampling adds no
  // events to NetStats and changes nothing else.
  void EnableTimeSeries(Time interval, bool all_ports);
  const std::vector<QueueSample>& queue_samples() const { return queue_samples_; }
  const std::vector<RateSample>& rate_samples() const { return rate_samples_; }
  // Pause intervals in the order they ended; a pause still on ends at now().
  std::vector<PauseInterval> PauseIntervals() const;

  // Processes events in time order until none remain or the next is later than `until`.
  void Run(Time until = kNever);

  Time now() const { return now_; }
  // Whether any event (traffic, timer) is still pending: Run(until) returned at `until`.
  bool HasPendingEvents() const { return !events_.empty(); }
  const Flow& flow(uint32_t id) const { return flows_[id]; }
  size_t num_flows() const { return flows_.size(); }
  NetStats Stats() const;
  // Every switch egress port, in port order.
  std::vector<PortReport> SwitchPorts() const;
  const NetConfig& config() const { return config_; }
  const Transport* transport() const { return transport_.get(); }
  // Host NIC priorities (nic_scheduler.h): gives host `host`'s NIC ports priority classes, every
  // class in `initial_band`; a queue pair uses Flow::nic_class, set (through mutable_flow) before
  // it starts. Queue pairs only: throws UsageError with another transport. The returned
  // scheduler (one per port; the host's first port's here) lives as long as the Network.
  NicScheduler* InstallNicScheduler(uint32_t host, uint16_t classes, uint8_t initial_band);
  // Bytes (headers, ACKs and PFC frames included) host `host`'s NIC ports put on their links,
  // and those the links towards it delivered (its peers' tx).
  uint64_t HostTxBytes(uint32_t host) const;
  uint64_t HostRxBytes(uint32_t host) const;

  // For transports (transport.h).
  uint32_t AllocatePacket();  // all fields zero
  Packet& packet(uint32_t handle) { return packets_[handle]; }
  void FreePacket(uint32_t handle) { packets_.Free(handle); }
  // The INT records of packet `handle` (Packet::hops of them are valid; switches stamp them).
  const IntHop* packet_hops(uint32_t handle) { return packets_.hops(handle); }
  Flow& mutable_flow(uint32_t id) { return flows_[id]; }
  // Queues a control packet (served before data) at host `host`'s NIC, or at the switch port
  // towards packet.dst_host when sent by switch `switch_index`.
  void SendControl(uint32_t host, uint32_t handle);
  void SwitchSendControl(uint32_t switch_index, uint32_t handle);
  // Asks host `host`'s NIC for its next packet if it is idle.
  void KickHost(uint32_t host) { Kick(host_port_[host]); }
  void SetTransportTimer(Time at, uint32_t a, uint32_t b);
  // The receiver holds the last byte of `flow` (tells the observer once), or the sender knows it.
  void MarkDelivered(uint32_t flow);
  void MarkAcked(uint32_t flow);
  uint64_t host_rate_bps(uint32_t host) const { return ports_[host_port_[host]].rate_bps; }
  Time host_delay(uint32_t host) const { return ports_[host_port_[host]].delay; }
  // The host at the other end of a switch's local port, or UINT32_MAX if it is a switch.
  uint32_t HostBehind(uint32_t switch_index, uint16_t local) const;
  // Bytes queued now for data at the egress of a switch's local port.
  uint64_t SwitchQueueBytes(uint32_t switch_index, uint16_t local) const;
  uint32_t SwitchNumPorts(uint32_t switch_index) const;

  // For transports bound to NIC ports (the queue pairs, queue_pair.h; Flow::src_port).
  // Global port indices run over [0, num_ports()); host `host`'s NIC ports are
  // [host_port(host), host_port(host) + host_num_ports(host)).
  uint32_t num_ports() const { return static_cast<uint32_t>(ports_.size()); }
  uint32_t host_port(uint32_t host) const { return host_port_[host]; }
  uint32_t host_num_ports(uint32_t host) const { return nodes_[host_nodes_[host]].num_ports; }
  // Asks NIC port `port` for its next packet if it is idle (Transport::NextPacketOnPort).
  void KickPort(uint32_t port) { Kick(port); }
  // Queues control packet `handle` (an ACK/NACK of packet.flow, towards packet.dst_host) at the
  // NIC port of host `host` that the flow's route takes, counts it in NetStats::ack_packets and
  // kicks that port. If no route is left (failed links) it drops the packet instead (counted,
  // Transport::OnDrop called) and returns false.
  bool SendControlRouted(uint32_t host, uint32_t handle);
  // Pushes an event of a transport's own type on the event queue: `type` is kEventRetransmit
  // (queue_pair.h) or >= kFirstTransportEventType; `at` >= now(). When it fires, the fabric calls
  // Transport::OnTypedTimer(type, a, b), in (time, push order) like every event.
  void PushTypedTimer(Time at, uint8_t type, uint32_t a, uint32_t b);
  // Counters of NetStats a transport owns the meaning of: a data packet that resends bytes sent
  // before (retransmitted_packets), and a congestion-control decision that lowered flow `flow`'s
  // rate (rate_cuts, rate_cut_flows).
  void CountRetransmission() { ++stats_.retransmitted_packets; }
  void CountRateCut(uint32_t flow);
  // Whether a packet may have been lost: true without PFC, or once any packet was dropped.
  bool losses_possible() const { return losses_possible_; }
  // False only once failed links left no path from host src to host dst.
  bool HostsConnected(uint32_t src_host, uint32_t dst_host) const {
    return !links_failed_ || HasPath(src_host, dst_host);
  }

 private:
  // The fields a forwarded packet touches fill the first two cache lines (checked below): line 0
  // what Kick, Transmit and Arrive read, line 1 the first data queue and the queue accounting.
  struct alignas(64) Port {
    uint32_t node = 0;
    uint32_t peer = 0;  // global index of the port at the other end of the link
    uint16_t local = 0;
    bool is_switch = false;  // of its node
    bool busy = false;
    bool paused = false;
    bool failed = false;    // its link is down
    bool lossy = false;     // error_rate > 0
    uint8_t data_mask = 0;  // bit p: data[p] not empty
    uint64_t rate_bps = 0;
    Time delay = 0;
    PacketFifo control;
    uint64_t queued_bytes = 0;
    // Line 1.
    uint64_t tx_bytes = 0;
    double queue_integral = 0;  // byte-picoseconds
    Time queue_since = 0;
    uint64_t max_queue = 0;
    uint64_t sample_max = 0;          // largest queue since the last time-series sample
    PacketFifo data[kNumPriorities];  // data[0] ends line 1, the others are cold
    // Cold.
    double error_rate = 0;
    uint64_t kmin = 0;
    uint64_t kmax = 0;
    uint64_t max_control = 0;  // packets
    Time wake_at = kNever;
    Time paused_since = 0;
    Time pause_time = 0;
    bool ever_paused = false;
  };
  struct Node {
    bool is_switch = false;
    uint32_t first_port = 0;
    uint32_t num_ports = 0;
    uint32_t index = 0;  // host rank or switch index
  };

  // Throws UsageError if a switch's buffer cannot hold its ports' PFC headroom and reserve.
  void RequireRoomForHeadroom(const Topology& topology, uint32_t node,
                              const std::vector<SwitchMmu::PortSpec>& specs) const;
  // Returns false for a timer of a flow that has already finished (it changes nothing).
  bool Dispatch(const Event& event);
  // The egress port of `node` towards `dst_host` for `flow` (per-flow ECMP), or kNoRoute.
  // RoutePort remembers ComputeRoute's answers per flow (route_cache_) for the two directions
  // of a queue pair, so forwarding a packet does not look up the node x host routing table.
  uint32_t RoutePort(uint32_t node, uint32_t dst_host, uint32_t flow);
  uint32_t ComputeRoute(uint32_t node, uint32_t dst_host, uint32_t flow) const;
  void Kick(uint32_t port);
  void Transmit(uint32_t port, uint32_t packet);
  void Arrive(uint32_t port, uint32_t packet);
  void SwitchReceive(uint32_t port, uint32_t packet);
  void SwitchDequeue(uint32_t port, uint32_t packet);
  void StartFlow(uint32_t flow);
  void SendPfc(uint32_t ingress_port, bool pause);
  void ApplyPfc(uint32_t port, bool pause);
  void CountQueue(Port& port, int64_t delta);
  double AverageQueue(const Port& port) const;  // bytes, time average over [0, stats_.end]
  void Drop(uint32_t packet);
  void ComputePathTiming(Flow& flow, uint32_t id);
  void TransportSend(uint32_t port);
  void PushControl(Port& port, uint32_t handle);
  void TakeLinkDown(uint32_t failure);
  void Sample();
  bool HasPath(uint32_t src_host, uint32_t dst_host) const;
  // Counters of the PFC victims.
  uint32_t PauseRoot(uint32_t switch_node) const;
  void RecordBlocked(uint32_t port);
  void MarkBlocked(uint32_t flow, uint32_t root);
  bool PathCrosses(uint32_t flow, uint32_t port) const;

  NetConfig config_;
  std::string topology_name_;
  std::vector<Node> nodes_;
  std::vector<Port> ports_;
  std::vector<uint32_t> host_nodes_;
  std::vector<uint32_t> host_port_;     // first NIC port of each host
  std::vector<uint32_t> switch_nodes_;  // node of each switch index
  std::vector<SwitchMmu> mmus_;
  std::vector<std::vector<uint32_t>> neighbors_;  // Routing's input; kNoNeighbor once down
  std::vector<uint8_t> is_switch_;
  std::unique_ptr<Routing> routing_;
  std::vector<std::pair<uint32_t, uint32_t>> failures_;  // node pairs of FailLink
  bool links_failed_ = false;
  Time sample_interval_ = 0;  // 0: no time series
  bool sample_all_ports_ = false;
  bool sample_pending_ = false;
  std::vector<QueueSample> queue_samples_;
  std::vector<RateSample> rate_samples_;
  std::vector<PauseInterval> pauses_;
  std::vector<Flow> flows_;
  // Per flow, the egress ports already computed at each node on the way to the flow's receiver
  // (direction 0) and back to its sender (direction 1); cleared when routing changes.
  struct RouteHop {
    uint32_t node;
    uint32_t port;
  };
  static constexpr int kCachedHops = 7;
  struct alignas(64) FlowRoutes {
    uint32_t dst_host[2];
    uint8_t count[2] = {0, 0};
    RouteHop hop[2][kCachedHops];
  };
  std::vector<FlowRoutes> route_cache_;
  PacketPool packets_;
  EventQueue events_;
  Rng rng_;
  NetObserver* observer_ = nullptr;
  std::unique_ptr<Transport> transport_;       // always set once constructed
  QueuePairTransport* queue_pairs_ = nullptr;  // transport_ with kRdma
  Time now_ = 0;
  bool losses_possible_ = false;
  bool acks_in_data_ = false;  // AckPriority::kData with the queue pairs
  NetStats stats_;
  // Per port: the root of the pause last sent to it (kNoRoute: none), and whether it ever was a
  // root. Per flow: cut at least once, the distinct roots of the pauses that blocked it, victim.
  std::vector<uint32_t> pause_root_;
  std::vector<uint8_t> was_root_;
  std::vector<uint8_t> rate_cut_;
  std::vector<std::vector<uint32_t>> blocked_roots_;
  std::vector<uint8_t> hol_victim_;
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_NETWORK_H_
