// Throttled progress lines on stderr for long runs ("<label>: <message>"), at most one per
// interval; silent when disabled. Never writes to stdout, so machine-readable output stays clean.
#ifndef JIGSAW_CORE_PROGRESS_H_
#define JIGSAW_CORE_PROGRESS_H_

#include <chrono>
#include <string>

namespace jigsaw {

class Progress {
 public:
  Progress(std::string label, bool enabled, double interval_s = 2.0);

  // True when a line is due (cheap to call on every step); then call Report.
  bool Due();
  void Report(const std::string& message);
  // Always prints (if enabled).
  void Final(const std::string& message);

 private:
  std::string label_;
  bool enabled_;
  std::chrono::steady_clock::duration interval_;
  std::chrono::steady_clock::time_point next_;
  unsigned calls_ = 0;
};

}  // namespace jigsaw

#endif  // JIGSAW_CORE_PROGRESS_H_
