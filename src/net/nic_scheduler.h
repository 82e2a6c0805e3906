// Priority classes at a host NIC port, as Linux HTB schedules the classes TensorLights installs
// (every class guaranteed a token rate, ceil = the link, one `prio` each): strict priority between
// bands (band 0 first), round-robin between the classes of one band, and round-robin between the
// queue pairs of one class (the class's FIFO, at packet granularity). Work-conserving: a band is
// skipped while none of its queue pairs may send (window full, rate limiter closed), as HTB lends
// the link to the next prio. HTB's guaranteed rate per class (TensorLights: 100 kbit, 1e-4 of a
// 1 Gbps link) is not modelled.
//
// The queue-pair transport owns one per NIC port that has one (Network::InstallNicScheduler);
// queue pairs join their Flow::nic_class when they start and leave when acknowledged. SetBand may
// move a class at any time; the next packet the port picks follows the new band.
#ifndef JIGSAW_NET_NIC_SCHEDULER_H_
#define JIGSAW_NET_NIC_SCHEDULER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace jigsaw::net {

class NicScheduler {
 public:
  static constexpr int kMaxBands = 8;

  // Classes 0..classes-1 (>= 1), each in band `initial_band` (< kMaxBands) until SetBand.
  // `oldest_first`: within a class, the oldest queue pair (first added) that may send goes first
  // (NicOrder::kFifo) instead of round-robin.
  NicScheduler(uint16_t classes, uint8_t initial_band, bool oldest_first = false);

  uint16_t classes() const { return static_cast<uint16_t>(classes_.size()); }
  uint8_t band(uint16_t cls) const { return classes_[cls].band; }
  // Throws std::out_of_range for a class or band outside the ranges above.
  void SetBand(uint16_t cls, uint8_t band);
  void Add(uint32_t flow, uint16_t cls);
  void Remove(uint32_t flow, uint16_t cls);

  // Offers queue pairs in service order until `try_send(flow)` returns true (that queue pair
  // sent); the cursors then move past it. Returns false when none sent.
  template <class TrySend>
  bool Serve(TrySend&& try_send);

 private:
  struct Class {
    uint8_t band = 0;
    std::vector<uint32_t> flows;
    size_t cursor = 0;
  };
  struct Band {
    std::vector<uint16_t> active;  // classes with queue pairs, in round-robin order
    size_t cursor = 0;
  };
  void Activate(uint16_t cls);
  void Deactivate(uint16_t cls);

  std::vector<Class> classes_;
  Band bands_[kMaxBands];
  uint8_t nonempty_ = 0;  // bit b: band b has an active class
  bool oldest_first_ = false;
};

template <class TrySend>
bool NicScheduler::Serve(TrySend&& try_send) {
  for (int b = 0; b < kMaxBands; ++b) {
    if ((nonempty_ >> b & 1) == 0) continue;
    Band& band = bands_[b];
    const size_t count = band.active.size();
    for (size_t i = 0; i < count; ++i) {
      size_t slot = band.cursor + i;
      if (slot >= count) slot -= count;
      Class& cls = classes_[band.active[slot]];
      const size_t flows = cls.flows.size();
      for (size_t j = 0; j < flows; ++j) {
        size_t at = oldest_first_ ? j : cls.cursor + j;
        if (at >= flows) at -= flows;
        if (try_send(cls.flows[at])) {
          if (!oldest_first_) cls.cursor = at + 1 == flows ? 0 : at + 1;
          band.cursor = slot + 1 == count ? 0 : slot + 1;
          return true;
        }
      }
    }
  }
  return false;
}

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_NIC_SCHEDULER_H_
