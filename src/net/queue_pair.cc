#include "net/queue_pair.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "net/network.h"

namespace jigsaw::net {
namespace {

constexpr uint32_t kNoRoute = UINT32_MAX;

Time PacingTime(uint32_t bytes, double rate_bps) {
  return SaturatingTime(static_cast<double>(bytes) * 8e12 / rate_bps);
}

}  // namespace

QueuePairTransport::QueuePairTransport(Network* network)
    : net_(network), cc_(network->config_, &network->events_), ports_(network->ports_.size()) {}

void QueuePairTransport::Start(uint32_t id) {
  Flow& flow = net_->flows_[id];
  cc_.Start(flow);
  flow.next_avail = net_->now_;
  ports_[flow.src_port].flows.push_back(id);
  net_->Kick(flow.src_port);
}

uint32_t QueuePairTransport::NextPacket(uint32_t host, Time* wake) {
  return NextPacketOnPort(host, net_->host_port_[host], wake);
}

uint32_t QueuePairTransport::NextPacketOnPort(uint32_t, uint32_t port_index, Time* wake) {
  PortQueues& port = ports_[port_index];
  const size_t count = port.flows.size();
  const NetConfig& config = net_->config_;
  const Time now = net_->now_;
  Time earliest = kNever;
  for (size_t i = 0; i < count; ++i) {
    size_t slot = port.next_flow + i;
    if (slot >= count) slot -= count;
    uint32_t id = port.flows[slot];
    const Flow& flow = net_->flows_[id];
    if (flow.snd_nxt >= flow.bytes) continue;
    if (config.window && !flow.WindowOpen(config.var_window)) continue;
    if (flow.next_avail > now) {
      earliest = std::min(earliest, flow.next_avail);
      continue;
    }
    port.next_flow = slot + 1 == count ? 0 : slot + 1;
    return SendData(id);
  }
  *wake = earliest;
  return kNoPacket;
}

// The fabric counts the packet in NetStats::data_packets and payload_sent and transmits it.
uint32_t QueuePairTransport::SendData(uint32_t id) {
  Flow& flow = net_->flows_[id];
  const NetConfig& config = net_->config_;
  const Time now = net_->now_;
  const uint32_t handle = net_->packets_.Allocate();
  Packet& packet = net_->packets_[handle];
  const uint64_t remaining = flow.bytes - flow.snd_nxt;
  packet.payload = static_cast<uint32_t>(std::min<uint64_t>(config.payload_bytes, remaining));
  packet.size = config.data_packet_bytes(packet.payload);
  packet.seq = flow.snd_nxt;
  packet.sent_at = now;
  packet.flow = id;
  packet.dst_host = flow.dst_host;
  packet.type = PacketType::kData;
  packet.ecn = 0;
  packet.hops = 0;
  packet.prio = flow.priority;
  if (flow.snd_nxt < flow.snd_max) ++net_->stats_.retransmitted_packets;
  flow.snd_nxt += packet.payload;
  flow.snd_max = std::max(flow.snd_max, flow.snd_nxt);
  flow.last_send = now;
  flow.last_size = packet.size;
  flow.next_avail = now + PacingTime(packet.size, flow.rate);
  if (net_->losses_possible_ && !flow.rto_armed) ArmRetransmitTimer(id);
  return handle;
}

void QueuePairTransport::Receive(uint32_t host, uint32_t handle) {
  if (net_->packets_[handle].type == PacketType::kData) {
    ReceiveData(net_->host_nodes_[host], handle);
  } else {
    ReceiveAck(handle);
  }
}

void QueuePairTransport::ReceiveData(uint32_t node, uint32_t handle) {
  Packet& packet = net_->packets_[handle];
  const uint32_t id = packet.flow;
  Flow& flow = net_->flows_[id];
  bool just_delivered = false;
  PacketType reply = PacketType::kAck;
  if (packet.seq == flow.rcv_nxt) {
    flow.rcv_nxt += packet.payload;
    if (flow.rcv_nxt == flow.bytes && flow.delivered < 0) {
      flow.delivered = net_->now_;
      just_delivered = true;
    }
  } else if (packet.seq > flow.rcv_nxt) {
    // One NACK per gap: repeating it while queues are deep would rewind the sender again and
    // again (go-back-N collapse); a lost retransmission is left to the sender's timeout.
    if (flow.last_nack_seq == flow.rcv_nxt) {
      net_->packets_.Free(handle);
      return;
    }
    reply = PacketType::kNack;
    flow.last_nack_seq = flow.rcv_nxt;
  }
  packet.type = reply;
  packet.seq = flow.rcv_nxt;
  packet.size = net_->config_.ack_bytes;
  packet.payload = 0;
  packet.dst_host = flow.src_host;
  ++net_->stats_.ack_packets;
  NetObserver* observer = net_->observer_;
  const uint32_t out = net_->RoutePort(node, flow.src_host, id);
  if (out == kNoRoute) [[unlikely]] {
    net_->Drop(handle);
    if (just_delivered && observer != nullptr) observer->OnFlowDelivered(id, flow.tag);
    return;
  }
  net_->PushControl(net_->ports_[out], handle);
  net_->Kick(out);
  if (just_delivered && observer != nullptr) observer->OnFlowDelivered(id, flow.tag);
}

void QueuePairTransport::ReceiveAck(uint32_t handle) {
  const Packet& packet = net_->packets_[handle];
  const uint32_t id = packet.flow;
  Flow& flow = net_->flows_[id];
  if (packet.seq > flow.snd_una) flow.snd_una = std::min(packet.seq, flow.bytes);
  if (packet.type == PacketType::kNack && packet.seq < flow.snd_nxt) flow.snd_nxt = packet.seq;
  if (net_->config_.cc != CcMode::kNone && flow.acked < 0) {
    double before = flow.rate;
    cc_.OnAck(id, flow, packet, net_->packets_.hops(handle), net_->now_);
    if (flow.rate < before) net_->CountRateCut(id);
    if (flow.rate != before) RateChanged(flow);
  }
  net_->packets_.Free(handle);
  if (flow.snd_una >= flow.bytes && flow.acked < 0) {
    flow.acked = net_->now_;
    FinishSending(id);
  }
  net_->Kick(flow.src_port);
}

void QueuePairTransport::OnTimer(uint32_t, uint32_t) {}

bool QueuePairTransport::OnTypedTimer(uint8_t type, uint32_t a, uint32_t b) {
  Flow& flow = net_->flows_[a];
  if (type == kEventRetransmit) {
    if (flow.acked >= 0) {
      flow.rto_armed = false;
      return false;
    }
    RetransmitTimeout(a);
    return true;
  }
  if (flow.acked >= 0) return false;
  double before = flow.rate;
  cc_.OnTimer(type, a, b, flow, net_->now_);
  if (flow.rate < before) net_->CountRateCut(a);
  if (flow.rate != before) RateChanged(flow);
  return true;
}

// A lost ACK matters too once links fail: the last one may be the one lost.
void QueuePairTransport::OnDrop(uint32_t handle) {
  const Packet& packet = net_->packets_[handle];
  if ((packet.type == PacketType::kData || packet.type == PacketType::kAck ||
       packet.type == PacketType::kNack) &&
      !net_->flows_[packet.flow].rto_armed && net_->flows_[packet.flow].acked < 0) {
    ArmRetransmitTimer(packet.flow);
  }
}

void QueuePairTransport::SampleRates(Time now, std::vector<RateSample>* out) const {
  const size_t first = out->size();
  for (uint32_t host_port : net_->host_port_) {
    const Network::Node& node = net_->nodes_[net_->ports_[host_port].node];
    for (uint32_t p = 0; p < node.num_ports; ++p) {
      for (uint32_t id : ports_[node.first_port + p].flows) {
        out->push_back({now, id, net_->flows_[id].rate});
      }
    }
  }
  std::sort(out->begin() + static_cast<std::ptrdiff_t>(first), out->end(),
            [](const RateSample& x, const RateSample& y) { return x.flow < y.flow; });
}

void QueuePairTransport::RateChanged(Flow& flow) {
  if (flow.last_size > 0) flow.next_avail = flow.last_send + PacingTime(flow.last_size, flow.rate);
  net_->Kick(flow.src_port);
}

void QueuePairTransport::FinishSending(uint32_t id) {
  PortQueues& port = ports_[net_->flows_[id].src_port];
  auto it = std::find(port.flows.begin(), port.flows.end(), id);
  if (it == port.flows.end()) {
    throw std::logic_error("net: flow " + std::to_string(id) + " finished twice");
  }
  size_t slot = static_cast<size_t>(it - port.flows.begin());
  port.flows.erase(it);
  if (slot < port.next_flow) --port.next_flow;
  if (port.next_flow >= port.flows.size()) port.next_flow = 0;
}

void QueuePairTransport::ArmRetransmitTimer(uint32_t id) {
  Flow& flow = net_->flows_[id];
  // Without any path left (a failed link cut the hosts apart) the flow gives up.
  if (net_->links_failed_ && !net_->HasPath(flow.src_host, flow.dst_host)) return;
  flow.rto_armed = true;
  flow.rto_una = flow.snd_una;
  net_->events_.Push(net_->now_ + net_->config_.retransmit_timeout, kEventRetransmit, id, 0);
}

void QueuePairTransport::RetransmitTimeout(uint32_t id) {
  Flow& flow = net_->flows_[id];
  flow.rto_armed = false;
  if (flow.acked >= 0) return;
  if (flow.snd_una == flow.rto_una && flow.snd_nxt > flow.snd_una) {
    flow.snd_nxt = flow.snd_una;
    net_->Kick(flow.src_port);
  }
  if (flow.snd_una < flow.bytes) ArmRetransmitTimer(id);
}

}  // namespace jigsaw::net
