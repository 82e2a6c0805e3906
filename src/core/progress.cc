#include "core/progress.h"

#include <cstdio>

namespace jigsaw {

Progress::Progress(std::string label, bool enabled, double interval_s)
    : label_(std::move(label)),
      enabled_(enabled),
      interval_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(interval_s))),
      next_(std::chrono::steady_clock::now() + interval_) {}

bool Progress::Due() {
  if (!enabled_) return false;
  if ((++calls_ & 63u) != 0) return false;  // Look at the clock only every 64 calls.
  return std::chrono::steady_clock::now() >= next_;
}

void Progress::Report(const std::string& message) {
  if (!enabled_) return;
  std::fprintf(stderr, "%s: %s\n", label_.c_str(), message.c_str());
  next_ = std::chrono::steady_clock::now() + interval_;
}

void Progress::Final(const std::string& message) {
  if (enabled_) std::fprintf(stderr, "%s: %s\n", label_.c_str(), message.c_str());
}

}  // namespace jigsaw
