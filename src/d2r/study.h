// A failure-recovery study on one topology: every scenario of a --fail spec is evaluated for D2R
// and the three baselines with the same traffic, policy and timing.
//
// Per scheme and scenario (flows are "affected" when their failure-free route uses a failed link,
// "recoverable" when a compliant path from their source survives the failures; metrics are over
// affected recoverable flows unless said otherwise):
//  * recovery: latest disruption event (packet loss other than a stranded packet's, release of a
//    held packet, last non-compliant packet leaving its old route) of any flow, measured from the
//    failure; reaction = recovery minus the detection delay; recovery_median over flows;
//    recovery_bounded: the same, where a hold is a disruption only when it has delayed a packet by
//    more than Timing::delay_bound (losses always are): both schemes measured the same way;
//  * lost: packets the scheme lost after detection (blackholed, looped, dropped for want of a
//    route or of a compliant continuation, buffer overflow); lost_unavoidable: on the failed link
//    when it failed, or sent onto it before detection (the same for every scheme); lost_stranded:
//    the part of `lost` that had no compliant path left from any switch they reached once news of
//    the failure could be there (packet_sim.h), so that lost - lost_stranded is what the scheme
//    could have saved; lost_stranded_early: those of them that had one at a switch they passed
//    before any signal from the failure could get there; lost_way_out_before_notice: of the rest
//    (lost with a way out), those that had it only before an in-band notice could be there;
//  * held: packets held while a switch computed (D2R);
//  * violations: flows with at least one packet delivered on a non-compliant path; stretch:
//    final route hops / failure-free route hops.
#ifndef JIGSAW_D2R_STUDY_H_
#define JIGSAW_D2R_STUDY_H_

#include <memory>
#include <string>
#include <vector>

#include "core/output.h"
#include "d2r/baselines.h"
#include "d2r/routing.h"
#include "d2r/scenario.h"
#include "d2r/timing.h"

namespace jigsaw::d2r {

struct StudyOptions {
  std::string topology;
  std::string policy = "shortest";
  std::string fail;
  std::string traffic = "10000pps";
  int64_t max_flows = 1000;
  uint64_t seed = 1;
  Timing timing;
  TopologyDefaults defaults;
};

struct SchemeResult {
  std::string scheme;
  net::Time recovery = 0;
  net::Time recovery_median = 0;
  net::Time recovery_bounded = 0;  // holds count only beyond Timing::delay_bound (packet_sim.h)
  int64_t lost = 0;
  int64_t lost_unavoidable = 0;
  int64_t lost_stranded = 0;        // of `lost`: packets with no compliant way out (packet_sim.h)
  int64_t lost_stranded_early = 0;  // of lost_stranded: a way out only before news could be there
  int64_t lost_way_out_before_notice = 0;  // of lost - lost_stranded: only before in-band notice
  int64_t dropped_no_continuation = 0;
  int64_t held = 0;
  int64_t peak_held = 0;  // most packets held at one switch at once
  int64_t buffer_overflow = 0;
  int64_t noncompliant_packets = 0;
  int64_t violating_flows = 0;
  int64_t not_restored = 0;
  double stretch_sum = 0;
  int64_t stretch_flows = 0;
  Json totals;
  Json per_switch;
};

struct ScenarioResult {
  Scenario scenario;
  int64_t flows_affected = 0;
  int64_t flows_recoverable = 0;
  int64_t flows_excluded = 0;         // from or to a failed node
  std::vector<SchemeResult> schemes;  // d2r, controller, link_state, lfa
};

class Study {
 public:
  // Reads the topology and builds policy, traffic and controller placement; throws InputError
  // (topology) or UsageError (options).
  explicit Study(const StudyOptions& options);
  // On a topology built in memory (options.topology is then only a label).
  Study(const StudyOptions& options, Topology topology);

  ScenarioResult Run(const Scenario& scenario, bool per_switch);

  const StudyOptions& options() const { return options_; }
  const Topology& topology() const { return topology_; }
  const Policy& policy() const { return *policy_; }
  const std::vector<Flow>& flows() const { return flows_; }
  const ControlPlacement& placement() const { return placement_; }
  const TrafficStats& traffic_stats() const { return traffic_stats_; }
  double pps() const { return pps_; }
  int num_states() const { return router_->Q(); }

 private:
  void Init();

  StudyOptions options_;
  Topology topology_;
  std::unique_ptr<Policy> policy_;
  std::unique_ptr<Policy> unconstrained_;
  std::unique_ptr<Router> router_;
  std::unique_ptr<Router> plain_;
  ControlPlacement placement_;
  std::vector<Flow> flows_;
  TrafficStats traffic_stats_;
  double pps_ = 0;
};

// Describes the study's inputs (topology, policy, traffic, timing) for summary.json.
Json StudyInputs(const Study& study);
// One scheme's result for one scenario as JSON (with per-switch detail when present).
Json SchemeJson(const SchemeResult& result, const Timing& timing);
// Aggregates over scenarios: per scheme median/p99/max recovery and reaction, losses, violation
// rate, mean stretch, D2R's speed-up over the controller.
Json AggregateJson(const std::vector<ScenarioResult>& results, const Timing& timing);
// scenarios.csv: one row per scenario and scheme.
std::string ScenarioCsv(const std::vector<ScenarioResult>& results, const Timing& timing);

}  // namespace jigsaw::d2r

#endif  // JIGSAW_D2R_STUDY_H_
