// `jigsaw d2r`: failure recovery on a GraphML topology for D2R (policy-compliant rerouting
// computed in the data plane) and three baselines (central controller, link-state IGP, LFA fast
// reroute); writes summary.json and scenarios.csv to --out. Wall-clock time goes to stderr only,
// so equal inputs and seed give byte-identical files.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/error.h"
#include "core/output.h"
#include "core/progress.h"
#include "d2r/run_summary.h"
#include "d2r/study.h"
#include "net/units.h"

namespace jigsaw {
namespace {

struct D2rOptions {
  d2r::StudyOptions study;
  std::string out = "out/d2r";
  bool quiet = false;
  // Durations and sizes as typed, parsed after CLI11 so errors name the option.
  std::string detection = "0us", switch_latency = "1us", pass = "1us";
  std::string controller_compute = "10ms", rule_install = "1ms";
  std::string lsa_generation = "10ms", flood_per_hop = "2ms", spf_delay = "50ms";
  std::string spf_base = "1ms", spf_per_node = "5us", fib_per_entry = "100us";
  std::string lfa_switchover = "0us";
  std::string delay_bound = "100us";
  std::string default_rate = "10Gbps", default_delay = "1ms";
  std::string packet_size = "1500B";
  std::string bfs = "level", replica_gap = "6.72ns", hold = "stale", control = "in-band";
};

void Duration(const std::string& option, const std::string& text, net::Time* time) {
  if (!net::ParseDuration(text, time) || *time < 0) {
    throw UsageError(option + " '" + text + "': expected a duration like 10ms, 5us or 0us");
  }
}

void Resolve(D2rOptions* o) {
  d2r::Timing& t = o->study.timing;
  Duration("--detection-delay", o->detection, &t.detection);
  Duration("--switch-latency", o->switch_latency, &t.switch_latency);
  Duration("--delay-bound", o->delay_bound, &t.delay_bound);
  Duration("--d2r-pass", o->pass, &t.pass);
  if (t.pass <= 0) throw UsageError("--d2r-pass must be positive");
  Duration("--controller-compute", o->controller_compute, &t.controller_compute);
  Duration("--rule-install", o->rule_install, &t.rule_install);
  Duration("--lsa-generation", o->lsa_generation, &t.lsa_generation);
  Duration("--flood-per-hop", o->flood_per_hop, &t.flood_per_hop);
  Duration("--spf-delay", o->spf_delay, &t.spf_delay);
  Duration("--spf-base", o->spf_base, &t.spf_base);
  Duration("--spf-per-node", o->spf_per_node, &t.spf_per_node);
  Duration("--fib-per-entry", o->fib_per_entry, &t.fib_per_entry);
  Duration("--lfa-switchover", o->lfa_switchover, &t.lfa_switchover);
  Duration("--default-link-delay", o->default_delay, &o->study.defaults.link_delay);
  if (!net::ParseRate(o->default_rate, &o->study.defaults.link_rate_bps)) {
    throw UsageError("--default-link-rate '" + o->default_rate + "': expected a rate like 10Gbps");
  }
  uint64_t bytes = 0;
  if (!net::ParseBytes(o->packet_size, &bytes) || bytes < 64 || bytes > 9000) {
    throw UsageError("--packet-size '" + o->packet_size + "': expected 64B..9000B");
  }
  t.packet_bytes = static_cast<uint32_t>(bytes);
  if (t.adjacency_per_pass < 1 || t.adjacency_per_pass > 64) {
    throw UsageError("--d2r-adjacency-per-pass must be 1..64");
  }
  if (o->bfs == "entry") {
    t.bfs = d2r::BfsMode::kEntry;
  } else if (o->bfs == "level") {
    t.bfs = d2r::BfsMode::kLevel;
  } else {
    throw UsageError("--d2r-bfs '" + o->bfs + "': expected entry or level");
  }
  Duration("--d2r-replica-gap", o->replica_gap, &t.replica_gap);
  if (o->control == "in-band" || o->control == "out-of-band") {
    t.in_band_control = o->control == "in-band";
  } else {
    throw UsageError("--control '" + o->control + "': expected in-band or out-of-band");
  }
  if (o->hold == "port") {
    t.hold = d2r::HoldRule::kPort;
  } else if (o->hold == "stale") {
    t.hold = d2r::HoldRule::kStale;
  } else {
    throw UsageError("--d2r-hold '" + o->hold + "': expected port or stale");
  }
  if (t.buffer_packets < 0) throw UsageError("--d2r-buffer must not be negative");
  if (t.backup_trees < 0 || t.backup_trees > 1024) {
    throw UsageError("--d2r-backup-trees must be 0..1024");
  }
  if (t.backup_radius < 0 || t.backup_radius > 16) {
    throw UsageError("--d2r-backup-radius must be 0..16");
  }
  if (t.ttl < 1 || t.ttl > 255) throw UsageError("--ttl must be 1..255");
  if (o->study.max_flows < 1) throw UsageError("--max-flows must be at least 1");
}

int RunD2r(D2rOptions options) {
  Resolve(&options);
  const auto wall_start = std::chrono::steady_clock::now();
  d2r::Study study(options.study);
  const std::vector<d2r::Scenario> scenarios =
      d2r::ParseFailures(options.study.fail, study.topology(), options.study.seed);
  MakeDirectories(options.out);

  Progress progress("d2r", !options.quiet);
  std::vector<d2r::ScenarioResult> results;
  const bool single = scenarios.size() == 1;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    results.push_back(study.Run(scenarios[i], single));
    if (progress.Due()) {
      progress.Report(
          static_cast<double>(i + 1), static_cast<double>(scenarios.size()),
          std::to_string(i + 1) + "/" + std::to_string(scenarios.size()) + " scenarios");
    }
  }
  const d2r::Timing& timing = options.study.timing;
  Json summary = d2r::StudyInputs(study);
  summary["fail"] = options.study.fail;
  summary["scenarios"] = scenarios.size();
  if (single) {
    const d2r::ScenarioResult& r = results.front();
    summary["failure"] = r.scenario.name;
    summary["flows_affected"] = r.flows_affected;
    summary["flows_recoverable"] = r.flows_recoverable;
    summary["flows_excluded_failed_endpoint"] = r.flows_excluded;
    Json schemes;
    for (const d2r::SchemeResult& scheme : r.schemes) {
      schemes[scheme.scheme] = d2r::SchemeJson(scheme, timing);
    }
    summary["schemes"] = schemes;
    if (r.schemes[0].recovery > 0) {
      summary["d2r_speedup_over_controller"] =
          RoundTo(static_cast<double>(r.schemes[1].recovery) / r.schemes[0].recovery, 1);
    }
    // On recovery_bounded (docs/d2r.md, "Metrics"); "inf" when D2R disrupted nothing.
    if (r.schemes[1].recovery_bounded > 0) {
      summary["d2r_speedup_over_controller_bounded"] =
          r.schemes[0].recovery_bounded > 0
              ? Json(RoundTo(static_cast<double>(r.schemes[1].recovery_bounded) /
                                 r.schemes[0].recovery_bounded,
                             1))
              : Json("inf");
    }
  } else {
    summary["schemes"] = d2r::AggregateJson(results, timing);
  }
  WriteJsonFile(options.out + "/summary.json", summary);
  WriteFileAtomically(options.out + "/scenarios.csv", d2r::ScenarioCsv(results, timing));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!options.quiet) d2r::PrintD2rRunSummary(summary, options.out, wall);
  return 0;
}

}  // namespace

void AddD2rCommand(CLI::App& app, CommandAction* action) {
  auto o = std::make_shared<D2rOptions>();
  CLI::App* command = app.add_subcommand(
      "d2r",
      "failure recovery: D2R data-plane rerouting vs controller, link-state IGP and LFA "
      "(GraphML topologies)");
  command->add_option("--topology", o->study.topology, "GraphML file (Topology Zoo format)")
      ->required();
  command->add_option("--policy", o->study.policy,
                      "shortest | waypoint:A[,B..] | avoid:node:X | avoid:link:X-Y | stretch:F, "
                      "joined by '+'; node X may be an id, a label or 'random'");
  command
      ->add_option("--fail", o->study.fail,
                   "link:X-Y[,X-Y..] | node:X | random:K | each-link[:N] | pairs:N")
      ->required();
  command->add_option("--traffic", o->study.traffic,
                      "per-flow rate: 10000pps, 10kpps or a bit rate like 100Mbps");
  command->add_option("--max-flows", o->study.max_flows,
                      "flows (ordered node pairs; a seeded sample when there are more)");
  command->add_option("--seed", o->study.seed, "seed for sampling and 'random' references");
  command->add_option("--out", o->out, "output folder (summary.json, scenarios.csv)")
      ->capture_default_str();
  command->add_flag("--quiet", o->quiet, "no progress or timing lines on stderr");
  command->add_option("--packet-size", o->packet_size, "data packet size (default 1500B)");
  command->add_option("--detection-delay", o->detection,
                      "failure to detection at the adjacent switches, all schemes (0us)");
  command->add_option("--switch-latency", o->switch_latency, "per-hop pipeline latency (1us)");
  command->add_option("--delay-bound", o->delay_bound,
                      "recovery_bounded: a hold counts as a disruption only when it delays a "
                      "packet by more than this in all (100us)");
  command->add_option("--ttl", o->study.timing.ttl, "IP time to live: hops a packet may take (64)");
  command->add_option("--d2r-pass", o->pass, "D2R: one recirculation pass (1us)");
  command->add_option("--d2r-adjacency-per-pass", o->study.timing.adjacency_per_pass,
                      "D2R: adjacency entries one BFS pass examines (1)");
  command->add_option("--d2r-bfs", o->bfs,
                      "D2R: BFS per pass: entry (adjacency entries, sequential) or level (one "
                      "level, probes replicated per entry) (level)");
  command->add_option("--control", o->control,
                      "controller: control channel in-band (over the surviving links, like D2R's "
                      "notices) or out-of-band (failure-free paths) (in-band)");
  command->add_option("--d2r-hold", o->hold,
                      "D2R: packets held while computing: port (next hop down or bounced back) or "
                      "stale (also any whose old route crosses a known failure) (stale)");
  command->add_option("--d2r-replica-gap", o->replica_gap,
                      "D2R level BFS: one probe replica on the recirculation port (6.72ns)");
  command->add_option("--d2r-buffer", o->study.timing.buffer_packets,
                      "D2R: packets a switch can hold while computing (4096)");
  command->add_option("--d2r-backup-trees", o->study.timing.backup_trees,
                      "D2R: single-failure trees each switch precomputes for links near it; 0: "
                      "none (16)");
  command->add_option("--d2r-backup-radius", o->study.timing.backup_radius,
                      "D2R: those links have an end within this many hops of the switch (1)");
  command->add_option("--d2r-waypoint-release", o->study.timing.early_waypoint_release,
                      "D2R: a held packet with a waypoint ahead leaves when the BFS reaches that "
                      "waypoint (its first hop is every destination's) (true)");
  command->add_option("--controller-compute", o->controller_compute,
                      "controller: route recomputation (10ms)");
  command->add_option("--rule-install", o->rule_install,
                      "controller: per rule, serial per switch (1ms)");
  command->add_option("--lsa-generation", o->lsa_generation, "IGP: detection to LSA (10ms)");
  command->add_option("--flood-per-hop", o->flood_per_hop, "IGP: LSA processing per hop (2ms)");
  command->add_option("--spf-delay", o->spf_delay, "IGP: initial SPF back-off (50ms)");
  command->add_option("--spf-base", o->spf_base, "IGP: SPF run, fixed part (1ms)");
  command->add_option("--spf-per-node", o->spf_per_node, "IGP: SPF run, per node (5us)");
  command->add_option("--fib-per-entry", o->fib_per_entry, "IGP: per changed FIB entry (100us)");
  command->add_option("--lfa-switchover", o->lfa_switchover,
                      "LFA: detection to backup next hop (0us)");
  command->add_option("--default-link-rate", o->default_rate,
                      "rate of links without LinkSpeedRaw (10Gbps)");
  command->add_option("--default-link-delay", o->default_delay,
                      "delay of links without coordinates when no link of the graph has them "
                      "(1ms; otherwise the graph's median)");
  command->callback([o, action] { *action = [o] { return RunD2r(*o); }; });
}

}  // namespace jigsaw
