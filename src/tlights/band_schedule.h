// TensorLights' priority policy as a pure schedule: which PS job is in which priority band, and
// when that changes. The tc agent (`jigsaw tlights`, plan.h / agent.h) and the packet simulator's
// host-NIC priorities (`jigsaw net --host-priority`, net/ps_jobs.h) both take their decisions from
// here, so they cannot disagree. Torch-free and tc-free: this library depends on core only.
//
// Policies (TensorLights' tools/tc_agent.py):
//   fifo    no prioritization: all traffic shares one class (no bands).
//   static  TLsOne: the bands of rotation 0, forever.
//   rotate  TLsRR: rotation r holds from r x interval to (r + 1) x interval after the start.
// Bands (TensorLights' same-model rule): with n jobs and kBands usable bands, per_band =
// ceil(n / kBands), the list [0..n-1] rotated left by the rotation count r, job i gets band
// list[i] / per_band (0 = served first). Everything that is not a PS job's fan-out (the default
// class) is in band kDefaultBand, below every job.
#ifndef JIGSAW_TLIGHTS_BAND_SCHEDULE_H_
#define JIGSAW_TLIGHTS_BAND_SCHEDULE_H_

#include <string>
#include <vector>

namespace jigsaw::tlights {

enum class Policy { kFifo, kStatic, kRotate };

// The one table of policies: parsing, help text and error messages read it.
struct PolicyEntry {
  Policy policy;
  const char* name;
  const char* meaning;
};
inline constexpr PolicyEntry kPolicies[] = {
    {Policy::kFifo, "fifo", "no prioritization: one shared class"},
    {Policy::kStatic, "static", "TensorLights' TLsOne: one fixed priority order"},
    {Policy::kRotate, "rotate", "TensorLights' TLsRR: the order rotates every interval"},
};

// Throws UsageError naming `option` and the accepted values.
Policy ParsePolicy(const std::string& text, const std::string& option = "--policy");
const char* PolicyName(Policy policy);
// "fifo, static or rotate".
std::string PolicyNames();

inline constexpr int kBands = 7;        // usable bands 0..6 for PS jobs
inline constexpr int kDefaultBand = 7;  // everything else

// Band of each of `jobs` jobs at rotation `rotation` (any integer; negative rotates right).
std::vector<int> PriorityBands(int jobs, int rotation);

class BandSchedule {
 public:
  // jobs >= 0; interval_s > 0 (read only with kRotate).
  BandSchedule(Policy policy, int jobs, double interval_s);

  Policy policy() const { return policy_; }
  int jobs() const { return jobs_; }
  // False for fifo: no bands at all.
  bool prioritized() const { return policy_ != Policy::kFifo; }
  // The rotation in force `elapsed_s` seconds after the start: 0 unless rotate, else
  // floor(elapsed_s / interval) (0 before the start).
  int RotationAt(double elapsed_s) const;
  // When `rotation` (>= 1) begins, in seconds after the start: rotation x interval; infinity
  // for fifo and static.
  double RotationStart(int rotation) const;
  // Each job's band at `rotation` (rotation 0 for static); empty for fifo.
  std::vector<int> Bands(int rotation) const;
  // The jobs whose band differs between rotation - 1 and `rotation` (none unless rotate).
  std::vector<int> ChangedJobs(int rotation) const;

 private:
  Policy policy_;
  int jobs_;
  double interval_s_;
};

}  // namespace jigsaw::tlights

#endif  // JIGSAW_TLIGHTS_BAND_SCHEDULE_H_
