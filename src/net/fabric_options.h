// Options of the fabric a `jigsaw net` run simulates (net/config.h): congestion control and its
// parameters, the --transport preset, PFC, ACK priority, switch buffer, payload and the host
// transports' knobs. The command line binds flags to FabricOptions' fields (named after them);
// Validate() turns them into a NetConfig or throws UsageError naming the flag and what was
// expected. Every enum-valued flag parses through its table (net/enum_table.h).
#ifndef JIGSAW_NET_FABRIC_OPTIONS_H_
#define JIGSAW_NET_FABRIC_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "net/config.h"
#include "net/enum_table.h"
#include "net/transport_preset.h"

namespace jigsaw::net {

inline constexpr EnumName<bool> kOnOff[] = {{true, "on"}, {false, "off"}};

// --pl2-bulk-order: Pl2Params::bulk_oldest_first.
inline constexpr EnumName<bool> kPl2BulkOrders[] = {
    {true, "oldest", "per destination only the oldest bulk message asks; the default"},
    {false, "shared", "every bulk message asks"},
};

struct FabricSpec {
  NetConfig config;  // buffer_bytes is the default unless buffer_given
  bool buffer_given = false;
  std::optional<TransportPreset> transport;                    // --transport, if given
  std::vector<std::pair<std::string, std::string>> cc_params;  // NAME, VALUE in order given
};

struct FabricOptions {
  std::string cc = "none";                // --cc
  std::vector<std::string> cc_params;     // --cc-param NAME=VALUE (repeatable)
  std::string transport;                  // --transport ("" = RDMA queue pairs with --cc)
  std::string window = "on";              // --window on|off
  std::string pfc = "on";                 // --pfc on|off
  std::string ack_priority = "data";      // --ack-priority
  std::string nic_order = "rr";           // --nic-order
  std::string buffer;                     // --buffer ("" = the topology's, else 32MiB)
  int payload = 1000;                     // --payload 64..9000
  int egress_shift = -1;                  // --egress-shift -1..16
  int homa_overcommit = 4;                // --homa-overcommit 1..8
  int homa_per_sender = 0;                // --homa-per-sender 0..8
  std::string pl2_bulk_order = "oldest";  // --pl2-bulk-order

  // Checks every field; the --transport preset overrides --cc and --pfc. Throws UsageError naming
  // the flag (SetCcParam's errors name the parameter).
  FabricSpec Validate(uint64_t seed) const;
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_FABRIC_OPTIONS_H_
