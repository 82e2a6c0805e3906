// `jigsaw net --transport NAME`: named presets of host transport, congestion control, PFC and ECN
// (docs/pl2.md). A preset overrides --cc and --pfc; fields it leaves unset keep their values.
//   pl2    the PL2 reservation transport (pl2.h); PFC and ECN off; --cc kept (unused)
//   homa   the Homa-like receiver-driven transport (homa.h); PFC and ECN off; --cc kept (unused)
//   dctcp  RDMA queue pairs with DCTCP, no PFC (lossy, ECN on)
//   dcqcn  RDMA queue pairs with DCQCN and PFC
//   lossy  RDMA queue pairs with TCP-like AIMD (reno), no PFC, no ECN
#ifndef JIGSAW_NET_TRANSPORT_PRESET_H_
#define JIGSAW_NET_TRANSPORT_PRESET_H_

#include <optional>
#include <string>

#include "net/config.h"
#include "net/enum_table.h"

namespace jigsaw::net {

enum class TransportPreset : uint8_t { kPl2, kHoma, kDctcp, kDcqcn, kLossy };
inline constexpr EnumName<TransportPreset> kTransportPresets[] = {
    {TransportPreset::kPl2, "pl2"},
    {TransportPreset::kHoma, "homa"},
    {TransportPreset::kDctcp, "dctcp", "no PFC"},
    {TransportPreset::kDcqcn, "dcqcn", "PFC"},
    {TransportPreset::kLossy, "lossy", "TCP-like, no PFC"},
};

// What a preset sets in NetConfig; nullopt: left as it was.
struct TransportSettings {
  TransportKind transport = TransportKind::kRdma;
  std::optional<CcMode> cc;
  bool pfc = false;
  std::optional<bool> ecn;
};

TransportSettings SettingsOf(TransportPreset preset);

// Applies the preset's settings to `config`.
void ApplyTransportPreset(TransportPreset preset, NetConfig* config);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_TRANSPORT_PRESET_H_
