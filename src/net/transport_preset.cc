#include "net/transport_preset.h"

namespace jigsaw::net {

TransportSettings SettingsOf(TransportPreset preset) {
  switch (preset) {
    case TransportPreset::kPl2:
      return {TransportKind::kPl2, std::nullopt, false, false};
    case TransportPreset::kHoma:
      return {TransportKind::kHoma, std::nullopt, false, false};
    case TransportPreset::kDctcp:
      return {TransportKind::kRdma, CcMode::kDctcp, false, std::nullopt};
    case TransportPreset::kDcqcn:
      return {TransportKind::kRdma, CcMode::kDcqcn, true, std::nullopt};
    case TransportPreset::kLossy:
      return {TransportKind::kRdma, CcMode::kReno, false, false};
  }
  return {};
}

void ApplyTransportPreset(TransportPreset preset, NetConfig* config) {
  const TransportSettings settings = SettingsOf(preset);
  config->transport = settings.transport;
  if (settings.cc) config->cc = *settings.cc;
  config->pfc = settings.pfc;
  if (settings.ecn) config->ecn = *settings.ecn;
}

}  // namespace jigsaw::net
