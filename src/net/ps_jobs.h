// Synchronous parameter-server training jobs on the packet simulator, with TensorLights' host-NIC
// priorities at the PS hosts (`jigsaw net --ps-jobs`; docs/tensorlights.md "Simulated").
//
// Job j's parameter server runs on host j mod ps_hosts; its W workers on the hosts PsPlacement
// picks (never the PS host). Like `jigsaw ps`: at time 0 the PS sends version 0 of the model
// (model_bytes) to every worker; a worker that holds version v < K computes (compute time, or a
// drawn sample) and pushes its gradient (model_bytes) to the PS; once all W pushes of version v
// arrived the PS sends version v + 1 to every worker at once. The job ends when its last worker
// holds version K. Every message is one queue pair (flow) of the Network.
//
// Host-NIC priorities: with policy static or rotate, every PS host's NIC gets the classes the
// real agent installs (nic_scheduler.h): class 0 = everything else (band tlights::kDefaultBand),
// class 1 + i = the i-th job whose PS is on that host (in job order), in the band
// tlights::BandSchedule gives it, the same schedule `jigsaw tlights` applies: rotation r from
// r x interval after time 0. A rotation takes effect for every packet the NIC picks after that
// instant. With `downlink` (an extension beyond TensorLights) a push's switch traffic class is
// 1 + its job's band when the push starts, so switches serve the pushes into a PS host in band
// order too.
#ifndef JIGSAW_NET_PS_JOBS_H_
#define JIGSAW_NET_PS_JOBS_H_

#include <cstdint>
#include <vector>

#include "net/network.h"
#include "net/ps_options.h"

namespace jigsaw::net {

struct PsJobResult {
  uint32_t ps_host = 0;
  std::vector<uint32_t> worker_hosts;
  // receipts[v][w]: when worker w held version v (the last byte arrived); -1 if never.
  std::vector<std::vector<Time>> receipts;
  Time finished = -1;  // the last worker held version K
};

struct PsHostResult {
  uint32_t host = 0;
  std::vector<int> jobs;  // jobs whose PS runs here, in class order
  uint64_t rate_bps = 0;
  uint64_t tx_bytes = 0;  // on the wire, headers and ACKs included
  uint64_t rx_bytes = 0;
};

struct BandChange {
  Time at = 0;
  uint32_t host = 0;
  int rotation = 0;
  std::vector<int> bands;  // of the host's jobs, in PsHostResult::jobs order
};

struct PsJobsResult {
  std::vector<PsJobResult> jobs;
  std::vector<PsHostResult> ps_hosts;
  std::vector<BandChange> schedule;  // the bands at time 0, then every change
  Time makespan = -1;                // the last job's end (-1 if one did not finish)
  uint64_t pushed_bytes = 0;         // delivered payload of pushes and of model sends
  uint64_t pulled_bytes = 0;
};

// The hosts of every job (placement); throws UsageError naming --ps-hosts / --ps-workers if the
// topology's `hosts` cannot hold them.
std::vector<PsJobResult> PlacePsJobs(const PsJobsSpec& spec, uint32_t hosts);

// Runs the jobs on `network` (it must have no other observer) until they finish or `stop`.
PsJobsResult RunPsJobs(Network* network, const PsJobsSpec& spec, Time stop = kNever);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_PS_JOBS_H_
