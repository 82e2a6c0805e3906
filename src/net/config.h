// Parameters of the packet simulator. Defaults follow the HPCC ns-3 fork as configured for the RoCE
// congestion-control study (../shared/research/network.md §1.1, §2.2): 1000-byte payloads, 32 MB
// shared switch buffers with dynamic PFC thresholds, RED-style ECN with rate-scaled Kmin/Kmax,
// per-packet ACKs, a BDP window that scales with the sending rate, and the parameter values below.
#ifndef JIGSAW_NET_CONFIG_H_
#define JIGSAW_NET_CONFIG_H_

#include <cstdint>
#include <string_view>

#include "net/enum_table.h"
#include "net/units.h"

namespace jigsaw::net {

// `kNone` = line rate + window + PFC, the study's baseline (CC_MODE 12 in the fork).
enum class CcMode : uint8_t { kNone, kDcqcn, kDctcp, kTimely, kHpcc, kReno };
inline constexpr EnumName<CcMode> kCcModes[] = {
    {CcMode::kNone, "none", "line rate + PFC"},
    {CcMode::kNone, "pfc", nullptr, /*alias=*/true},
    {CcMode::kDcqcn, "dcqcn"},
    {CcMode::kDctcp, "dctcp"},
    {CcMode::kTimely, "timely"},
    {CcMode::kHpcc, "hpcc"},
    {CcMode::kReno, "reno", "TCP-like AIMD"},
};

// kCcModes' lookups.
bool ParseCcMode(std::string_view text, CcMode* mode);
const char* CcModeName(CcMode mode);

struct DcqcnParams {
  double g = 1.0 / 256;
  Time alpha_interval = 1 * kMicrosecond;
  Time decrease_interval = 4 * kMicrosecond;
  Time increase_timer = 900 * kMicrosecond;
  int fast_recovery_stages = 1;
  double rate_ai_bps = 50e6;
  double rate_hai_bps = 100e6;
  double rate_on_first_cnp = 1.0;
  bool clamp_target = false;
};

struct DctcpParams {
  double g = 1.0 / 256;
  double rate_ai_bps = 1e9;
};

struct TimelyParams {
  double alpha = 0.875;
  double beta = 0.8;
  Time t_low = 50 * kMicrosecond;
  Time t_high = 500 * kMicrosecond;
  Time min_rtt = 20 * kMicrosecond;
  double rate_ai_bps = 50e6;
  double rate_hai_bps = 100e6;
};

struct HpccParams {
  double target_utilization = 0.95;
  int max_stage = 0;
  double rate_ai_bps = 50e6;
  int int_header_bytes = 42;  // carried by every data packet when HPCC is on
};

// Where the queue pairs' ACKs and NACKs travel. kData (the study's ACK_HIGH_PRIO 0): in the data
// queue of every switch port, charged to the switch buffer, paused by PFC and queued behind data;
// the NIC still sends them before its data, but not while its port is paused. kHigh
// (ACK_HIGH_PRIO 1): a strict-priority control queue, never paused and outside the buffer.
enum class AckPriority : uint8_t { kData, kHigh };
inline constexpr EnumName<AckPriority> kAckPriorities[] = {
    {AckPriority::kData, "data",
     "the study's ACK_HIGH_PRIO 0, default: behind data, paused by PFC"},
    {AckPriority::kHigh, "high", "strict priority, never paused"},
};

bool ParseAckPriority(std::string_view text, AckPriority* priority);
const char* AckPriorityName(AckPriority priority);

// How a host NIC port picks among its queue pairs that may send (within one NicScheduler class
// when one is installed). kRoundRobin: one packet each in turn, a per-packet fair share (the
// default). kFifo: the oldest queue pair (earliest start) that may send goes first, as one Linux
// pfifo qdisc fed by sockets that hand over whole messages at once; a queue pair whose window or
// rate limiter is closed lends the port to the next oldest.
enum class NicOrder : uint8_t { kRoundRobin, kFifo };
inline constexpr EnumName<NicOrder> kNicOrders[] = {
    {NicOrder::kRoundRobin, "rr", "per-packet round-robin, default"},
    {NicOrder::kFifo, "fifo", "oldest first, as one pfifo qdisc"},
};

bool ParseNicOrder(std::string_view text, NicOrder* order);
const char* NicOrderName(NicOrder order);

// Which host transport runs: the built-in RDMA queue pairs (with `cc`), or one of transport.h.
enum class TransportKind : uint8_t { kRdma, kHoma, kPl2 };
inline constexpr EnumName<TransportKind> kTransportKinds[] = {
    {TransportKind::kRdma, "rdma"},
    {TransportKind::kHoma, "homa"},
    {TransportKind::kPl2, "pl2"},
};

struct HomaParams {
  uint64_t rtt_bytes = 0;      // unscheduled prefix and per-message grant window; 0 = one BDP
  int unscheduled_levels = 4;  // priorities 0..levels-1 for unscheduled bytes, the rest scheduled
  int overcommit = 4;          // messages a receiver grants to at once
  // Of those, at most this many from one sender (0: no limit; Linux HomaModule's
  // max_rpcs_per_peer defaults to 1).
  int max_per_sender = 0;
  Time resend_timeout = 200 * kMicrosecond;
};

struct Pl2Params {
  uint32_t burst_packets = 16;        // most packets one reservation covers
  int max_requests_per_host = 8;      // reservations a host may hold (asked or granted, not sent)
  uint32_t requests_per_message = 3;  // of which one message may hold
  Time bulk_horizon = 8 * kMicrosecond;    // multi-burst messages book at most this far ahead
  Time small_horizon = 40 * kMicrosecond;  // one-burst messages book at most this far ahead
  // true (the default): per destination, a host asks only for its oldest waiting bulk message
  // (messages to one receiver complete in start order, senders interleave by ticket); false
  // (`--pl2-bulk-order shared`, the original sender): for every waiting bulk message (rejected ones
  // retry at their ticket, so an overloaded receiver's messages share it per burst).
  bool bulk_oldest_first = true;
};

struct NetConfig {
  TransportKind transport = TransportKind::kRdma;
  CcMode cc = CcMode::kNone;
  uint32_t payload_bytes = 1000;
  uint32_t header_bytes = 48;
  uint32_t ack_bytes = 64;
  uint32_t pfc_frame_bytes = 64;
  AckPriority ack_priority = AckPriority::kData;  // queue pairs only; transports keep their own
  NicOrder nic_order = NicOrder::kRoundRobin;     // queue pairs only
  bool window = true;                             // cap in-flight bytes at the path BDP
  bool var_window = true;                         // the cap scales with rate / line rate
  double min_rate_bps = 100e6;
  Time retransmit_timeout = 1 * kMillisecond;

  bool pfc = true;
  bool ecn = true;
  uint64_t buffer_bytes = 32ull << 20;  // per switch
  uint32_t reserve_bytes = 4096;        // per ingress port
  uint32_t resume_offset_bytes = 3072;
  int pfc_shift = 3;      // threshold = free shared buffer >> shift (less for faster ports)
  int headroom_bdps = 3;  // per-port headroom in one-way BDPs
  // Without PFC: also drop a data packet when its egress queue would exceed the free shared
  // buffer >> egress_shift (a lossy egress dynamic threshold, alpha = 2^-shift); -1: off (only
  // the ingress accounting above).
  int egress_shift = -1;
  double ecn_pmax = 0.2;

  uint64_t seed = 1;
  bool progress = false;
  // The expected end in simulated time (net/progress_estimate.h): the progress line shows the
  // share of it simulated and an ETA; 0: unknown (no share).
  Time progress_end = 0;

  DcqcnParams dcqcn;
  DctcpParams dctcp;
  TimelyParams timely;
  HpccParams hpcc;
  HomaParams homa;
  Pl2Params pl2;

  uint32_t data_packet_bytes(uint32_t payload) const {
    return payload + header_bytes + (cc == CcMode::kHpcc ? hpcc.int_header_bytes : 0);
  }
};

// Sets one congestion-control parameter from the command line: "dcqcn.rate_ai" = "50Mbps" etc.
// (names in CcParamNames()); durations and rates go through the units parser. Throws UsageError
// naming the parameter and what was expected.
void SetCcParam(std::string_view name, std::string_view value, NetConfig* config);
const char* CcParamNames();

// ECN thresholds by port rate (the study's KMIN_MAP / KMAX_MAP, in bytes): 25G 100/400 KB,
// 40G 200/800 KB, 100G 400/1600 KB, 200G 600/2400 KB, >=400G 800/3200 KB; slower ports scale down.
uint64_t EcnKmin(uint64_t rate_bps);
uint64_t EcnKmax(uint64_t rate_bps);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_CONFIG_H_
