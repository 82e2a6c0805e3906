// Packets, a pool that recycles them, and the FIFO of packet handles used by port queues.
//
// A packet is a POD record addressed by a 32-bit handle into PacketPool; queues and events carry
// handles, never pointers, so the pool may grow and nothing is allocated per packet in steady
// state. INT records live in a parallel array so the hot record stays small (48 bytes). Data
// packets carry a byte sequence number and their send time; ACK/NACK packets carry the cumulative
// acknowledgement, the ECN echo, the echoed send time and, for HPCC, the INT hop records the data
// packet collected at each switch egress.
#ifndef JIGSAW_NET_PACKET_H_
#define JIGSAW_NET_PACKET_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "net/units.h"

namespace jigsaw::net {

// kData..kNack serve the RDMA queue pairs; the others are control messages of the transports in
// transport.h (kRequest is the one switches hand to the transport).
enum class PacketType : uint8_t { kData, kAck, kNack, kRequest, kGrant, kResend, kDone };

// Strict-priority data queues per port: 0 is served first.
inline constexpr int kNumPriorities = 8;

inline constexpr int kMaxIntHops = 5;

// What one switch egress reports to HPCC: when, how much it has sent in total, how much it holds.
struct IntHop {
  Time time;
  uint64_t tx_bytes;
  uint64_t queue_bytes;
  uint64_t rate_bps;
};

struct Packet {
  uint64_t seq;  // data: first payload byte; ACK/NACK: next byte expected
  Time sent_at;  // when the data packet left its sender (echoed by ACKs)
  uint32_t flow;
  uint32_t dst_host;
  uint32_t size;     // bytes on the wire
  uint32_t payload;  // data bytes carried (0 for ACKs)
  uint16_t in_port;  // local ingress port at the switch holding it
  PacketType type;
  uint8_t ecn;   // data: congestion experienced; ACK: echo of it
  uint8_t hops;  // INT records in PacketPool::hops(handle)
  uint8_t prio;  // data queue at every egress (0..kNumPriorities-1, 0 first)
};

struct IntStack {
  IntHop hop[kMaxIntHops];
};

class PacketPool {
 public:
  uint32_t Allocate() {
    if (free_.empty()) {
      packets_.emplace_back();
      int_stacks_.emplace_back();
      return static_cast<uint32_t>(packets_.size() - 1);
    }
    uint32_t handle = free_.back();
    free_.pop_back();
    return handle;
  }
  void Free(uint32_t handle) { free_.push_back(handle); }
  Packet& operator[](uint32_t handle) { return packets_[handle]; }
  IntHop* hops(uint32_t handle) { return int_stacks_[handle].hop; }
  size_t capacity() const { return packets_.size(); }
  size_t in_use() const { return packets_.size() - free_.size(); }

 private:
  std::vector<Packet> packets_;
  std::vector<IntStack> int_stacks_;
  std::vector<uint32_t> free_;
};

// FIFO of packet handles in a power-of-two ring that doubles when full. 24 bytes, so a port's
// control queue and first data queue share its hot cache lines; the 32-bit positions wrap, which
// the power-of-two ring tolerates (it never holds 2^32 handles).
class PacketFifo {
 public:
  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }
  uint32_t front() const { return ring_[head_ & mask_]; }
  uint32_t at(size_t i) const { return ring_[(head_ + i) & mask_]; }  // i < size(), 0 = front
  void Push(uint32_t handle) {
    if (tail_ - head_ == capacity()) Grow();
    ring_[tail_++ & mask_] = handle;
  }
  uint32_t Pop() { return ring_[head_++ & mask_]; }

 private:
  uint32_t capacity() const { return ring_ == nullptr ? 0 : mask_ + 1; }
  void Grow() {
    const uint32_t capacity = ring_ == nullptr ? 16 : (mask_ + 1) * 2;
    std::unique_ptr<uint32_t[]> bigger(new uint32_t[capacity]);
    const uint32_t count = tail_ - head_;
    for (uint32_t i = 0; i < count; ++i) bigger[i] = ring_[(head_ + i) & mask_];
    tail_ = count;
    head_ = 0;
    ring_ = std::move(bigger);
    mask_ = capacity - 1;
  }

  std::unique_ptr<uint32_t[]> ring_;
  uint32_t mask_ = 0;
  uint32_t head_ = 0;
  uint32_t tail_ = 0;
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_PACKET_H_
