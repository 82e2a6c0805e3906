#include "net/homa.h"

#include <algorithm>

#include "net/network.h"

namespace jigsaw::net {

HomaTransport::HomaTransport(Network* network)
    : network_(network), config_(network->config()), hosts_(network->num_hosts()) {}

void HomaTransport::Grow() {
  if (out_.size() < network_->num_flows()) {
    out_.resize(network_->num_flows());
    in_.resize(network_->num_flows());
  }
}

uint64_t HomaTransport::RttBytes(uint32_t flow) const {
  uint64_t bytes = config_.homa.rtt_bytes > 0 ? config_.homa.rtt_bytes : network_->flow(flow).bdp;
  // Whole packets, at least one.
  const uint64_t payload = config_.payload_bytes;
  return std::max<uint64_t>(1, (bytes + payload - 1) / payload) * payload;
}

uint64_t HomaTransport::UnscheduledBytes(uint32_t flow) const {
  return std::min(network_->flow(flow).bytes, RttBytes(flow));
}

uint8_t HomaTransport::UnscheduledPriority(uint64_t message_bytes) const {
  static constexpr uint64_t kCutoffs[] = {1000, 8000, 64000};
  int level = 0;
  while (level < 3 && message_bytes > kCutoffs[level]) ++level;
  return static_cast<uint8_t>(std::min(level, config_.homa.unscheduled_levels - 1));
}

void HomaTransport::Start(uint32_t id) {
  Grow();
  const Flow& flow = network_->flow(id);
  OutMessage& message = out_[id];
  message.granted = UnscheduledBytes(id);
  message.prio = UnscheduledPriority(flow.bytes);
  message.active = true;
  message.last_sent = network_->now();
  hosts_[flow.src_host].out.push_back(id);
  ArmTimer(flow.src_host, false);
  network_->KickHost(flow.src_host);
}

uint32_t HomaTransport::NextPacket(uint32_t host_index, Time*) {
  Host& host = hosts_[host_index];
  uint32_t best = kNoPacket;
  uint64_t best_left = UINT64_MAX;
  for (uint32_t id : host.out) {
    const OutMessage& message = out_[id];
    const uint64_t bytes = network_->flow(id).bytes;
    if (message.sent >= std::min(message.granted, bytes)) continue;
    const uint64_t left = bytes - message.sent;
    if (left < best_left) {
      best_left = left;
      best = id;
    }
  }
  if (best == kNoPacket) return kNoPacket;
  OutMessage& message = out_[best];
  const Flow& flow = network_->flow(best);
  const uint32_t handle = network_->AllocatePacket();
  Packet& packet = network_->packet(handle);
  packet.type = PacketType::kData;
  packet.flow = best;
  packet.dst_host = flow.dst_host;
  packet.seq = message.sent;
  packet.payload =
      static_cast<uint32_t>(std::min<uint64_t>(config_.payload_bytes, flow.bytes - message.sent));
  packet.size = config_.data_packet_bytes(packet.payload);
  packet.sent_at = network_->now();
  packet.prio =
      message.sent < UnscheduledBytes(best) ? UnscheduledPriority(flow.bytes) : message.prio;
  message.sent += packet.payload;
  message.last_sent = network_->now();
  return handle;
}

void HomaTransport::SendControl(uint32_t from_host, uint32_t to_host, uint32_t flow,
                                PacketType type, uint64_t seq, uint8_t prio) {
  const uint32_t handle = network_->AllocatePacket();
  Packet& packet = network_->packet(handle);
  packet.type = type;
  packet.flow = flow;
  packet.dst_host = to_host;
  packet.size = config_.ack_bytes;
  packet.seq = seq;
  packet.prio = prio;
  network_->SendControl(from_host, handle);
}

void HomaTransport::Receive(uint32_t host_index, uint32_t handle) {
  Grow();
  Packet& packet = network_->packet(handle);
  const uint32_t id = packet.flow;
  const PacketType type = packet.type;
  const uint64_t seq = packet.seq;
  const uint8_t prio = packet.prio;
  const uint32_t payload = packet.payload;
  network_->FreePacket(handle);
  if (type != PacketType::kData) {
    OutMessage& message = out_[id];
    if (!message.active) return;
    message.heard = true;
    if (type == PacketType::kGrant) {
      if (seq > message.granted) message.granted = seq;
      message.prio = prio;
    } else if (type == PacketType::kResend) {
      message.sent = std::min(message.sent, seq);
    } else if (type == PacketType::kDone) {
      message.active = false;
      network_->MarkAcked(id);
      auto& out = hosts_[host_index].out;
      out.erase(std::find(out.begin(), out.end(), id));
      return;
    }
    network_->KickHost(host_index);
    return;
  }
  Flow& flow = network_->mutable_flow(id);
  InMessage& message = in_[id];
  if (message.done) {
    ++stats_.duplicate_packets;
    return;
  }
  Host& host = hosts_[host_index];
  if (!message.known) {
    message.known = true;
    message.granted = UnscheduledBytes(id);
    message.have.assign((flow.bytes / config_.payload_bytes + 64) / 64, 0);
    host.in.push_back(id);
    if (message.granted < flow.bytes) host.to_grant.insert({flow.bytes, id});
    ArmTimer(host_index, true);
  }
  const uint64_t index = seq / config_.payload_bytes;
  uint64_t& word = message.have[index / 64];
  const uint64_t bit = uint64_t{1} << (index % 64);
  if ((word & bit) != 0) {
    ++stats_.duplicate_packets;
    return;
  }
  word |= bit;
  const bool to_grant = message.granted < flow.bytes;
  if (to_grant) host.to_grant.erase({flow.bytes - message.received, id});
  message.received += payload;
  if (to_grant && message.received < flow.bytes) {
    host.to_grant.insert({flow.bytes - message.received, id});
  }
  message.last_progress = network_->now();
  message.resends = 0;
  if (message.received == flow.bytes) {
    message.done = true;
    message.have.clear();
    message.have.shrink_to_fit();
    host.in.erase(std::find(host.in.begin(), host.in.end(), id));
    flow.rcv_nxt = flow.bytes;
    SendControl(host_index, flow.src_host, id, PacketType::kDone, flow.bytes, 0);
    Regrant(host_index, id);
    // Last: the observer may add flows, which moves every Flow.
    network_->MarkDelivered(id);
    return;
  }
  if (flow.bytes > UnscheduledBytes(id)) Regrant(host_index, id);
}

void HomaTransport::Regrant(uint32_t host_index, uint32_t arrived) {
  Host& host = hosts_[host_index];
  // The `overcommit` messages with bytes still to grant and the fewest bytes left to receive.
  const int overcommit = std::clamp(config_.homa.overcommit, 1, kNumPriorities);
  const int per_sender = config_.homa.max_per_sender;
  uint32_t chosen[kNumPriorities];
  int count = 0;
  for (auto it = host.to_grant.begin(); it != host.to_grant.end() && count < overcommit; ++it) {
    if (per_sender > 0) {
      const uint32_t sender = network_->flow(it->second).src_host;
      int same = 0;
      for (int k = 0; k < count; ++k) same += network_->flow(chosen[k]).src_host == sender;
      if (same >= per_sender) continue;
    }
    chosen[count++] = it->second;
  }
  const int levels = config_.homa.unscheduled_levels;
  for (int rank = 0; rank < count; ++rank) {
    const uint32_t id = chosen[rank];
    InMessage& message = in_[id];
    const Flow& flow = network_->flow(id);
    const uint64_t target = std::min(flow.bytes, message.received + RttBytes(id));
    // Grant in whole packets (or to the end), as Homa does per received packet.
    if (target >= message.granted + config_.payload_bytes || target == flow.bytes) {
      if (target <= message.granted) continue;
      message.granted = target;
      message.told = true;
      ++stats_.grants;
      if (target == flow.bytes) host.to_grant.erase({flow.bytes - message.received, id});
      const uint8_t prio = static_cast<uint8_t>(std::min(levels + rank, kNumPriorities - 1));
      SendControl(host_index, flow.src_host, id, PacketType::kGrant, target, prio);
    }
  }
  // A message that must wait for its grant: tell its sender that it arrived.
  InMessage& message = in_[arrived];
  const Flow& flow = network_->flow(arrived);
  if (!message.told && !message.done && message.granted < flow.bytes) {
    message.told = true;
    SendControl(host_index, flow.src_host, arrived, PacketType::kGrant, 0,
                static_cast<uint8_t>(kNumPriorities - 1));
  }
}

void HomaTransport::ArmTimer(uint32_t host_index, bool receiver) {
  Host& host = hosts_[host_index];
  bool& armed = receiver ? host.receiver_timer : host.sender_timer;
  if (armed) return;
  armed = true;
  network_->SetTransportTimer(network_->now() + config_.homa.resend_timeout / 2, host_index,
                              receiver ? 1 : 0);
}

void HomaTransport::OnTimer(uint32_t host_index, uint32_t receiver) {
  Host& host = hosts_[host_index];
  const Time now = network_->now();
  const Time timeout = config_.homa.resend_timeout;
  if (receiver != 0) {
    host.receiver_timer = false;
    for (uint32_t id : host.in) {
      InMessage& message = in_[id];
      if (message.received >= message.granted) continue;
      const int backoff = std::min<int>(message.resends, kMaxSenderBackoff);
      if (now - message.last_progress < timeout * (Time{1} << backoff)) continue;
      // First missing packet.
      uint64_t index = 0;
      while ((message.have[index / 64] >> (index % 64) & 1) != 0) ++index;
      message.last_progress = now;
      if (message.resends < UINT8_MAX) ++message.resends;
      ++stats_.resend_requests;
      SendControl(host_index, network_->flow(id).src_host, id, PacketType::kResend,
                  index * config_.payload_bytes, 0);
    }
    if (!host.in.empty()) ArmTimer(host_index, true);
    return;
  }
  host.sender_timer = false;
  bool kick = false;
  for (uint32_t id : host.out) {
    OutMessage& message = out_[id];
    const uint64_t bytes = network_->flow(id).bytes;
    if (message.heard || message.sent < std::min(message.granted, bytes)) continue;
    const int backoff = std::min<int>(message.sender_resends, kMaxSenderBackoff);
    if (now - message.last_sent < timeout * (Time{1} << backoff)) continue;
    // Unheard, so granted = the unscheduled bytes, none of them acknowledged: send them again.
    message.sent = 0;
    if (message.sender_resends < UINT8_MAX) ++message.sender_resends;
    ++stats_.sender_timeouts;
    kick = true;
  }
  if (kick) network_->KickHost(host_index);
  if (!host.out.empty()) ArmTimer(host_index, false);
}

}  // namespace jigsaw::net
