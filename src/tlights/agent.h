// The TensorLights agent (`jigsaw tlights`): programs the PS host's NIC with tc and keeps it so
// until told to stop, then removes everything it installed. Torch-free.
//
// RunTlightsAgent blocks SIGINT, SIGTERM and SIGHUP first (so a signal that arrives during the
// install is held, not lost), runs InstallPlan (plan.h) and prints one "installed" line to
// stderr. It then waits for those signals with sigtimedwait; with policy rotate it wakes every
// interval and applies RotatePlan. A signal, or the end of `duration_s` when it is > 0, ends the
// wait; the agent then runs RemovePlan and returns 0. If an install or rotation command fails,
// the agent removes what it had installed and throws std::runtime_error with tc's own error
// text (RunChecked); if the removal itself fails it throws too. The root qdisc is added (never
// replaced), so an interface that already has a root qdisc is refused, not overwritten.
// SIGKILL cannot be handled: `tc qdisc del dev DEV root` undoes a killed agent's setup.
#ifndef JIGSAW_TLIGHTS_AGENT_H_
#define JIGSAW_TLIGHTS_AGENT_H_

#include "tlights/plan.h"

namespace jigsaw::tlights {

int RunTlightsAgent(const TlightsConfig& config, double duration_s, bool quiet);

}  // namespace jigsaw::tlights

#endif  // JIGSAW_TLIGHTS_AGENT_H_
