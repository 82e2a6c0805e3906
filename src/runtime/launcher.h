// The local launcher of `jigsaw train --workers N`: starts N copies of this process's own command
// line with "--rank k --world N --rendezvous-file F" appended (F a c10d::FileStore in a private
// temporary folder, removed at the end: the rendezvous of a local job listens on no network
// interface; the worker side takes the last value of repeated options) and waits for all.
//
// Returns 0 when every worker exits 0. Otherwise prints one line naming every failed worker and
// how it failed ("worker 1 was killed by signal 9 (Killed)") and returns 1; workers still running
// `grace_s` seconds after the first failure are SIGKILLed, so the launcher never hangs. The
// workers die with the launcher (PR_SET_PDEATHSIG): killing it, even with SIGKILL, never leaves
// them training on their own. Torch-free.
#ifndef JIGSAW_RUNTIME_LAUNCHER_H_
#define JIGSAW_RUNTIME_LAUNCHER_H_

namespace jigsaw {

int LaunchLocalWorkers(int workers, double grace_s);

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_LAUNCHER_H_
