#include "net/switch_mmu.h"

#include <algorithm>

namespace jigsaw::net {

SwitchMmu::SwitchMmu(uint64_t buffer_bytes, uint32_t reserve_bytes, uint32_t resume_offset_bytes,
                     bool pfc, const std::vector<PortSpec>& ports)
    : buffer_(buffer_bytes),
      reserve_(reserve_bytes),
      resume_offset_(resume_offset_bytes),
      pfc_(pfc) {
  for (const PortSpec& spec : ports) {
    PortState state;
    state.headroom_bytes = pfc ? spec.headroom_bytes : 0;
    state.shift = spec.shift;
    ports_.push_back(state);
    fixed_bytes_ += state.headroom_bytes + reserve_;
  }
}

uint64_t SwitchMmu::Threshold(uint16_t port) const {
  uint64_t taken = fixed_bytes_ + shared_used_;
  if (taken >= buffer_) return 0;
  return (buffer_ - taken) >> ports_[port].shift;
}

bool SwitchMmu::Admit(uint16_t port, uint32_t bytes) const {
  const PortState& state = ports_[port];
  if (state.ingress_bytes + bytes <= reserve_) return true;
  bool fits_shared = SharedUsed(state) + bytes <= Threshold(port);
  bool fits_headroom = state.headroom_used + bytes <= state.headroom_bytes;
  return fits_shared || fits_headroom;
}

void SwitchMmu::OnEnqueue(uint16_t port, uint32_t bytes) {
  PortState& state = ports_[port];
  uint64_t after = state.ingress_bytes + bytes;
  if (after <= reserve_) {
    state.ingress_bytes = after;
    return;
  }
  if (pfc_ && after - reserve_ > Threshold(port)) {
    state.headroom_used += bytes;
    return;
  }
  shared_used_ += std::min<uint64_t>(bytes, after - reserve_);
  state.ingress_bytes = after;
}

void SwitchMmu::OnDequeue(uint16_t port, uint32_t bytes) {
  PortState& state = ports_[port];
  uint64_t from_headroom = std::min<uint64_t>(state.headroom_used, bytes);
  uint64_t rest = bytes - from_headroom;
  uint64_t from_shared = std::min(rest, SharedUsed(state));
  state.headroom_used -= from_headroom;
  shared_used_ -= from_shared;
  state.ingress_bytes -= rest;
}

bool SwitchMmu::TakePause(uint16_t port) {
  PortState& state = ports_[port];
  if (!pfc_ || state.paused) return false;
  if (state.headroom_used > 0 || SharedUsed(state) >= Threshold(port)) {
    state.paused = true;
    return true;
  }
  return false;
}

bool SwitchMmu::TakeResume(uint16_t port) {
  PortState& state = ports_[port];
  if (!state.paused || state.headroom_used > 0) return false;
  uint64_t shared = SharedUsed(state);
  if (shared == 0 || shared + resume_offset_ <= Threshold(port)) {
    state.paused = false;
    return true;
  }
  return false;
}

}  // namespace jigsaw::net
