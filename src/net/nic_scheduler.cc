#include "net/nic_scheduler.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace jigsaw::net {
namespace {

void RemoveAt(std::vector<uint32_t>* items, size_t* cursor, size_t slot) {
  items->erase(items->begin() + static_cast<std::ptrdiff_t>(slot));
  if (slot < *cursor) --*cursor;
  if (*cursor >= items->size()) *cursor = 0;
}

}  // namespace

NicScheduler::NicScheduler(uint16_t classes, uint8_t initial_band, bool oldest_first)
    : oldest_first_(oldest_first) {
  if (classes == 0 || initial_band >= kMaxBands) {
    throw std::out_of_range("NicScheduler: at least one class and a band below 8");
  }
  classes_.resize(classes);
  for (Class& cls : classes_) cls.band = initial_band;
}

void NicScheduler::SetBand(uint16_t cls, uint8_t band) {
  if (cls >= classes_.size() || band >= kMaxBands) {
    throw std::out_of_range("NicScheduler: class " + std::to_string(cls) + " or band " +
                            std::to_string(band) + " out of range");
  }
  if (classes_[cls].band == band) return;
  const bool active = !classes_[cls].flows.empty();
  if (active) Deactivate(cls);
  classes_[cls].band = band;
  if (active) Activate(cls);
}

void NicScheduler::Add(uint32_t flow, uint16_t cls) {
  if (cls >= classes_.size()) {
    throw std::out_of_range("NicScheduler: class " + std::to_string(cls) + " out of range");
  }
  classes_[cls].flows.push_back(flow);
  if (classes_[cls].flows.size() == 1) Activate(cls);
}

void NicScheduler::Remove(uint32_t flow, uint16_t cls) {
  Class& c = classes_.at(cls);
  auto it = std::find(c.flows.begin(), c.flows.end(), flow);
  if (it == c.flows.end()) return;
  RemoveAt(&c.flows, &c.cursor, static_cast<size_t>(it - c.flows.begin()));
  if (c.flows.empty()) Deactivate(cls);
}

void NicScheduler::Activate(uint16_t cls) {
  const uint8_t b = classes_[cls].band;
  bands_[b].active.push_back(cls);
  nonempty_ |= static_cast<uint8_t>(1u << b);
}

void NicScheduler::Deactivate(uint16_t cls) {
  const uint8_t b = classes_[cls].band;
  Band& band = bands_[b];
  auto it = std::find(band.active.begin(), band.active.end(), cls);
  if (it == band.active.end()) return;
  const size_t slot = static_cast<size_t>(it - band.active.begin());
  band.active.erase(it);
  if (slot < band.cursor) --band.cursor;
  if (band.cursor >= band.active.size()) band.cursor = 0;
  if (band.active.empty()) nonempty_ &= static_cast<uint8_t>(~(1u << b));
}

}  // namespace jigsaw::net
