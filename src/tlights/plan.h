// TensorLights' tc programme, as data: the exact `tc` argument vectors the agent runs.
//
// Policies (TensorLights/TensorLights tools/tc_agent.py; docs/tensorlights.md):
//   fifo    no prioritization: root HTB with one class at the link rate that all traffic shares
//           (the same shaped link as the other policies, one FIFO queue).
//   static  TensorLights' TLsOne: root HTB, class 1:1 at the link rate, a default class 1:10
//           (rate 100kbit, ceil = link, prio 7) for all other traffic, and one class per PS job
//           j, classid 1:(11+j), rate 100kbit, ceil = link, prio = band(j); a u32 filter sends
//           packets whose IP source port is PS j's port (the PS -> worker direction) to it.
//           With a tiny guaranteed rate and ceil = link, HTB lends the link in prio order:
//           effectively strict priority among PS jobs.
//   rotate  TLsRR: static, and every interval the priority order is rotated by one.
// Which job is in which band at which rotation is band_schedule.h's (shared with the packet
// simulator's host-NIC priorities). Class ids are written as TensorLights writes them ("1:11",
// "1:12", ...; tc reads the minor number as hex, consistently in every command). Deviations from
// TensorLights, both deliberate: rotation changes the classes' prio in place
// (`tc class change`) instead of deleting and re-installing the whole qdisc, which would drop
// every queued packet each interval; all filters share filter prio 1 (their matches are
// disjoint, so the order of lookup does not matter and rotation need not touch them).
#ifndef JIGSAW_TLIGHTS_PLAN_H_
#define JIGSAW_TLIGHTS_PLAN_H_

#include <string>
#include <vector>

#include "tlights/band_schedule.h"

namespace jigsaw::tlights {

struct TlightsConfig {
  Policy policy = Policy::kRotate;
  std::string dev;
  std::vector<int> ports;       // PS listening ports, in job order
  std::string rate = "10gbit";  // the link (NIC) rate, tc syntax
  double interval_s = 20;       // rotation interval
  std::string tc = "tc";        // the tc executable (looked up in PATH)
};

using TcCommand = std::vector<std::string>;  // argv, [0] = the tc executable

inline constexpr int kMaxJobs = 64;

// "20s", "500ms", "2m", or plain seconds ("1.5"); must be > 0.
double ParseDuration(const std::string& text, const std::string& what);
// "5001,5002": 1..kMaxJobs distinct ports in 1..65535.
std::vector<int> ParsePorts(const std::string& text);
// Checks dev, ports, rate and interval; throws UsageError.
void ValidateConfig(const TlightsConfig& config);
// The agent's band schedule: config.policy over its ports (in job order) every interval_s.
BandSchedule AgentSchedule(const TlightsConfig& config);

std::string JobClassId(int job);  // "1:11" for job 0

std::vector<TcCommand> InstallPlan(const TlightsConfig& config, int rotation);
// The class changes that move from rotation-1 to `rotation` (only classes whose band changes).
std::vector<TcCommand> RotatePlan(const TlightsConfig& config, int rotation);
// Deleting the root qdisc removes its classes and filters with it.
std::vector<TcCommand> RemovePlan(const TlightsConfig& config);

// Shell-readable rendering of a command, for logs and errors.
std::string FormatCommand(const TcCommand& command);

}  // namespace jigsaw::tlights

#endif  // JIGSAW_TLIGHTS_PLAN_H_
