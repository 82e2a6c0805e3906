// The interference model of a guest placed in the capacity a host's frozen SPB phase frees
// (docs/jigsaw.md, "Guests in freed capacity").
//
// A host in a frozen phase computes c of a full-backprop iteration per iteration and, alone, runs
// S = 1 / (its relative iteration time) iterations per full-backprop iteration time. A guest (at
// full backprop) shares its GPU. Over a round, a share tau of the time both jobs' kernels run
// together, at the rates Gavel measured for the pair (x_h for the host, x_g for the guest, both
// as fractions of their isolated speeds: the co-location table divided by the same table's
// isolated throughputs); for the rest of the time the host waits (its phase needs only so much
// of the GPU) and the guest runs alone:
//   host speed  = tau x x_h x S            (iterations per full-backprop iteration time)
//   guest speed = (1 - tau) + tau x x_g
// tau = 1 runs both flat out (Gavel's pair applied to the host's shorter iterations); the host
// may instead keep only its full-backprop pace (host speed 1), tau_min = min(1, 1 / (x_h S)),
// leaving the freed share (1 - tau_min) to the guest alone: the interference the guest suffers,
// (1 - x_g), is then scaled by the share tau_min of the time the host still computes. Normalised
// goodput is linear in tau, so the better end is taken: tau = 1 when e x_h S + x_g > 1 (e the
// host phase's statistical efficiency), tau_min otherwise.
// Variants for sensitivity: `kTimeSlice` replaces Gavel's pair by plain time slicing (x_h = x_g
// = 0.5: sharing a GPU gains nothing), and `interference_scale` k multiplies each job's measured
// slowdown: x' = clamp(1 - k (1 - x), 0, 1).
#ifndef JIGSAW_CLUSTER_FREED_CAPACITY_H_
#define JIGSAW_CLUSTER_FREED_CAPACITY_H_

#include <string>
#include <utility>
#include <vector>

namespace jigsaw {

enum class FreedInterference { kGavel, kTimeSlice };

// The enum's table: names for parsing, help text and error lists.
const std::vector<std::pair<FreedInterference, std::string>>& FreedInterferenceNames();
// Throws UsageError naming `option` and the valid names.
FreedInterference ParseFreedInterference(const std::string& option, const std::string& text);
std::string FreedInterferenceName(FreedInterference value);

struct FreedCapacityModel {
  FreedInterference interference = FreedInterference::kGavel;
  double interference_scale = 1.0;  // k above, in [0, 10]
  // Throws UsageError naming the option of a field out of range.
  void Validate() const;
};

struct FreedCapacityRates {
  double host_speed = 0;    // relative to the host's isolated full-backprop speed
  double guest_speed = 0;   // relative to the guest's isolated speed
  double co_run_share = 0;  // tau
};

// Rates of a host in a frozen phase (alone speed `host_alone_speed` S >= 1, statistical
// efficiency `host_efficiency` e) and a guest whose measured pair rates are x_h, x_g (in (0, 1]).
FreedCapacityRates FreedCapacityCoRun(double host_alone_speed, double host_efficiency, double x_h,
                                      double x_g, const FreedCapacityModel& model);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_FREED_CAPACITY_H_
