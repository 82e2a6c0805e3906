#include "net/pl2.h"

#include <algorithm>

#include "net/network.h"

namespace jigsaw::net {
namespace {

constexpr int kGuardControls = 2;  // control packets a burst's slot leaves room for
constexpr int kLeadControls = 3;   // control packets the grant may wait behind, plus reaction
// Request classes, in Packet::prio.
constexpr uint8_t kSmall = 0;
constexpr uint8_t kBulk = 1;
constexpr uint8_t kRetry = 2;

}  // namespace

Pl2Transport::Pl2Transport(Network* network)
    : network_(network), config_(network->config()), hosts_(network->num_hosts()) {}

uint64_t Pl2Transport::QueueBound(const NetConfig& config) {
  // One packet in service, the next already stored (a burst's short last packet or a late start
  // by at most the guard), and the control packets that overtook data meanwhile.
  const uint64_t mtu = config.data_packet_bytes(config.payload_bytes);
  return 2 * mtu + static_cast<uint64_t>(config.pl2.max_requests_per_host + kGuardControls) *
                       config.ack_bytes;
}

Time Pl2Transport::WireTime(uint64_t bytes, uint64_t rate_bps) const {
  const uint64_t packets = (bytes + config_.payload_bytes - 1) / config_.payload_bytes;
  return SerializationTime(bytes + packets * config_.header_bytes, rate_bps);
}

Time Pl2Transport::FirstPacketTime(uint64_t bytes, uint64_t rate_bps) const {
  const uint64_t first = std::min<uint64_t>(bytes, config_.payload_bytes);
  return SerializationTime(first + config_.header_bytes, rate_bps);
}

void Pl2Transport::Start(uint32_t id) {
  if (messages_.size() <= id) messages_.resize(network_->num_flows());
  const Flow& flow = network_->flow(id);
  Message& message = messages_[id];
  message.unrequested = flow.bytes;
  Host& host = hosts_[flow.src_host];
  host.waiting.push_back(id);
  host.backlog += flow.bytes;
  stats_.max_host_backlog_bytes = std::max(stats_.max_host_backlog_bytes, host.backlog);
  TryRequest(flow.src_host);
}

bool Pl2Transport::SendRequest(uint32_t host_index, uint32_t id, bool leave_for_small) {
  Host& host = hosts_[host_index];
  Message& message = messages_[id];
  const Flow& flow = network_->flow(id);
  const uint64_t burst_bytes = uint64_t{config_.pl2.burst_packets} * config_.payload_bytes;
  // A message asks for at most requests_per_message bursts ahead (one being sent, the next ones
  // booked behind it). Bulk leaves two of the host's requests to one-burst messages.
  const int limit = config_.pl2.max_requests_per_host - (leave_for_small ? 2 : 0);
  if (message.unrequested == 0 || message.outstanding >= config_.pl2.requests_per_message ||
      host.outstanding >= limit || message.retry_at > network_->now()) {
    return false;
  }
  const uint64_t bytes = std::min(message.unrequested, burst_bytes);
  const uint32_t handle = network_->AllocatePacket();
  Packet& request = network_->packet(handle);
  request.type = PacketType::kRequest;
  request.flow = id;
  request.dst_host = flow.dst_host;
  request.size = config_.ack_bytes;
  request.seq = bytes;
  if (message.tickets > 0) {
    --message.tickets;
    request.prio = kRetry;
  } else {
    const bool whole = bytes == flow.bytes;
    request.prio = whole ? kSmall : kBulk;
  }
  message.unrequested -= bytes;
  ++message.outstanding;
  ++host.outstanding;
  ++stats_.requests;
  network_->SendControl(host_index, handle);
  return true;
}

void Pl2Transport::TryRequest(uint32_t host_index) {
  Host& host = hosts_[host_index];
  const Time now = network_->now();
  const uint64_t burst_bytes = uint64_t{config_.pl2.burst_packets} * config_.payload_bytes;
  Time next_retry = kNever;
  // With bulk_oldest_first, per destination the oldest waiting bulk message (by start, then id).
  oldest_.clear();
  if (config_.pl2.bulk_oldest_first) {
    for (uint32_t id : host.waiting) {
      const Flow& flow = network_->flow(id);
      if (flow.bytes <= burst_bytes) continue;
      auto same = std::find_if(oldest_.begin(), oldest_.end(), [&](uint32_t other) {
        return network_->flow(other).dst_host == flow.dst_host;
      });
      if (same == oldest_.end()) {
        oldest_.push_back(id);
      } else if (std::make_pair(flow.start, id) <
                 std::make_pair(network_->flow(*same).start, *same)) {
        *same = id;
      }
    }
  }
  // One-burst messages first (RPCs), then the rest, each in start order.
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t id : host.waiting) {
      const bool small = network_->flow(id).bytes <= burst_bytes;
      if (small != (pass == 0)) continue;
      if (!small && config_.pl2.bulk_oldest_first &&
          std::find(oldest_.begin(), oldest_.end(), id) == oldest_.end()) {
        continue;
      }
      while (SendRequest(host_index, id, !small)) {
      }
      const Message& message = messages_[id];
      if (message.unrequested > 0 && message.retry_at > now) {
        next_retry = std::min(next_retry, message.retry_at);
      }
    }
  }
  size_t keep = 0;
  for (uint32_t id : host.waiting) {
    if (messages_[id].unrequested > 0) host.waiting[keep++] = id;
  }
  host.waiting.resize(keep);
  if (next_retry < host.retry_timer) {
    host.retry_timer = next_retry;
    network_->SetTransportTimer(next_retry, host_index, 0);
  }
}

void Pl2Transport::OnTimer(uint32_t host_index, uint32_t) {
  Host& host = hosts_[host_index];
  if (host.retry_timer <= network_->now()) host.retry_timer = kNever;
  TryRequest(host_index);
}

void Pl2Transport::SwitchReceive(uint32_t switch_index, uint16_t in_local, uint32_t handle) {
  if (switches_.size() <= switch_index) switches_.resize(switch_index + 1);
  SwitchPorts& ports = switches_[switch_index];
  if (ports.rx_free.empty()) {
    ports.rx_free.assign(network_->SwitchNumPorts(switch_index), 0);
    ports.tx_free.assign(network_->SwitchNumPorts(switch_index), 0);
    ports.ticket.assign(network_->SwitchNumPorts(switch_index), 0);
    ports.gap_start.assign(network_->SwitchNumPorts(switch_index), 0);
    ports.gap_end.assign(network_->SwitchNumPorts(switch_index), 0);
  }
  Packet& packet = network_->packet(handle);
  const Time now = network_->now();
  const uint32_t src = network_->HostBehind(switch_index, in_local);
  // In a rack the egress towards host h is the switch port h is attached to; the simulator
  // finds it by a scan, a switch by its forwarding table.
  uint16_t e = 0;
  for (uint16_t p = 0; p < ports.rx_free.size(); ++p) {
    if (network_->HostBehind(switch_index, p) == packet.dst_host) e = p;
  }
  const uint16_t i = in_local;
  const uint64_t rate = network_->host_rate_bps(src);
  const Time d = network_->host_delay(src);
  const Time c = SerializationTime(config_.ack_bytes, rate);
  const Time m = SerializationTime(config_.data_packet_bytes(config_.payload_bytes), rate);
  const Time f = FirstPacketTime(packet.seq, rate);
  const Time dur = WireTime(packet.seq, rate);
  const Time guard = kGuardControls * c;
  const Time lead = now + 2 * d + f + m + kLeadControls * c;
  const Time earliest = std::max(ports.rx_free[e], ports.tx_free[i] + f + d);
  Time start = std::max(lead, earliest);
  // The uplink's one remembered idle gap (left before a booking far ahead) takes the burst if it
  // fits there whole.
  bool in_gap = false;
  if (ports.gap_end[i] > ports.gap_start[i]) {
    const Time early = std::max({lead, ports.rx_free[e], ports.gap_start[i] + f + d});
    if (early < start && early - f - d + dur + guard <= ports.gap_end[i]) {
      start = early;
      in_gap = true;
    }
  }
  // A retry may find its slot up to one full burst later than bulk_horizon (gaps that uplink
  // bookings leave on the egress); beyond that it queues again, which resynchronises the tickets.
  const Time retry_horizon = config_.pl2.bulk_horizon + config_.pl2.burst_packets * m;
  bool accept = false;
  if (packet.prio == kSmall) {
    accept = start - now <= config_.pl2.small_horizon;
  } else if (packet.prio == kRetry) {
    accept = start - now <= retry_horizon;
  } else {
    accept = start - now <= config_.pl2.bulk_horizon && ports.ticket[e] <= now;
  }
  packet.dst_host = src;
  packet.size = config_.ack_bytes;
  packet.type = PacketType::kGrant;
  if (accept) {
    // A booking that overtakes the ticket queue (a SMALL one) moves every turn in it back by its
    // airtime, so retries keep arriving when their slot is bulk_horizon away.
    if (packet.prio != kRetry && ports.ticket[e] > now) ports.ticket[e] += dur + guard;
    ports.rx_free[e] = start + dur + guard;
    const Time send = start - f - d;
    if (in_gap) {
      ports.gap_start[i] = send + dur + guard;
    } else {
      if (send > std::max(ports.tx_free[i], now)) {
        ports.gap_start[i] = std::max(ports.tx_free[i], now);
        ports.gap_end[i] = send;
      }
      ports.tx_free[i] = send + dur + guard;
    }
    packet.ecn = 0;
    packet.sent_at = start - f - d;
    ++stats_.grants;
  } else {
    const Time turn = std::max(ports.ticket[e], earliest - config_.pl2.bulk_horizon);
    ports.ticket[e] = turn + dur + guard;
    packet.ecn = 1;  // REJECT
    packet.sent_at = turn - d - c;
    ++stats_.rejects;
  }
  network_->SwitchSendControl(switch_index, handle);
}

uint32_t Pl2Transport::NextPacket(uint32_t host_index, Time* wake) {
  Host& host = hosts_[host_index];
  const Time now = network_->now();
  if (!host.sending) {
    if (host.granted.empty()) return kNoPacket;
    const Burst& next = host.granted.front();
    if (next.start > now) {
      *wake = next.start;
      return kNoPacket;
    }
    stats_.max_grant_lateness = std::max(stats_.max_grant_lateness, now - next.start);
    host.current = next;
    host.granted.erase(host.granted.begin());
    host.sending = true;
    host.current_sent = 0;
    host.next_due = host.current.start;
  }
  if (host.next_due > now) {
    *wake = host.next_due;
    return kNoPacket;
  }
  const Flow& flow = network_->flow(host.current.flow);
  const uint64_t rate = network_->host_rate_bps(host_index);
  const uint32_t handle = network_->AllocatePacket();
  Packet& packet = network_->packet(handle);
  packet.type = PacketType::kData;
  packet.flow = host.current.flow;
  packet.dst_host = flow.dst_host;
  packet.seq = host.current.offset + host.current_sent;
  packet.payload = static_cast<uint32_t>(
      std::min<uint64_t>(config_.payload_bytes, host.current.bytes - host.current_sent));
  packet.size = config_.data_packet_bytes(packet.payload);
  packet.sent_at = now;
  host.current_sent += packet.payload;
  host.backlog -= packet.payload;
  host.next_due = std::max(host.next_due, now) + SerializationTime(packet.size, rate);
  if (host.current_sent == host.current.bytes) {
    host.sending = false;
    Message& message = messages_[host.current.flow];
    --message.outstanding;
    --host.outstanding;
    if (host.current.offset + host.current.bytes == flow.bytes) {
      network_->MarkAcked(host.current.flow);
    }
    TryRequest(host_index);
  }
  return handle;
}

void Pl2Transport::Receive(uint32_t host_index, uint32_t handle) {
  Packet& packet = network_->packet(handle);
  const uint32_t id = packet.flow;
  if (packet.type == PacketType::kData) {
    Flow& flow = network_->mutable_flow(id);
    flow.rcv_nxt += packet.payload;
    network_->FreePacket(handle);
    if (flow.rcv_nxt == flow.bytes) network_->MarkDelivered(id);
    return;
  }
  Host& host = hosts_[host_index];
  Message& message = messages_[id];
  const uint64_t bytes = packet.seq;
  const bool rejected = packet.ecn != 0;
  const Time at = packet.sent_at;
  network_->FreePacket(handle);
  if (rejected) {
    message.unrequested += bytes;
    message.retry_at = std::max(message.retry_at, at);
    ++message.tickets;
    --message.outstanding;
    --host.outstanding;
    if (std::find(host.waiting.begin(), host.waiting.end(), id) == host.waiting.end()) {
      host.waiting.push_back(id);
    }
    TryRequest(host_index);
    return;
  }
  Burst burst{id, message.next_offset, bytes, at};
  message.next_offset += bytes;
  auto position =
      std::upper_bound(host.granted.begin(), host.granted.end(), burst,
                       [](const Burst& x, const Burst& y) { return x.start < y.start; });
  host.granted.insert(position, burst);
  network_->KickHost(host_index);
}

}  // namespace jigsaw::net
