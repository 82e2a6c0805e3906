// Progress lines on stderr for long runs ("<label>: [42.0%, ETA 1m05s] <message>").
//
// On a terminal the line is rewritten in place ("\r... ESC[K"), elsewhere (a file, a pipe, a CI
// log) each report is a plain line. Reports are throttled by time: at most one per interval, judged
// on the clock (never on how often Due() is called). The process-wide verbosity (--quiet,
// --verbose, set once by the CLI) applies to every reporter: quiet prints nothing, verbose also
// prints Detail() lines. Never writes to stdout, so machine-readable output stays clean.
#ifndef JIGSAW_CORE_PROGRESS_H_
#define JIGSAW_CORE_PROGRESS_H_

#include <cstdio>
#include <functional>
#include <string>

namespace jigsaw {

enum class Verbosity { kQuiet, kNormal, kVerbose };
void SetVerbosity(Verbosity verbosity);
Verbosity CurrentVerbosity();

// "42s", "3m05s", "2h01m"; "?" for a negative or non-finite duration.
std::string FormatEta(double seconds);

class Progress {
 public:
  // Reports to stderr (rewritten in place when stderr is a terminal), on the steady clock.
  Progress(std::string label, bool enabled, double interval_s = 2.0);
  // For tests and callers with their own stream: `clock` returns seconds on any monotonic scale.
  Progress(std::string label, bool enabled, double interval_s, std::FILE* stream, bool terminal,
           std::function<double()> clock);
  ~Progress();

  // True when a report is due (cheap: one clock read); then call Report.
  bool Due();
  void Report(const std::string& message);
  // With the share done and an ETA extrapolated from the rate since construction.
  void Report(double done, double total, const std::string& message);
  // Printed only at --verbose (not throttled).
  void Detail(const std::string& message);
  // Always printed unless quiet; ends a rewritten line.
  void Final(const std::string& message);

 private:
  bool Enabled() const;
  void Emit(const std::string& text, bool final_line);

  std::string label_;
  bool enabled_;
  double interval_s_;
  std::FILE* stream_;
  bool terminal_;
  std::function<double()> clock_;
  double start_s_;
  double next_s_;
  bool line_open_ = false;  // a rewritten line is on screen without its newline
};

}  // namespace jigsaw

#endif  // JIGSAW_CORE_PROGRESS_H_
