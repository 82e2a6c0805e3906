#include "net/network.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "core/error.h"
#include "core/progress.h"
#include "net/homa.h"
#include "net/pl2.h"
#include "net/queue_pair.h"

namespace jigsaw::net {
namespace {

enum EventType : uint8_t {
  kArrive,          // a = receiving port, b = packet
  kTxDone,          // a = port
  kPfcFrame,        // a = port to pause/resume, b = 1 pause / 0 resume
  kWake,            // a = host port whose rate limiters may have opened
  kFlowStart,       // a = flow
  kTimer,           // a = observer token
  kRetransmit,      // a = flow
  kTransportTimer,  // a, b = the transport's operands
  kLinkDown,        // a = index into failures_
  kSample,          // time-series sample (not counted as an event)
};

static_assert(kRetransmit == kEventRetransmit);
static_assert(kSample < kFirstTransportEventType);
static_assert(kEventDcqcnDecrease >= kFirstTransportEventType &&
              kEventDcqcnIncrease >= kFirstTransportEventType);

constexpr uint32_t kNoRoute = UINT32_MAX;

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Bytes in flight over `picoseconds` at `rate_bps`, saturated far above any buffer.
uint64_t BytesInFlight(double rate_bps, double picoseconds) {
  const double bytes = rate_bps * picoseconds / 8e12;
  return bytes < 1e15 ? static_cast<uint64_t>(bytes) : uint64_t{1'000'000'000'000'000};
}

}  // namespace

Network::Network(const Topology& topology, const NetConfig& config)
    : config_(config), topology_name_(topology.name), rng_(config.seed) {
  static_assert(offsetof(Port, queued_bytes) + sizeof(uint64_t) <= 64, "Port line 0 overflows");
  static_assert(offsetof(Port, data) + sizeof(PacketFifo) <= 128, "Port line 1 overflows");
  const uint32_t num_nodes = topology.num_nodes();
  nodes_.resize(num_nodes);
  std::vector<std::vector<std::pair<uint32_t, bool>>> ends(num_nodes);  // (link, is side b)
  for (uint32_t i = 0; i < topology.links.size(); ++i) {
    ends[topology.links[i].a].push_back({i, false});
    ends[topology.links[i].b].push_back({i, true});
  }
  neighbors_.resize(num_nodes);
  std::vector<std::vector<uint32_t>>& neighbors = neighbors_;
  is_switch_ = topology.is_switch;
  std::vector<uint32_t> link_port_a(topology.links.size()), link_port_b(topology.links.size());
  uint32_t switch_count = 0;
  for (uint32_t node = 0; node < num_nodes; ++node) {
    if (ends[node].size() > 65535) {
      throw InputError(topology.name, 0, "node " + std::to_string(node) + " has too many links");
    }
    Node& n = nodes_[node];
    n.is_switch = topology.is_switch[node] != 0;
    n.first_port = static_cast<uint32_t>(ports_.size());
    n.num_ports = static_cast<uint32_t>(ends[node].size());
    if (n.is_switch) {
      n.index = switch_count++;
      switch_nodes_.push_back(node);
    } else {
      n.index = static_cast<uint32_t>(host_nodes_.size());
      host_nodes_.push_back(node);
    }
    for (auto [link_index, side_b] : ends[node]) {
      const Link& link = topology.links[link_index];
      Port port;
      port.node = node;
      port.local = static_cast<uint16_t>(ports_.size() - n.first_port);
      port.is_switch = n.is_switch;
      port.rate_bps = link.rate_bps;
      port.delay = link.delay;
      port.error_rate = link.error_rate;
      port.lossy = link.error_rate > 0;
      port.kmin = EcnKmin(link.rate_bps);
      port.kmax = EcnKmax(link.rate_bps);
      if (link.error_rate > 0) losses_possible_ = true;
      (side_b ? link_port_b : link_port_a)[link_index] = static_cast<uint32_t>(ports_.size());
      neighbors[node].push_back(side_b ? link.a : link.b);
      ports_.push_back(std::move(port));
    }
  }
  if (host_nodes_.empty()) throw InputError(topology.name, 0, "the topology has no hosts");
  for (uint32_t i = 0; i < topology.links.size(); ++i) {
    ports_[link_port_a[i]].peer = link_port_b[i];
    ports_[link_port_b[i]].peer = link_port_a[i];
  }

  pause_root_.assign(ports_.size(), kNoRoute);
  was_root_.assign(ports_.size(), 0);
  uint64_t nic_rate = 0;
  for (uint32_t host : host_nodes_) {
    for (uint32_t p = 0; p < nodes_[host].num_ports; ++p) {
      nic_rate = std::max(nic_rate, ports_[nodes_[host].first_port + p].rate_bps);
    }
  }
  for (uint32_t node = 0; node < num_nodes; ++node) {
    if (!nodes_[node].is_switch) continue;
    std::vector<SwitchMmu::PortSpec> specs;
    for (uint32_t p = 0; p < nodes_[node].num_ports; ++p) {
      const Port& port = ports_[nodes_[node].first_port + p];
      uint64_t bdp =
          BytesInFlight(static_cast<double>(port.rate_bps), static_cast<double>(port.delay));
      int shift = config_.pfc_shift;
      for (uint64_t rate = port.rate_bps; rate > nic_rate && shift > 0; rate /= 2) --shift;
      specs.push_back({bdp * static_cast<uint64_t>(config_.headroom_bdps) +
                           2ull * config_.data_packet_bytes(config_.payload_bytes),
                       shift});
    }
    if (config_.pfc) RequireRoomForHeadroom(topology, node, specs);
    mmus_.emplace_back(config_.buffer_bytes, config_.reserve_bytes, config_.resume_offset_bytes,
                       config_.pfc, specs);
  }
  if (!config_.pfc) losses_possible_ = true;
  acks_in_data_ =
      config_.transport == TransportKind::kRdma && config_.ack_priority == AckPriority::kData;
  routing_ = std::make_unique<Routing>(neighbors_, is_switch_, host_nodes_);
  for (uint32_t host : host_nodes_) host_port_.push_back(nodes_[host].first_port);
  if (config_.transport != TransportKind::kRdma) {
    for (uint32_t host : host_nodes_) {
      if (nodes_[host].num_ports != 1) {
        throw InputError(topology.name, 0,
                         "the Homa and PL2 transports need one NIC port per host; node " +
                             std::to_string(host) + " has " +
                             std::to_string(nodes_[host].num_ports));
      }
    }
    if (config_.transport == TransportKind::kPl2 && switch_nodes_.size() != 1) {
      throw InputError(topology.name, 0,
                       "PL2 schedules the links of one rack switch; this topology has " +
                           std::to_string(switch_nodes_.size()) + " switches (use rack:...)");
    }
    if (config_.transport == TransportKind::kHoma) {
      transport_ = std::make_unique<HomaTransport>(this);
    } else {
      transport_ = std::make_unique<Pl2Transport>(this);
    }
  } else {
    auto queue_pairs = std::make_unique<QueuePairTransport>(this);
    queue_pairs_ = queue_pairs.get();
    transport_ = std::move(queue_pairs);
  }
}

Network::~Network() = default;

// Headroom is set aside from the buffer; if it does not fit, the MMU would admit more than the
// switch holds (otherwise one port of a 64 KiB buffer queued 390 KB).
void Network::RequireRoomForHeadroom(const Topology& topology, uint32_t node,
                                     const std::vector<SwitchMmu::PortSpec>& specs) const {
  uint64_t fixed = 0;
  uint32_t widest = 0;  // the port with the most headroom, to name in the error
  for (uint32_t p = 0; p < specs.size(); ++p) {
    fixed += specs[p].headroom_bytes + config_.reserve_bytes;
    if (specs[p].headroom_bytes > specs[widest].headroom_bytes) widest = p;
  }
  if (fixed <= config_.buffer_bytes) return;
  const Port& port = ports_[nodes_[node].first_port + widest];
  throw UsageError(
      "switch buffer of " + std::to_string(config_.buffer_bytes) +
      " bytes (--buffer, or buffer= of a rack: topology) is smaller than the PFC headroom and "
      "reserve of switch node " +
      std::to_string(node) + " in " + topology.name + ": " + std::to_string(fixed) + " bytes for " +
      std::to_string(specs.size()) + " ports (" + std::to_string(config_.headroom_bdps) +
      " one-way BDPs + 2 packets + " + std::to_string(config_.reserve_bytes) +
      " reserve each; largest: the link to node " + std::to_string(ports_[port.peer].node) + ", " +
      std::to_string(specs[widest].headroom_bytes) +
      " bytes of headroom); give a --buffer of at least " + std::to_string(fixed) +
      " bytes, shorter or slower links, or --pfc off");
}

uint32_t Network::RoutePort(uint32_t node, uint32_t dst_host, uint32_t flow) {
  if (flow >= route_cache_.size()) [[unlikely]] {
    return ComputeRoute(node, dst_host, flow);
  }
  FlowRoutes& routes = route_cache_[flow];
  int direction = 0;
  if (dst_host != routes.dst_host[0]) {
    if (dst_host != routes.dst_host[1]) [[unlikely]] {
      return ComputeRoute(node, dst_host, flow);
    }
    direction = 1;
  }
  RouteHop* hops = routes.hop[direction];
  const int count = routes.count[direction];
  for (int i = 0; i < count; ++i) {
    if (hops[i].node == node) return hops[i].port;
  }
  const uint32_t port = ComputeRoute(node, dst_host, flow);
  if (count < kCachedHops) {
    hops[count] = RouteHop{node, port};
    routes.count[direction] = static_cast<uint8_t>(count + 1);
  }
  return port;
}

uint32_t Network::ComputeRoute(uint32_t node, uint32_t dst_host, uint32_t flow) const {
  auto choices = routing_->NextPorts(node, dst_host);
  if (choices.size() == 1) return nodes_[node].first_port + choices[0];
  if (choices.empty()) [[unlikely]] {
    return kNoRoute;  // only after a link failure (AddFlow refuses unreachable hosts before)
  }
  return nodes_[node].first_port +
         choices[Mix((static_cast<uint64_t>(flow) << 32) ^ node) % choices.size()];
}

void Network::ComputePathTiming(Flow& flow, uint32_t id) {
  const uint32_t data_bytes = config_.data_packet_bytes(config_.payload_bytes);
  const uint32_t dst_node = host_nodes_[flow.dst_host];
  uint32_t node = host_nodes_[flow.src_host];
  Time rtt = 0;
  std::vector<const Port*> path;
  while (node != dst_node) {
    const uint32_t out = ComputeRoute(node, flow.dst_host, id);
    if (out == kNoRoute) break;
    const Port& port = ports_[out];
    path.push_back(&port);
    rtt = std::min<Time>(kPastHorizon, rtt + 2 * port.delay +
                                           SerializationTime(data_bytes, port.rate_bps) +
                                           SerializationTime(config_.ack_bytes, port.rate_bps));
    node = ports_[port.peer].node;
    if (path.size() > 64) break;
  }
  flow.base_rtt = rtt;
  flow.bdp = BytesInFlight(flow.line_rate, static_cast<double>(rtt)) + data_bytes;

  // Ideal FCT: the flow's packets leave the NIC back to back and are stored and forwarded at
  // every hop. With equal full packets, packet i (from 1) finishes serialising at hop j at
  // sum_{k<=j} S_k + sum_{k<j} d_k + (i - 1) max_{k<=j} S_k (S: serialisation, d: delay); the
  // shorter last packet then waits at each hop for its own arrival and for the packet before it.
  // This is exactly when a lone queue pair at line rate delivers its last byte, if its window
  // never closes; the one-way latency plus every byte (headers included) at the slowest link.
  if (path.empty()) return;
  const uint64_t payload = config_.payload_bytes;
  const uint64_t packets = (flow.bytes + payload - 1) / payload;
  const uint32_t last =
      config_.data_packet_bytes(static_cast<uint32_t>(flow.bytes - (packets - 1) * payload));
  Time full_through = 0;  // sum_{k<=j} S_k + sum_{k<j} d_k
  Time slowest = 0;       // max_{k<=j} S_k
  Time last_done = 0;     // when the last packet finishes serialising at hop j
  for (size_t h = 0; h < path.size(); ++h) {
    const Time full = SerializationTime(data_bytes, path[h]->rate_bps);
    const Time arrival = h == 0 ? 0 : last_done + path[h - 1]->delay;
    full_through += full + (h == 0 ? 0 : path[h - 1]->delay);
    slowest = std::max(slowest, full);
    const Time previous_done =
        packets >= 2 ? full_through + static_cast<Time>(packets - 2) * slowest : 0;
    last_done = std::max(arrival, previous_done) + SerializationTime(last, path[h]->rate_bps);
    if (last_done > kMaxTime) break;
  }
  const Time ideal = last_done + path.back()->delay;
  flow.ideal_fct = std::min<Time>(ideal, kPastHorizon);
}

uint32_t Network::AddFlow(uint32_t src, uint32_t dst, uint64_t bytes, Time start, uint64_t tag,
                          uint8_t priority) {
  if (priority >= kNumPriorities) {
    throw UsageError("flow priority " + std::to_string(priority) + ": expected 0.." +
                     std::to_string(kNumPriorities - 1));
  }
  if (src >= num_hosts() || dst >= num_hosts() || src == dst || bytes == 0) {
    throw UsageError("flow " + std::to_string(src) + "->" + std::to_string(dst) + " of " +
                     std::to_string(bytes) + " bytes: hosts must differ, exist (0.." +
                     std::to_string(num_hosts() - 1) + ") and bytes be positive");
  }
  const uint32_t id = static_cast<uint32_t>(flows_.size());
  if (!links_failed_ && routing_->NextPorts(host_nodes_[src], dst).empty()) {
    throw InputError(topology_name_, 0,
                     "no path from host " + std::to_string(src) + " (node " +
                         std::to_string(host_nodes_[src]) + ") to host " + std::to_string(dst) +
                         " (node " + std::to_string(host_nodes_[dst]) + ")");
  }
  Flow flow;
  flow.src_host = src;
  flow.dst_host = dst;
  flow.bytes = bytes;
  flow.tag = tag;
  flow.priority = priority;
  flow.start = std::max(start, now_);
  flow.src_port = ComputeRoute(host_nodes_[src], dst, id);
  if (flow.src_port == kNoRoute) flow.src_port = nodes_[host_nodes_[src]].first_port;
  flow.line_rate = static_cast<double>(ports_[flow.src_port].rate_bps);
  ComputePathTiming(flow, id);
  flows_.push_back(flow);
  FlowRoutes routes;
  routes.dst_host[0] = dst;
  routes.dst_host[1] = src;
  route_cache_.push_back(routes);
  events_.Push(flow.start, kFlowStart, id, 0);
  return id;
}

NicScheduler* Network::InstallNicScheduler(uint32_t host, uint16_t classes, uint8_t initial_band) {
  if (queue_pairs_ == nullptr) {
    throw UsageError(
        std::string("host NIC priorities need the RDMA queue pairs, not --transport ") +
        transport_->name());
  }
  if (host >= num_hosts()) throw UsageError("host " + std::to_string(host) + " does not exist");
  NicScheduler* first = nullptr;
  for (uint32_t p = 0; p < host_num_ports(host); ++p) {
    NicScheduler* scheduler =
        queue_pairs_->InstallScheduler(host_port(host) + p, classes, initial_band);
    if (first == nullptr) first = scheduler;
  }
  return first;
}

uint64_t Network::HostTxBytes(uint32_t host) const {
  uint64_t bytes = 0;
  for (uint32_t p = 0; p < host_num_ports(host); ++p) bytes += ports_[host_port(host) + p].tx_bytes;
  return bytes;
}

uint64_t Network::HostRxBytes(uint32_t host) const {
  uint64_t bytes = 0;
  for (uint32_t p = 0; p < host_num_ports(host); ++p) {
    bytes += ports_[ports_[host_port(host) + p].peer].tx_bytes;
  }
  return bytes;
}

void Network::AddTimer(Time at, uint32_t token) {
  events_.Push(std::max(at, now_), kTimer, token, 0);
}

void Network::FailLink(uint32_t node_a, uint32_t node_b, Time at) {
  bool found = false;
  if (node_a < nodes_.size() && node_b < nodes_.size()) {
    for (uint32_t p = 0; p < nodes_[node_a].num_ports; ++p) {
      found |= ports_[ports_[nodes_[node_a].first_port + p].peer].node == node_b;
    }
  }
  if (!found) {
    throw UsageError("link " + std::to_string(node_a) + "-" + std::to_string(node_b) +
                     ": no link joins these nodes in " + topology_name_ + " (nodes 0.." +
                     std::to_string(nodes_.size() - 1) + ")");
  }
  failures_.push_back({node_a, node_b});
  events_.Push(std::max(at, now_), kLinkDown, static_cast<uint32_t>(failures_.size() - 1), 0);
}

void Network::TakeLinkDown(uint32_t failure) {
  const auto [node_a, node_b] = failures_[failure];
  links_failed_ = true;
  losses_possible_ = true;  // from now on every sent packet is covered by a timeout
  for (uint32_t p = 0; p < nodes_[node_a].num_ports; ++p) {
    const uint32_t index = nodes_[node_a].first_port + p;
    const uint32_t peer = ports_[index].peer;
    if (ports_[peer].node != node_b) continue;
    for (uint32_t end : {index, peer}) {
      Port& port = ports_[end];
      port.failed = true;
      neighbors_[port.node][port.local] = Routing::kNoNeighbor;
      ApplyPfc(end, false);  // what is queued for the link drains into it and is lost
    }
  }
  routing_ = std::make_unique<Routing>(neighbors_, is_switch_, host_nodes_);
  for (FlowRoutes& routes : route_cache_) routes.count[0] = routes.count[1] = 0;
}

bool Network::HasPath(uint32_t src_host, uint32_t dst_host) const {
  return !routing_->NextPorts(host_nodes_[src_host], dst_host).empty();
}

void Network::EnableTimeSeries(Time interval, bool all_ports) {
  if (interval <= 0) throw UsageError("time-series sample interval must be positive");
  sample_interval_ = interval;
  sample_all_ports_ = all_ports;
}

void Network::Sample() {
  for (const Port& port : ports_) {
    if (!nodes_[port.node].is_switch) continue;
    if (sample_all_ports_ || port.sample_max > 0) {
      queue_samples_.push_back({now_, port.node, port.local, port.queued_bytes});
    }
  }
  for (Port& port : ports_) port.sample_max = port.queued_bytes;
  if (queue_pairs_ != nullptr) queue_pairs_->SampleRates(now_, &rate_samples_);
  if (events_.empty()) {
    sample_pending_ = false;
    return;
  }
  // Skip idle stretches: nothing changes until the next event.
  Time next = now_ + sample_interval_;
  const Time upcoming = events_.top().time;
  if (upcoming > next)
    next = (upcoming + sample_interval_ - 1) / sample_interval_ * sample_interval_;
  events_.Push(next, kSample, 0, 0);
}

std::vector<PauseInterval> Network::PauseIntervals() const {
  std::vector<PauseInterval> intervals = pauses_;
  for (const Port& port : ports_) {
    if (port.paused && sample_interval_ > 0) {
      intervals.push_back({port.node, port.local, 0, port.paused_since, now_});
    }
  }
  return intervals;
}

void Network::Run(Time until) {
  Progress progress("net", config_.progress);
  if (sample_interval_ > 0 && !sample_pending_ && !events_.empty()) {
    sample_pending_ = true;
    const Time first = events_.top().time;
    events_.Push((first + sample_interval_ - 1) / sample_interval_ * sample_interval_, kSample, 0,
                 0);
  }
  while (!events_.empty() && events_.top().time <= until) {
    Event event = events_.Pop();
    now_ = event.time;
    // Packet events miss the cache on their port and packet; start loading the next one's now.
    if (!events_.empty()) {
      const Event& next = events_.top();
      if (next.type() <= kTxDone) {
        __builtin_prefetch(&ports_[next.a]);
        if (next.type() == kArrive) __builtin_prefetch(&packets_[next.b]);
      }
    }
    if (event.type() == kSample) [[unlikely]] {
      Sample();
      continue;
    }
    ++stats_.events;
    if (Dispatch(event)) stats_.end = now_;
    if ((stats_.events & 0xffff) == 0 && progress.Due()) {
      progress.Report("simulated " + std::to_string(ToMicroseconds(now_)) + " us, " +
                      std::to_string(stats_.events) + " events, " +
                      std::to_string(packets_.in_use()) + " packets in flight");
    }
  }
}

bool Network::Dispatch(const Event& event) {
  switch (event.type()) {
    case kArrive:
      Arrive(event.a, event.b);
      break;
    case kTxDone:
      ports_[event.a].busy = false;
      Kick(event.a);
      break;
    case kPfcFrame:
      if (!ports_[event.a].failed) ApplyPfc(event.a, event.b != 0);
      break;
    case kWake:
      if (ports_[event.a].wake_at == now_) ports_[event.a].wake_at = kNever;
      Kick(event.a);
      break;
    case kFlowStart:
      StartFlow(event.a);
      break;
    case kTimer:
      if (observer_ != nullptr) observer_->OnTimer(event.a);
      break;
    case kRetransmit:
      return transport_->OnTypedTimer(event.type(), event.a, event.b);
    case kTransportTimer:
      transport_->OnTimer(event.a, event.b);
      break;
    case kLinkDown:
      TakeLinkDown(event.a);
      break;
    default:
      if (event.type() >= kFirstTransportEventType) {
        return transport_->OnTypedTimer(event.type(), event.a, event.b);
      }
  }
  return true;
}

void Network::StartFlow(uint32_t id) { transport_->Start(id); }

void Network::Kick(uint32_t port_index) {
  Port& port = ports_[port_index];
  if (port.busy) return;
  if (!port.control.empty() && !(port.paused && acks_in_data_)) {
    Transmit(port_index, port.control.Pop());
    return;
  }
  if (port.paused) return;
  if (port.is_switch) {
    if (port.data_mask == 0) return;
    const int prio = std::countr_zero(port.data_mask);
    uint32_t packet = port.data[prio].Pop();
    if (port.data[prio].empty()) port.data_mask &= static_cast<uint8_t>(~(1u << prio));
    SwitchDequeue(port_index, packet);
    Transmit(port_index, packet);
    return;
  }
  TransportSend(port_index);
}

void Network::TransportSend(uint32_t port_index) {
  Port& port = ports_[port_index];
  Time wake = kNever;
  const uint32_t handle = transport_->NextPacketOnPort(nodes_[port.node].index, port_index, &wake);
  if (handle != kNoPacket) {
    ++stats_.data_packets;
    stats_.payload_sent += packets_[handle].payload;
    Transmit(port_index, handle);
    return;
  }
  if (wake < port.wake_at) {
    port.wake_at = std::max(wake, now_);
    events_.Push(port.wake_at, kWake, port_index, 0);
  }
}

uint32_t Network::AllocatePacket() {
  const uint32_t handle = packets_.Allocate();
  packets_[handle] = Packet{};
  return handle;
}

void Network::SendControl(uint32_t host, uint32_t handle) {
  ++stats_.ack_packets;
  const uint32_t port = host_port_[host];
  PushControl(ports_[port], handle);
  Kick(port);
}

void Network::SwitchSendControl(uint32_t switch_index, uint32_t handle) {
  ++stats_.ack_packets;
  const Packet& packet = packets_[handle];
  const uint32_t out = RoutePort(switch_nodes_[switch_index], packet.dst_host, packet.flow);
  if (out == kNoRoute) {
    Drop(handle);
    return;
  }
  PushControl(ports_[out], handle);
  Kick(out);
}

bool Network::SendControlRouted(uint32_t host, uint32_t handle) {
  ++stats_.ack_packets;
  const Packet& packet = packets_[handle];
  const uint32_t out = RoutePort(host_nodes_[host], packet.dst_host, packet.flow);
  if (out == kNoRoute) [[unlikely]] {
    Drop(handle);
    return false;
  }
  PushControl(ports_[out], handle);
  Kick(out);
  return true;
}

void Network::PushTypedTimer(Time at, uint8_t type, uint32_t a, uint32_t b) {
  if (type != kEventRetransmit && type < kFirstTransportEventType) [[unlikely]] {
    throw std::logic_error("net: event type " + std::to_string(type) +
                           " belongs to the fabric, not to a transport");
  }
  events_.Push(at, type, a, b);
}

void Network::SetTransportTimer(Time at, uint32_t a, uint32_t b) {
  events_.Push(std::max(at, now_), kTransportTimer, a, b);
}

void Network::MarkDelivered(uint32_t id) {
  Flow& flow = flows_[id];
  if (flow.delivered >= 0) return;
  flow.delivered = now_;
  if (observer_ != nullptr) observer_->OnFlowDelivered(id, flow.tag);
}

void Network::MarkAcked(uint32_t id) {
  if (flows_[id].acked < 0) flows_[id].acked = now_;
}

uint32_t Network::HostBehind(uint32_t switch_index, uint16_t local) const {
  const Port& port = ports_[nodes_[switch_nodes_[switch_index]].first_port + local];
  const Node& peer = nodes_[ports_[port.peer].node];
  return peer.is_switch ? UINT32_MAX : peer.index;
}

uint64_t Network::SwitchQueueBytes(uint32_t switch_index, uint16_t local) const {
  return ports_[nodes_[switch_nodes_[switch_index]].first_port + local].queued_bytes;
}

uint32_t Network::SwitchNumPorts(uint32_t switch_index) const {
  return nodes_[switch_nodes_[switch_index]].num_ports;
}

void Network::Transmit(uint32_t port_index, uint32_t handle) {
  Port& port = ports_[port_index];
  const uint32_t size = packets_[handle].size;
  const Time done = now_ + SerializationTime(size, port.rate_bps);
  port.busy = true;
  port.tx_bytes += size;
  events_.Push(done, kTxDone, port_index, 0);
  events_.Push(done + port.delay, kArrive, port.peer, handle);
}

void Network::Arrive(uint32_t port_index, uint32_t handle) {
  const Port& port = ports_[port_index];
  if (port.lossy && rng_.Uniform() < port.error_rate) {
    Drop(handle);
    return;
  }
  if (port.failed) [[unlikely]] {
    Drop(handle);
    return;
  }
  const Packet& packet = packets_[handle];
  if (port.is_switch) {
    if (packet.type == PacketType::kRequest) [[unlikely]] {
      transport_->SwitchReceive(nodes_[port.node].index, port.local, handle);
    } else {
      SwitchReceive(port_index, handle);
    }
    return;
  }
  if (packet.type == PacketType::kData) stats_.payload_received += packet.payload;
  transport_->Receive(nodes_[port.node].index, handle);
}

void Network::Drop(uint32_t handle) {
  ++stats_.drops;
  const Packet& packet = packets_[handle];
  if (packet.type == PacketType::kData) stats_.payload_dropped += packet.payload;
  if (!losses_possible_) {
    losses_possible_ = true;
  }
  transport_->OnDrop(handle);
  packets_.Free(handle);
}

void Network::SwitchReceive(uint32_t in_index, uint32_t handle) {
  Packet& packet = packets_[handle];
  const Port& in = ports_[in_index];
  const uint32_t out_index = RoutePort(in.node, packet.dst_host, packet.flow);
  if (out_index == kNoRoute) [[unlikely]] {
    Drop(handle);
    return;
  }
  Port& out = ports_[out_index];
  if (packet.type != PacketType::kData && !acks_in_data_) {
    PushControl(out, handle);
    Kick(out_index);
    return;
  }
  SwitchMmu& mmu = mmus_[nodes_[in.node].index];
  if (!mmu.Admit(in.local, packet.size) ||
      (config_.egress_shift >= 0 && !config_.pfc &&
       out.queued_bytes + packet.size >
           (config_.buffer_bytes - std::min(config_.buffer_bytes, mmu.shared_used())) >>
           config_.egress_shift)) {
    Drop(handle);
    return;
  }
  mmu.OnEnqueue(in.local, packet.size);
  packet.in_port = in.local;
  out.data[packet.prio].Push(handle);
  out.data_mask |= static_cast<uint8_t>(1u << packet.prio);
  CountQueue(out, packet.size);
  if (mmu.TakePause(in.local)) SendPfc(in_index, true);
  Kick(out_index);
}

void Network::SwitchDequeue(uint32_t out_index, uint32_t handle) {
  Packet& packet = packets_[handle];
  Port& out = ports_[out_index];
  const Node& node = nodes_[out.node];
  SwitchMmu& mmu = mmus_[node.index];
  CountQueue(out, -static_cast<int64_t>(packet.size));
  mmu.OnDequeue(packet.in_port, packet.size);
  if (mmu.TakeResume(packet.in_port)) SendPfc(node.first_port + packet.in_port, false);
  if (packet.type != PacketType::kData) return;  // an ACK in the data queue: ECN is its echo
  if (config_.ecn && out.queued_bytes > out.kmin) {
    bool mark = out.queued_bytes > out.kmax ||
                rng_.Uniform() < config_.ecn_pmax *
                                     static_cast<double>(out.queued_bytes - out.kmin) /
                                     static_cast<double>(out.kmax - out.kmin);
    if (mark && !packet.ecn) {
      packet.ecn = 1;
      ++stats_.ecn_marks;
    }
  }
  if (config_.cc == CcMode::kHpcc && packet.hops < kMaxIntHops) {
    packets_.hops(handle)[packet.hops++] =
        IntHop{now_, out.tx_bytes + packet.size, out.queued_bytes, out.rate_bps};
  }
}

void Network::CountQueue(Port& port, int64_t delta) {
  port.queue_integral +=
      static_cast<double>(port.queued_bytes) * static_cast<double>(now_ - port.queue_since);
  port.queue_since = now_;
  port.queued_bytes = static_cast<uint64_t>(static_cast<int64_t>(port.queued_bytes) + delta);
  port.max_queue = std::max(port.max_queue, port.queued_bytes);
  port.sample_max = std::max(port.sample_max, port.queued_bytes);
}

void Network::SendPfc(uint32_t ingress_port, bool pause) {
  const Port& port = ports_[ingress_port];
  ++(pause ? stats_.pause_frames : stats_.resume_frames);
  if (pause) {
    const uint32_t root = PauseRoot(port.node);
    pause_root_[port.peer] = root;
    if (root != kNoRoute) was_root_[root] = 1;
  }
  Time arrival = now_ + SerializationTime(config_.pfc_frame_bytes, port.rate_bps) + port.delay;
  events_.Push(arrival, kPfcFrame, port.peer, pause ? 1 : 0);
}

void Network::ApplyPfc(uint32_t port_index, bool pause) {
  Port& port = ports_[port_index];
  if (pause == port.paused) return;
  port.paused = pause;
  if (pause) {
    port.paused_since = now_;
    port.ever_paused = true;
  } else {
    port.pause_time += now_ - port.paused_since;
    if (sample_interval_ > 0)
      pauses_.push_back({port.node, port.local, 0, port.paused_since, now_});
    RecordBlocked(port_index);
    Kick(port_index);
  }
}

void Network::CountRateCut(uint32_t flow) {
  ++stats_.rate_cuts;
  if (rate_cut_.size() <= flow) rate_cut_.resize(flows_.size(), 0);
  rate_cut_[flow] = 1;
}

uint32_t Network::PauseRoot(uint32_t switch_node) const {
  const Node& node = nodes_[switch_node];
  uint32_t longest = kNoRoute;
  uint64_t longest_bytes = 0;
  for (uint32_t p = node.first_port; p < node.first_port + node.num_ports; ++p) {
    if (ports_[p].queued_bytes > longest_bytes) {
      longest_bytes = ports_[p].queued_bytes;
      longest = p;
    }
  }
  if (longest != kNoRoute && ports_[longest].paused && pause_root_[longest] != kNoRoute)
    return pause_root_[longest];
  return longest;
}

// Every data packet queued at a switch port when its pause ends waited through (part of) it:
// nothing leaves a paused port's data queues. At a NIC, the queue pairs with data left waited.
void Network::RecordBlocked(uint32_t port_index) {
  if (queue_pairs_ == nullptr) return;
  const uint32_t root = pause_root_[port_index];
  if (root == kNoRoute) return;
  const Port& port = ports_[port_index];
  if (port.is_switch) {
    for (const PacketFifo& queue : port.data) {
      for (size_t i = 0; i < queue.size(); ++i) {
        const Packet& packet = packets_[queue.at(i)];
        if (packet.type == PacketType::kData) MarkBlocked(packet.flow, root);
      }
    }
    return;
  }
  for (uint32_t id : queue_pairs_->active_flows(port_index)) {
    if (flows_[id].snd_nxt < flows_[id].bytes) MarkBlocked(id, root);
  }
}

void Network::MarkBlocked(uint32_t flow, uint32_t root) {
  if (blocked_roots_.size() <= flow) {
    blocked_roots_.resize(flows_.size());
    hol_victim_.resize(flows_.size(), 0);
  }
  std::vector<uint32_t>& roots = blocked_roots_[flow];
  if (std::find(roots.begin(), roots.end(), root) != roots.end()) return;
  roots.push_back(root);
  if (!hol_victim_[flow] && !PathCrosses(flow, root)) hol_victim_[flow] = 1;
}

// The flow's path as routing gives it now (a failed link may have moved it since).
bool Network::PathCrosses(uint32_t id, uint32_t port) const {
  const Flow& flow = flows_[id];
  const uint32_t dst_node = host_nodes_[flow.dst_host];
  uint32_t node = host_nodes_[flow.src_host];
  for (int hop = 0; node != dst_node && hop <= 64; ++hop) {
    const uint32_t out = ComputeRoute(node, flow.dst_host, id);
    if (out == kNoRoute) return false;
    if (out == port) return true;
    node = ports_[ports_[out].peer].node;
  }
  return false;
}

void Network::PushControl(Port& port, uint32_t handle) {
  port.control.Push(handle);
  port.max_control = std::max<uint64_t>(port.max_control, port.control.size());
}

double Network::AverageQueue(const Port& port) const {
  if (stats_.end <= 0) return 0;
  // Queue changes happen at active events, so after `end` the queue is constant (empty unless
  // the run was stopped early).
  const Time until = std::max(stats_.end, port.queue_since);
  const double integral = port.queue_integral + static_cast<double>(port.queued_bytes) *
                                                    static_cast<double>(until - port.queue_since);
  return integral / static_cast<double>(until);
}

std::vector<PortReport> Network::SwitchPorts() const {
  std::vector<PortReport> reports;
  for (const Port& port : ports_) {
    if (!nodes_[port.node].is_switch) continue;
    PortReport report;
    report.switch_node = port.node;
    report.peer_node = ports_[port.peer].node;
    report.max_queue_bytes = port.max_queue;
    report.tx_bytes = port.tx_bytes;
    report.avg_queue_bytes = AverageQueue(port);
    reports.push_back(report);
  }
  return reports;
}

NetStats Network::Stats() const {
  NetStats stats = stats_;
  stats.now = now_;
  stats.peak_packets = packets_.capacity();
  double average_sum = 0;
  int busy_ports = 0;
  for (const Port& port : ports_) {
    if (port.ever_paused) {
      ++stats.ports_ever_paused;
      stats.pause_time += port.pause_time + (port.paused ? now_ - port.paused_since : 0);
    }
    uint64_t& max_control = nodes_[port.node].is_switch ? stats.max_switch_control_packets
                                                        : stats.max_nic_control_packets;
    max_control = std::max(max_control, port.max_control);
    if (!nodes_[port.node].is_switch || port.tx_bytes == 0) continue;
    stats.max_queue_bytes = std::max(stats.max_queue_bytes, port.max_queue);
    if (stats_.end > 0) {
      average_sum += AverageQueue(port);
      ++busy_ports;
    }
  }
  stats.avg_queue_bytes = busy_ports > 0 ? average_sum / busy_ports : 0;
  for (uint8_t cut : rate_cut_) stats.rate_cut_flows += cut;
  for (const std::vector<uint32_t>& roots : blocked_roots_)
    stats.pfc_blocked_flows += !roots.empty();
  for (uint8_t victim : hol_victim_) stats.hol_victim_flows += victim;
  for (uint8_t root : was_root_) stats.pause_roots += root;
  return stats;
}

}  // namespace jigsaw::net
