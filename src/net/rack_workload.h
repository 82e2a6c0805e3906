// The PL2 experiment's traffic on a rack (docs/pl2.md): memcached-like RPCs and bulk incast into
// one hot host, and a training job's ring all-reduce competing with them.
//
// * RPCs: every host but `hot_host` is a memcached client of the server on `hot_host`, issuing GETs
//   as one open-loop Poisson stream (all clients together) at the rate that makes the responses
//   `rpc_load` of the server's link. Sizes follow the Facebook ETC pool (Atikoglu et al.,
//   SIGMETRICS'12, as parameterised by mutilate): key GEV(30.7984, 8.20449, 0.078688), value
//   generalized Pareto(0, 214.476, 0.348238) capped at 1 MB; request = 24-byte header + key,
//   response = 24-byte header + key + value. The server answers when the request is delivered.
//   An RPC's latency runs from issuing the request to delivery of the response's last byte.
// * Bulk incast: Poisson messages of log-uniform size in [bulk_min, bulk_max] from random clients
//   to `hot_host`, at the rate that makes all bytes offered to the hot host's link (requests +
//   bulk) `load` times its capacity; "400%" = 4.0.
// * ML (ml_pattern kRing): a ring all-reduce of `ml_bytes` (ResNet-50: 25.6 M fp32 parameters =
// 102.2 MB) over
//   `ml_hosts` hosts spread evenly over the rack from hot_host + 1 (so not the memcached server,
//   whose link is overloaded by design; the job's hosts are RPC clients and bulk senders too;
//   net/collective.h) or, with ml_with_server, from hot_host (one ring step then crosses the
//   overloaded link), run
//   back to back with `ml_compute` between iterations while arrivals last; an iteration's transfer
//   time is its all-reduce's duration.
// * ML (ml_pattern kParameterServer): the same hosts, the first of them a parameter server (PS) and
//   the other ml_hosts - 1 workers. The model is split into ml_chunks equal shards (the last takes
//   the remainder), as PS frameworks partition tensors. An iteration: every worker pushes every
//   shard's gradient (a message of the shard's size) to the PS at once (incast at the PS downlink);
//   as soon as the PS holds shard k from every worker it sends shard k's parameters to every worker
//   (outcast from its uplink). The iteration's transfer time runs from the pushes to the last
//   worker holding every shard.
// Arrivals stop at `duration`; the run ends when every RPC is answered or at duration + drain.
#ifndef JIGSAW_NET_RACK_WORKLOAD_H_
#define JIGSAW_NET_RACK_WORKLOAD_H_

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "net/network.h"

namespace jigsaw::net {

enum class MlPattern : uint8_t { kRing, kParameterServer };

struct RackWorkloadSpec {
  double load = 1.0;
  double rpc_load = 0.05;
  uint32_t hot_host = 0;
  Time duration = 10 * kMillisecond;
  Time drain = 5 * kMillisecond;
  uint64_t bulk_min = 64'000;
  uint64_t bulk_max = 1'000'000;
  uint64_t ml_bytes = 0;  // 0: no training job
  uint32_t ml_hosts = 8;
  bool ml_with_server = false;  // the ring starts at hot_host instead of hot_host + 1
  int ml_chunks = 1;            // ring: pipelined chunks; parameter server: model shards
  MlPattern ml_pattern = MlPattern::kRing;
  Time ml_compute = 0;
  uint64_t seed = 1;
};

struct RpcRecord {
  uint32_t client = 0;
  uint32_t request_bytes = 0;
  uint32_t response_bytes = 0;
  Time issued = 0;
  Time done = -1;
};

struct RackResult {
  std::vector<RpcRecord> rpcs;
  std::vector<Time> ml_iterations;  // all-reduce durations, in order
  uint64_t bulk_messages = 0;
  uint64_t bulk_bytes = 0;
  uint64_t bulk_delivered = 0;
};

// Facebook ETC sizes (bytes, >= 1).
uint32_t EtcKeyBytes(Rng& rng);
uint32_t EtcValueBytes(Rng& rng);

// Throws UsageError on a spec that does not fit the network (hosts, loads, sizes).
RackResult RunRackWorkload(Network* network, const RackWorkloadSpec& spec);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_RACK_WORKLOAD_H_
