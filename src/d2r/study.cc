#include "d2r/study.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>

#include "core/error.h"
#include "core/stats.h"
#include "d2r/d2r_scheme.h"
#include "d2r/graphml.h"
#include "d2r/packet_sim.h"

namespace jigsaw::d2r {
namespace {

double Us(net::Time t) { return RoundTo(net::ToMicroseconds(t), 3); }
double Ms(double ps) { return RoundTo(ps / 1e9, 4); }

// Most packets held at once at any one switch, and the packets beyond `buffer` (an estimate:
// arrivals are spread evenly over each hold record's arrival interval).
void BufferUse(const std::vector<HoldRecord>& holds, int64_t buffer, int64_t* peak,
               int64_t* overflow) {
  std::map<int, std::vector<const HoldRecord*>> by_switch;
  for (const HoldRecord& hold : holds) by_switch[hold.switch_index].push_back(&hold);
  *peak = 0;
  *overflow = 0;
  for (auto& [node, records] : by_switch) {
    int64_t most = 0;
    for (const HoldRecord* probe : records) {
      const net::Time t = probe->release;
      int64_t held = 0;
      for (const HoldRecord* r : records) {
        if (r->release < t || r->first_arrival > t) continue;
        if (r->last_arrival <= t || r->last_arrival == r->first_arrival) {
          held += r->packets;
        } else {
          held += static_cast<int64_t>(static_cast<double>(r->packets) * (t - r->first_arrival) /
                                       (r->last_arrival - r->first_arrival));
        }
      }
      most = std::max(most, held);
    }
    *peak = std::max(*peak, most);
    *overflow += std::max<int64_t>(0, most - buffer);
  }
}

net::Time Median(std::vector<net::Time> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[(values.size() - 1) / 2];
}

}  // namespace

Study::Study(const StudyOptions& options) : options_(options) {
  topology_ = ReadGraphml(options.topology, options.defaults);
  Init();
}

Study::Study(const StudyOptions& options, Topology topology)
    : options_(options), topology_(std::move(topology)) {
  Init();
}

void Study::Init() {
  const StudyOptions& options = options_;
  if (!ParseTrafficRate(options.traffic, options.timing.packet_bytes, &pps_)) {
    throw UsageError("--traffic '" + options.traffic +
                     "': expected a per-flow rate like 10000pps, 10kpps or 100Mbps");
  }
  if (pps_ > 1e8) throw UsageError("--traffic: at most 100 Mpps per flow");
  policy_ = std::make_unique<Policy>(Policy::Parse(options.policy, topology_, options.seed));
  unconstrained_ = std::make_unique<Policy>(topology_);
  router_ = std::make_unique<Router>(topology_, *policy_);
  plain_ = std::make_unique<Router>(topology_, *unconstrained_);
  placement_ = PlaceControllers(topology_, options.timing);
  flows_ = MakeFlows(*router_, *plain_, options.timing, pps_, options.max_flows, options.seed,
                     &traffic_stats_);
}

ScenarioResult Study::Run(const Scenario& scenario, bool per_switch) {
  router_->ForgetFailures();
  plain_->ForgetFailures();
  const Timing& timing = options_.timing;
  ScenarioContext context(topology_, timing, *router_, *plain_, scenario);
  D2rScheme d2r(context);
  ControllerScheme controller(context, placement_);
  LinkStateScheme link_state(context);
  LfaScheme lfa(context, link_state);
  Scheme* schemes[] = {&d2r, &controller, &link_state, &lfa};

  ScenarioResult result;
  result.scenario = scenario;
  enum Kind : uint8_t { kExcluded, kUnaffected, kUnrecoverable, kRecoverable };
  std::vector<Kind> kind(flows_.size(), kUnaffected);
  net::Time longest_path = 0;
  for (size_t f = 0; f < flows_.size(); ++f) {
    const Flow& flow = flows_[f];
    longest_path = std::max(longest_path, flow.path_time);
    if (context.node_failed[flow.src] || context.node_failed[flow.dst]) {
      kind[f] = kExcluded;
      ++result.flows_excluded;
      continue;
    }
    bool affected = false;
    for (size_t i = 1; i < flow.path.size() && !affected; ++i) {
      affected = context.link_failed[topology_.FindLink(flow.path[i - 1], flow.path[i])];
    }
    if (!affected) continue;
    ++result.flows_affected;
    const int32_t hops =
        router_->Distance(context.failed_set, flow.src, policy_->Start(flow.src), flow.dst);
    if (hops != kUnreachable && hops <= flow.hop_budget) {
      kind[f] = kRecoverable;
      ++result.flows_recoverable;
    } else {
      kind[f] = kUnrecoverable;
    }
  }
  net::Time last_change = 0;
  for (Scheme* scheme : schemes) last_change = std::max(last_change, scheme->LastChange());
  TrafficModel traffic;
  traffic.period = std::max<net::Time>(1, std::llround(1e12 / pps_));
  traffic.begin = -longest_path - net::kMicrosecond;
  traffic.end = last_change + 2 * traffic.period + net::kMicrosecond;

  for (Scheme* scheme : schemes) {
    SchemeResult r;
    r.scheme = scheme->name();
    std::vector<HoldRecord> holds;
    std::vector<net::Time> recoveries;
    for (size_t f = 0; f < flows_.size(); ++f) {
      // Unaffected flows keep their routes under every scheme: no switch on their path changes
      // their next hop (the routing rule only moves routes that used a failed link).
      if (kind[f] != kRecoverable) continue;
      const Flow& flow = flows_[f];
      const FlowOutcome o = SimulateFlow(flow, *scheme, context, traffic, &holds);
      r.lost += o.scheme_losses();
      r.lost_unavoidable += o.lost_on_wire + o.lost_before_detection;
      r.lost_stranded += o.lost_stranded;
      r.lost_stranded_early += o.lost_stranded_early;
      r.lost_way_out_before_notice += o.lost_way_out_before_notice;
      r.dropped_no_continuation += o.dropped_no_continuation;
      r.held += o.held;
      r.noncompliant_packets += o.noncompliant;
      r.violating_flows += o.noncompliant > 0;
      r.not_restored += !o.restored;
      if (o.restored) {
        r.stretch_sum += static_cast<double>(o.final_hops) / (flow.path.size() - 1);
        ++r.stretch_flows;
      }
      recoveries.push_back(o.recovery);
      r.recovery_bounded = std::max(r.recovery_bounded, o.recovery_bounded);
    }
    if (!recoveries.empty()) r.recovery = *std::max_element(recoveries.begin(), recoveries.end());
    r.recovery_median = Median(recoveries);
    BufferUse(holds, timing.buffer_packets, &r.peak_held, &r.buffer_overflow);
    r.lost += r.buffer_overflow;
    r.totals = scheme->Totals();
    if (per_switch) r.per_switch = scheme->PerSwitch();
    result.schemes.push_back(std::move(r));
  }
  return result;
}

Json StudyInputs(const Study& study) {
  const Topology& t = study.topology();
  const Timing& timing = study.options().timing;
  Json json;
  json["topology"] = study.options().topology;
  Json network;
  network["nodes"] = t.num_nodes();
  network["links"] = t.num_links();
  network["components"] = t.num_components;
  network["parallel_edges_merged"] = t.parallel_edges_merged;
  network["self_loops_dropped"] = t.self_loops_dropped;
  network["links_without_coordinates"] = t.links_without_coordinates;
  network["links_without_rate"] = t.links_without_rate;
  network["input_directed"] = t.input_directed;
  json["network"] = network;
  json["policy"] = study.policy().Describe(t);
  json["automaton_states"] = study.num_states();
  Json traffic;
  traffic["rate"] = study.options().traffic;
  traffic["packets_per_second_per_flow"] = RoundTo(study.pps(), 3);
  traffic["packet_bytes"] = timing.packet_bytes;
  traffic["flows"] = study.flows().size();
  traffic["eligible_pairs"] = study.traffic_stats().eligible;
  traffic["pairs_in_different_components"] = study.traffic_stats().disconnected;
  traffic["pairs_without_compliant_path"] = study.traffic_stats().not_compliant;
  json["traffic"] = traffic;
  Json constants;
  constants["detection_us"] = Us(timing.detection);
  constants["switch_latency_us"] = Us(timing.switch_latency);
  constants["d2r_pass_us"] = Us(timing.pass);
  constants["d2r_bfs"] = timing.bfs == BfsMode::kLevel ? "level" : "entry";
  constants["d2r_adjacency_per_pass"] = timing.adjacency_per_pass;
  constants["d2r_hold"] = timing.hold == HoldRule::kStale ? "stale" : "port";
  constants["d2r_replica_gap_ns"] = RoundTo(timing.replica_gap / 1000.0, 3);
  constants["d2r_buffer_packets"] = timing.buffer_packets;
  constants["d2r_backup_trees"] = timing.backup_trees;
  constants["d2r_backup_radius"] = timing.backup_radius;
  constants["d2r_waypoint_release"] = timing.early_waypoint_release;
  constants["controller_compute_us"] = Us(timing.controller_compute);
  constants["controller_rule_install_us"] = Us(timing.rule_install);
  constants["controller_control"] = timing.in_band_control ? "in-band" : "out-of-band";
  constants["ls_lsa_generation_us"] = Us(timing.lsa_generation);
  constants["ls_flood_per_hop_us"] = Us(timing.flood_per_hop);
  constants["ls_spf_delay_us"] = Us(timing.spf_delay);
  constants["ls_spf_base_us"] = Us(timing.spf_base);
  constants["ls_spf_per_node_us"] = Us(timing.spf_per_node);
  constants["ls_fib_per_entry_us"] = Us(timing.fib_per_entry);
  constants["lfa_switchover_us"] = Us(timing.lfa_switchover);
  constants["ttl"] = timing.ttl;
  constants["delay_bound_us"] = Us(timing.delay_bound);
  json["timing"] = constants;
  const RegisterState registers = D2rRegisters(t, study.num_states(), timing);
  Json state;
  state["adjacency_bits"] = registers.adjacency_bits;
  state["link_state_bits"] = registers.link_state_bits;
  state["tree_bits"] = registers.tree_bits;
  state["generation_bits"] = registers.generation_bits;
  state["queue_bits"] = registers.queue_bits;
  state["label_bits"] = registers.label_bits;
  state["backup_trees"] = registers.backup_trees;
  state["backup_bits"] = registers.backup_bits;
  state["total_register_bits"] = registers.total_bits();
  state["total_register_kib"] = RoundTo(registers.total_bits() / 8.0 / 1024.0, 2);
  state["policy_table_entries"] = registers.policy_entries;
  if (timing.bfs == BfsMode::kLevel) {
    state["multicast_groups"] = registers.multicast_groups;
    state["multicast_replicas"] = registers.multicast_replicas;
  }
  json["d2r_state_per_switch"] = state;
  return json;
}

Json SchemeJson(const SchemeResult& r, const Timing& timing) {
  Json json;
  json["recovery_us"] = Us(r.recovery);
  json["reaction_us"] = Us(std::max<net::Time>(0, r.recovery - timing.detection));
  json["recovery_median_us"] = Us(r.recovery_median);
  json["recovery_bounded_us"] = Us(r.recovery_bounded);
  json["packets_lost"] = r.lost;
  json["packets_lost_unavoidable"] = r.lost_unavoidable;
  json["packets_lost_stranded"] = r.lost_stranded;
  json["packets_lost_stranded_before_news"] = r.lost_stranded_early;
  json["packets_lost_way_out_before_notice"] = r.lost_way_out_before_notice;
  json["packets_dropped_no_compliant_continuation"] = r.dropped_no_continuation;
  json["packets_held"] = r.held;
  json["peak_held_per_switch"] = r.peak_held;
  json["buffer_overflow_drops"] = r.buffer_overflow;
  json["flows_violating_policy"] = r.violating_flows;
  json["packets_noncompliant"] = r.noncompliant_packets;
  json["flows_not_restored"] = r.not_restored;
  json["mean_stretch"] = r.stretch_flows ? RoundTo(r.stretch_sum / r.stretch_flows, 4) : 1.0;
  json["work"] = r.totals;
  if (!r.per_switch.is_null()) json["per_switch"] = r.per_switch;
  return json;
}

Json AggregateJson(const std::vector<ScenarioResult>& results, const Timing& timing) {
  Json schemes;
  if (results.empty()) return schemes;
  std::vector<double> speedup;
  for (size_t s = 0; s < results.front().schemes.size(); ++s) {
    std::vector<double> recovery, recovery_bounded, reaction, lost;
    int64_t lost_total = 0, unavoidable = 0, stranded = 0, stranded_early = 0, no_continuation = 0;
    int64_t before_notice = 0;
    int64_t held = 0;
    int64_t peak = 0, overflow = 0, violating = 0, noncompliant = 0, not_restored = 0;
    int64_t recoverable = 0, stretch_flows = 0;
    double stretch_sum = 0;
    Json work;
    for (const ScenarioResult& scenario : results) {
      const SchemeResult& r = scenario.schemes[s];
      for (auto& [key, value] : r.totals.items()) {
        if (!value.is_number()) continue;
        if (!work.contains(key)) {
          work[key] = value;
        } else if (key.rfind("max_", 0) == 0 || key == "register_bits_per_switch") {
          work[key] = std::max(work[key].get<double>(), value.get<double>());
        } else if (key != "lfa_coverage") {
          work[key] = work[key].get<double>() + value.get<double>();
        }
      }
      if (scenario.flows_recoverable > 0) {
        recovery.push_back(static_cast<double>(r.recovery));
        recovery_bounded.push_back(static_cast<double>(r.recovery_bounded));
        reaction.push_back(
            static_cast<double>(std::max<net::Time>(0, r.recovery - timing.detection)));
        lost.push_back(static_cast<double>(r.lost));
      }
      lost_total += r.lost;
      unavoidable += r.lost_unavoidable;
      stranded += r.lost_stranded;
      stranded_early += r.lost_stranded_early;
      before_notice += r.lost_way_out_before_notice;
      no_continuation += r.dropped_no_continuation;
      held += r.held;
      peak = std::max(peak, r.peak_held);
      overflow += r.buffer_overflow;
      violating += r.violating_flows;
      noncompliant += r.noncompliant_packets;
      not_restored += r.not_restored;
      recoverable += scenario.flows_recoverable;
      stretch_sum += r.stretch_sum;
      stretch_flows += r.stretch_flows;
    }
    if (work.contains("repairs_needed")) {
      const double needed = work["repairs_needed"].get<double>();
      work["lfa_coverage"] =
          needed > 0 ? RoundTo(work["repairs_with_lfa"].get<double>() / needed, 4) : 1.0;
    }
    Json json;
    json["scenarios_with_recoverable_flows"] = recovery.size();
    json["recovery_ms"] = {{"median", Ms(Percentile(recovery, 50))},
                           {"p99", Ms(Percentile(recovery, 99))},
                           {"max", Ms(Max(recovery))}};
    json["recovery_bounded_ms"] = {{"median", Ms(Percentile(recovery_bounded, 50))},
                                   {"p99", Ms(Percentile(recovery_bounded, 99))},
                                   {"max", Ms(Max(recovery_bounded))}};
    json["reaction_ms"] = {{"median", Ms(Percentile(reaction, 50))},
                           {"p99", Ms(Percentile(reaction, 99))},
                           {"max", Ms(Max(reaction))}};
    json["packets_lost"] = {{"total", lost_total},
                            {"per_failure_median", RoundTo(Percentile(lost, 50), 1)},
                            {"per_failure_p99", RoundTo(Percentile(lost, 99), 1)},
                            {"per_failure_max", RoundTo(Max(lost), 1)}};
    json["packets_lost_unavoidable"] = unavoidable;
    json["packets_lost_stranded"] = stranded;
    json["packets_lost_stranded_before_news"] = stranded_early;
    json["packets_lost_way_out_before_notice"] = before_notice;
    json["packets_dropped_no_compliant_continuation"] = no_continuation;
    json["packets_held"] = held;
    json["peak_held_per_switch"] = peak;
    json["buffer_overflow_drops"] = overflow;
    json["flows_recoverable"] = recoverable;
    json["flows_violating_policy"] = violating;
    json["violation_rate"] =
        recoverable ? RoundTo(static_cast<double>(violating) / recoverable, 6) : 0.0;
    json["packets_noncompliant"] = noncompliant;
    json["flows_not_restored"] = not_restored;
    json["mean_stretch"] = stretch_flows ? RoundTo(stretch_sum / stretch_flows, 4) : 1.0;
    json["work"] = work;
    schemes[results.front().schemes[s].scheme] = json;
  }
  // Controller recovery / D2R recovery per scenario (scheme 0 is D2R, 1 the controller).
  for (const ScenarioResult& scenario : results) {
    if (scenario.flows_recoverable == 0 || scenario.schemes[0].recovery <= 0) continue;
    speedup.push_back(static_cast<double>(scenario.schemes[1].recovery) /
                      static_cast<double>(scenario.schemes[0].recovery));
  }
  if (!speedup.empty()) {
    schemes["d2r_speedup_over_controller"] = {
        {"median", RoundTo(Percentile(speedup, 50), 1)},
        {"p1", RoundTo(Percentile(speedup, 1), 1)},
        {"min", RoundTo(*std::min_element(speedup.begin(), speedup.end()), 1)}};
  }
  // The same on recovery_bounded, over the scenarios in which the controller disrupted a flow; a
  // scenario where D2R disrupted none (beyond the delay bound) has an unbounded speed-up.
  std::vector<double> bounded;
  int64_t undisrupted = 0;
  for (const ScenarioResult& scenario : results) {
    if (scenario.flows_recoverable == 0 || scenario.schemes[1].recovery_bounded <= 0) continue;
    const net::Time d2r = scenario.schemes[0].recovery_bounded;
    undisrupted += d2r <= 0;
    bounded.push_back(d2r <= 0 ? std::numeric_limits<double>::infinity()
                               : static_cast<double>(scenario.schemes[1].recovery_bounded) /
                                     static_cast<double>(d2r));
  }
  if (!bounded.empty()) {
    // Lower nearest rank (interpolating towards an unbounded value would not be a number).
    std::sort(bounded.begin(), bounded.end());
    auto rank = [&](double p) {
      const double x = bounded[static_cast<size_t>(p / 100.0 * (bounded.size() - 1))];
      return std::isinf(x) ? Json("inf") : Json(RoundTo(x, 1));
    };
    schemes["d2r_speedup_over_controller_bounded"] = {
        {"scenarios", bounded.size()},
        {"d2r_undisrupted", undisrupted},
        {"below_100x",
         std::count_if(bounded.begin(), bounded.end(), [](double x) { return x < 100; })},
        {"median", rank(50)},
        {"p1", rank(1)},
        {"min", rank(0)}};
  }
  return schemes;
}

std::string ScenarioCsv(const std::vector<ScenarioResult>& results, const Timing& timing) {
  std::ostringstream csv;
  csv << "scenario,scheme,flows_affected,flows_recoverable,recovery_us,reaction_us,"
         "recovery_median_us,lost,lost_unavoidable,lost_stranded,lost_stranded_before_news,"
         "dropped_no_continuation,held,peak_held,buffer_overflow,violating_flows,noncompliant_"
         "packets,not_restored,"
         "stretch_sum,stretch_flows,work,recovery_bounded_us,lost_way_out_before_notice\n";
  for (const ScenarioResult& scenario : results) {
    for (const SchemeResult& r : scenario.schemes) {
      double work = 0;
      for (const char* key :
           {"recirculations", "rules_installed", "fib_updates", "repairs_with_lfa"}) {
        if (r.totals.contains(key)) work = r.totals[key].get<double>();
      }
      std::string name = scenario.scenario.name;
      std::replace(name.begin(), name.end(), ',', ';');
      std::replace(name.begin(), name.end(), '"', '\'');
      csv << '"' << name << "\"," << r.scheme << ',' << scenario.flows_affected << ','
          << scenario.flows_recoverable << ',' << FormatFixed(net::ToMicroseconds(r.recovery), 3)
          << ','
          << FormatFixed(net::ToMicroseconds(std::max<net::Time>(0, r.recovery - timing.detection)),
                         3)
          << ',' << FormatFixed(net::ToMicroseconds(r.recovery_median), 3) << ',' << r.lost << ','
          << r.lost_unavoidable << ',' << r.lost_stranded << ',' << r.lost_stranded_early << ','
          << r.dropped_no_continuation << ',' << r.held << ',' << r.peak_held << ','
          << r.buffer_overflow << ',' << r.violating_flows << ',' << r.noncompliant_packets << ','
          << r.not_restored << ',' << FormatFixed(r.stretch_sum, 4) << ',' << r.stretch_flows << ','
          << FormatFixed(work, 0) << ',' << FormatFixed(net::ToMicroseconds(r.recovery_bounded), 3)
          << ',' << r.lost_way_out_before_notice << '\n';
    }
  }
  return csv.str();
}

}  // namespace jigsaw::d2r
