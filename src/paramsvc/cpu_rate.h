// Turns cumulative CPU-time samples into a rate (cores in use).
//
// Each sample is (wall seconds, cumulative CPU seconds) as a process reports them. CPU time
// advances in scheduler ticks, so a rate over a very short window is noise: two reports sent
// back to back by a descheduled reporter once read as tens of cores. A sample less than
// `min_window_s` after the last sample used is therefore ignored, and the next one measures over
// the longer window. The first sample only sets the baseline. A CPU counter that went backwards
// (a restarted process) gives rate 0 for that window.
#ifndef JIGSAW_PARAMSVC_CPU_RATE_H_
#define JIGSAW_PARAMSVC_CPU_RATE_H_

namespace jigsaw::paramsvc {

class CpuRateMeter {
 public:
  // True when the sample closed a window (rate() is then that window's rate).
  bool Sample(double wall_s, double cpu_s, double min_window_s);
  // Forgets the baseline (the counter now comes from another process); keeps the last rate.
  void Reset() { has_baseline_ = false; }
  bool has_baseline() const { return has_baseline_; }
  double rate() const { return rate_; }

 private:
  bool has_baseline_ = false;
  double wall_s_ = 0, cpu_s_ = 0;
  double rate_ = 0;
};

}  // namespace jigsaw::paramsvc

#endif  // JIGSAW_PARAMSVC_CPU_RATE_H_
