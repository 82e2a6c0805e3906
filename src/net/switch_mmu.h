// Shared-buffer memory management of one output-queued switch (the "Broadcom" MMU of the HPCC
// fork), for its lossless data class.
//
// Every data byte held by the switch is charged to the port it came in on: first to a small
// per-port reserve, then to the buffer shared by all ports, and once the port's shared usage
// reaches the dynamic threshold (free shared buffer >> shift) to the port's private headroom, which
// absorbs what is still in flight after a PAUSE. A port must be paused while it uses headroom or
// its shared usage is at the threshold, and may resume once its headroom is empty and its shared
// usage is resume_offset below the threshold. A packet is dropped only when it fits neither in the
// headroom nor under the threshold. With PFC off there is no headroom: the threshold alone decides.
#ifndef JIGSAW_NET_SWITCH_MMU_H_
#define JIGSAW_NET_SWITCH_MMU_H_

#include <cstdint>
#include <vector>

namespace jigsaw::net {

class SwitchMmu {
 public:
  struct PortSpec {
    uint64_t headroom_bytes;
    int shift;  // threshold = free shared buffer >> shift
  };
  SwitchMmu(uint64_t buffer_bytes, uint32_t reserve_bytes, uint32_t resume_offset_bytes, bool pfc,
            const std::vector<PortSpec>& ports);

  bool Admit(uint16_t port, uint32_t bytes) const;
  void OnEnqueue(uint16_t port, uint32_t bytes);
  void OnDequeue(uint16_t port, uint32_t bytes);
  // Each returns true at most once per transition and records the new state.
  bool TakePause(uint16_t port);
  bool TakeResume(uint16_t port);

  uint64_t Threshold(uint16_t port) const;
  uint64_t shared_used() const { return shared_used_; }
  uint64_t headroom_used(uint16_t port) const { return ports_[port].headroom_used; }

 private:
  struct PortState {
    uint64_t headroom_bytes;
    int shift;
    uint64_t ingress_bytes = 0;  // reserve + shared part
    uint64_t headroom_used = 0;
    bool paused = false;
  };
  uint64_t SharedUsed(const PortState& port) const {
    return port.ingress_bytes > reserve_ ? port.ingress_bytes - reserve_ : 0;
  }

  uint64_t buffer_;
  uint64_t reserve_;
  uint64_t resume_offset_;
  bool pfc_;
  uint64_t fixed_bytes_ = 0;  // all headroom and reserve: never part of the shared pool
  uint64_t shared_used_ = 0;
  std::vector<PortState> ports_;
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_SWITCH_MMU_H_
