#include "net/queue_pair.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "net/network.h"

namespace jigsaw::net {
namespace {

Time PacingTime(uint32_t bytes, double rate_bps) {
  return SaturatingTime(static_cast<double>(bytes) * 8e12 / rate_bps);
}

}  // namespace

QueuePairTransport::QueuePairTransport(Network* network)
    : net_(network), cc_(network->config(), this), ports_(network->num_ports()) {}

void QueuePairTransport::PushCcTimer(Time at, uint8_t type, uint32_t id, uint32_t generation) {
  net_->PushTypedTimer(at, type, id, generation);
}

void QueuePairTransport::Start(uint32_t id) {
  Flow& flow = net_->mutable_flow(id);
  cc_.Start(flow);
  flow.next_avail = net_->now();
  PortQueues& port = ports_[flow.src_port];
  port.flows.push_back(id);
  if (port.scheduler) port.scheduler->Add(id, flow.nic_class);
  net_->KickPort(flow.src_port);
}

NicScheduler* QueuePairTransport::InstallScheduler(uint32_t port_index, uint16_t classes,
                                                   uint8_t initial_band) {
  PortQueues& port = ports_[port_index];
  port.scheduler = std::make_unique<NicScheduler>(classes, initial_band,
                                                  net_->config().nic_order == NicOrder::kFifo);
  for (uint32_t id : port.flows) port.scheduler->Add(id, net_->flow(id).nic_class);
  return port.scheduler.get();
}

uint32_t QueuePairTransport::NextScheduled(PortQueues& port, Time* wake) {
  const NetConfig& config = net_->config();
  const Time now = net_->now();
  Time earliest = kNever;
  uint32_t chosen = kNoPacket;
  port.scheduler->Serve([&](uint32_t id) {
    const Flow& flow = net_->flow(id);
    if (flow.snd_nxt >= flow.bytes) return false;
    if (config.window && !flow.WindowOpen(config.var_window)) return false;
    if (flow.next_avail > now) {
      earliest = std::min(earliest, flow.next_avail);
      return false;
    }
    chosen = id;
    return true;
  });
  if (chosen != kNoPacket) return SendData(chosen);
  *wake = earliest;
  return kNoPacket;
}

uint32_t QueuePairTransport::NextPacket(uint32_t host, Time* wake) {
  return NextPacketOnPort(host, net_->host_port(host), wake);
}

uint32_t QueuePairTransport::NextPacketOnPort(uint32_t, uint32_t port_index, Time* wake) {
  PortQueues& port = ports_[port_index];
  if (port.scheduler) [[unlikely]] {
    return NextScheduled(port, wake);
  }
  const size_t count = port.flows.size();
  const NetConfig& config = net_->config();
  const Time now = net_->now();
  Time earliest = kNever;
  const size_t first = config.nic_order == NicOrder::kFifo ? 0 : port.next_flow;
  for (size_t i = 0; i < count; ++i) {
    size_t slot = first + i;
    if (slot >= count) slot -= count;
    uint32_t id = port.flows[slot];
    const Flow& flow = net_->flow(id);
    if (flow.snd_nxt >= flow.bytes) continue;
    if (config.window && !flow.WindowOpen(config.var_window)) continue;
    if (flow.next_avail > now) {
      earliest = std::min(earliest, flow.next_avail);
      continue;
    }
    if (config.nic_order == NicOrder::kRoundRobin)
      port.next_flow = slot + 1 == count ? 0 : slot + 1;
    return SendData(id);
  }
  *wake = earliest;
  return kNoPacket;
}

// The fabric counts the packet in NetStats::data_packets and payload_sent and transmits it.
uint32_t QueuePairTransport::SendData(uint32_t id) {
  Flow& flow = net_->mutable_flow(id);
  const NetConfig& config = net_->config();
  const Time now = net_->now();
  const uint32_t handle = net_->AllocatePacket();
  Packet& packet = net_->packet(handle);
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
  if (flow.snd_nxt < flow.snd_max) net_->CountRetransmission();
  flow.snd_nxt += packet.payload;
  flow.snd_max = std::max(flow.snd_max, flow.snd_nxt);
  flow.last_send = now;
  flow.last_size = packet.size;
  flow.next_avail = now + PacingTime(packet.size, flow.rate);
  if (net_->losses_possible() && !flow.rto_armed) ArmRetransmitTimer(id);
  return handle;
}

void QueuePairTransport::Receive(uint32_t host, uint32_t handle) {
  if (net_->packet(handle).type == PacketType::kData) {
    ReceiveData(host, handle);
  } else {
    ReceiveAck(handle);
  }
}

void QueuePairTransport::ReceiveData(uint32_t host, uint32_t handle) {
  Packet& packet = net_->packet(handle);
  const uint32_t id = packet.flow;
  Flow& flow = net_->mutable_flow(id);
  bool just_delivered = false;
  PacketType reply = PacketType::kAck;
  if (packet.seq == flow.rcv_nxt) {
    flow.rcv_nxt += packet.payload;
    just_delivered = flow.rcv_nxt == flow.bytes && flow.delivered < 0;
  } else if (packet.seq > flow.rcv_nxt) {
    // One NACK per gap: repeating it while queues are deep would rewind the sender again and
    // again (go-back-N collapse); a lost retransmission is left to the sender's timeout.
    if (flow.last_nack_seq == flow.rcv_nxt) {
      net_->FreePacket(handle);
      return;
    }
    reply = PacketType::kNack;
    flow.last_nack_seq = flow.rcv_nxt;
  }
  packet.type = reply;
  packet.seq = flow.rcv_nxt;
  packet.size = net_->config().ack_bytes;
  packet.payload = 0;
  packet.dst_host = flow.src_host;
  net_->SendControlRouted(host, handle);
  // Last: the observer may add flows, which moves every Flow.
  if (just_delivered) net_->MarkDelivered(id);
}

void QueuePairTransport::ReceiveAck(uint32_t handle) {
  const Packet& packet = net_->packet(handle);
  const uint32_t id = packet.flow;
  Flow& flow = net_->mutable_flow(id);
  if (packet.seq > flow.snd_una) flow.snd_una = std::min(packet.seq, flow.bytes);
  if (packet.type == PacketType::kNack && packet.seq < flow.snd_nxt) flow.snd_nxt = packet.seq;
  if (net_->config().cc != CcMode::kNone && flow.acked < 0) {
    double before = flow.rate;
    cc_.OnAck(id, flow, packet, net_->packet_hops(handle), net_->now());
    if (flow.rate < before) net_->CountRateCut(id);
    if (flow.rate != before) RateChanged(flow);
  }
  net_->FreePacket(handle);
  if (flow.snd_una >= flow.bytes && flow.acked < 0) {
    net_->MarkAcked(id);
    FinishSending(id);
  }
  net_->KickPort(flow.src_port);
}

void QueuePairTransport::OnTimer(uint32_t, uint32_t) {}

bool QueuePairTransport::OnTypedTimer(uint8_t type, uint32_t a, uint32_t b) {
  Flow& flow = net_->mutable_flow(a);
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
  cc_.OnTimer(type, a, b, flow, net_->now());
  if (flow.rate < before) net_->CountRateCut(a);
  if (flow.rate != before) RateChanged(flow);
  return true;
}

// A lost ACK matters too once links fail: the last one may be the one lost.
void QueuePairTransport::OnDrop(uint32_t handle) {
  const Packet& packet = net_->packet(handle);
  if (packet.type != PacketType::kData && packet.type != PacketType::kAck &&
      packet.type != PacketType::kNack) {
    return;
  }
  const Flow& flow = net_->flow(packet.flow);
  if (!flow.rto_armed && flow.acked < 0) {
    ArmRetransmitTimer(packet.flow);
  }
}

void QueuePairTransport::SampleRates(Time now, std::vector<RateSample>* out) const {
  const size_t first = out->size();
  for (uint32_t host = 0; host < net_->num_hosts(); ++host) {
    const uint32_t first = net_->host_port(host);
    for (uint32_t port = first; port < first + net_->host_num_ports(host); ++port) {
      for (uint32_t id : ports_[port].flows) out->push_back({now, id, net_->flow(id).rate});
    }
  }
  std::sort(out->begin() + static_cast<std::ptrdiff_t>(first), out->end(),
            [](const RateSample& x, const RateSample& y) { return x.flow < y.flow; });
}

void QueuePairTransport::RateChanged(Flow& flow) {
  if (flow.last_size > 0) flow.next_avail = flow.last_send + PacingTime(flow.last_size, flow.rate);
  net_->KickPort(flow.src_port);
}

void QueuePairTransport::FinishSending(uint32_t id) {
  PortQueues& port = ports_[net_->flow(id).src_port];
  auto it = std::find(port.flows.begin(), port.flows.end(), id);
  if (it == port.flows.end()) {
    throw std::logic_error("net: flow " + std::to_string(id) + " finished twice");
  }
  size_t slot = static_cast<size_t>(it - port.flows.begin());
  port.flows.erase(it);
  if (port.scheduler) port.scheduler->Remove(id, net_->flow(id).nic_class);
  if (slot < port.next_flow) --port.next_flow;
  if (port.next_flow >= port.flows.size()) port.next_flow = 0;
}

void QueuePairTransport::ArmRetransmitTimer(uint32_t id) {
  Flow& flow = net_->mutable_flow(id);
  // Without any path left (a failed link cut the hosts apart) the flow gives up.
  if (!net_->HostsConnected(flow.src_host, flow.dst_host)) return;
  flow.rto_armed = true;
  flow.rto_una = flow.snd_una;
  net_->PushTypedTimer(net_->now() + net_->config().retransmit_timeout, kEventRetransmit, id, 0);
}

void QueuePairTransport::RetransmitTimeout(uint32_t id) {
  Flow& flow = net_->mutable_flow(id);
  flow.rto_armed = false;
  if (flow.acked >= 0) return;
  if (flow.snd_una == flow.rto_una && flow.snd_nxt > flow.snd_una) {
    flow.snd_nxt = flow.snd_una;
    net_->KickPort(flow.src_port);
  }
  if (flow.snd_una < flow.bytes) ArmRetransmitTimer(id);
}

}  // namespace jigsaw::net
