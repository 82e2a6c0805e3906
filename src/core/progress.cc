#include "core/progress.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>

namespace jigsaw {
namespace {

std::atomic<Verbosity> verbosity{Verbosity::kNormal};

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void SetVerbosity(Verbosity v) { verbosity.store(v); }
Verbosity CurrentVerbosity() { return verbosity.load(); }

std::string FormatEta(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const long long s = std::llround(seconds);
  char text[48];
  if (s < 60) {
    std::snprintf(text, sizeof(text), "%llds", s);
  } else if (s < 3600) {
    std::snprintf(text, sizeof(text), "%lldm%02llds", s / 60, s % 60);
  } else {
    std::snprintf(text, sizeof(text), "%lldh%02lldm", s / 3600, (s % 3600) / 60);
  }
  return text;
}

Progress::Progress(std::string label, bool enabled, double interval_s)
    : Progress(std::move(label), enabled, interval_s, stderr, isatty(STDERR_FILENO) == 1,
               SteadySeconds) {}

Progress::Progress(std::string label, bool enabled, double interval_s, std::FILE* stream,
                   bool terminal, std::function<double()> clock)
    : label_(std::move(label)),
      enabled_(enabled),
      interval_s_(interval_s),
      stream_(stream),
      terminal_(terminal),
      clock_(std::move(clock)),
      start_s_(clock_()),
      next_s_(start_s_ + interval_s) {}

Progress::~Progress() {
  if (line_open_) std::fputc('\n', stream_);
}

bool Progress::Enabled() const { return enabled_ && CurrentVerbosity() != Verbosity::kQuiet; }

bool Progress::Due() { return Enabled() && clock_() >= next_s_; }

void Progress::Emit(const std::string& text, bool final_line) {
  if (terminal_) {
    std::fprintf(stream_, "\r%s: %s\x1b[K%s", label_.c_str(), text.c_str(), final_line ? "\n" : "");
    line_open_ = !final_line;
  } else {
    std::fprintf(stream_, "%s: %s\n", label_.c_str(), text.c_str());
  }
  std::fflush(stream_);
}

void Progress::Report(const std::string& message) {
  if (!Enabled()) return;
  Emit(message, false);
  next_s_ = clock_() + interval_s_;
}

void Progress::Report(double done, double total, const std::string& message) {
  if (!Enabled()) return;
  const double now = clock_();
  std::string prefix = "[";
  if (total > 0 && done >= 0) {
    char share[32];
    std::snprintf(share, sizeof(share), "%.1f%%", 100.0 * std::min(done, total) / total);
    prefix += share;
    const double elapsed = now - start_s_;
    prefix += ", ETA " + (done > 0 ? FormatEta(elapsed * (total - done) / done) : "?");
  } else {
    prefix += "?%";
  }
  Emit(prefix + "] " + message, false);
  next_s_ = now + interval_s_;
}

void Progress::Detail(const std::string& message) {
  if (!enabled_ || CurrentVerbosity() != Verbosity::kVerbose) return;
  if (line_open_) {
    std::fputc('\n', stream_);
    line_open_ = false;
  }
  std::fprintf(stream_, "%s: %s\n", label_.c_str(), message.c_str());
  std::fflush(stream_);
}

void Progress::Final(const std::string& message) {
  if (!Enabled()) {
    if (line_open_) std::fputc('\n', stream_);
    line_open_ = false;
    return;
  }
  Emit(message, true);
  line_open_ = false;
}

}  // namespace jigsaw
