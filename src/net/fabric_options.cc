#include "net/fabric_options.h"

#include "core/error.h"
#include "core/limits.h"
#include "net/packet.h"
#include "net/units.h"

namespace jigsaw::net {

FabricSpec FabricOptions::Validate(uint64_t seed) const {
  FabricSpec spec;
  NetConfig& config = spec.config;
  config.cc = ParseEnumOption(kCcModes, "--cc", cc);
  config.seed = seed;
  config.window = ParseEnumOption(kOnOff, "--window", window);
  config.pfc = ParseEnumOption(kOnOff, "--pfc", pfc);
  config.ack_priority = ParseEnumOption(kAckPriorities, "--ack-priority", ack_priority);
  config.nic_order = ParseEnumOption(kNicOrders, "--nic-order", nic_order);
  spec.buffer_given = !buffer.empty();
  if (spec.buffer_given &&
      (!ParseBytes(buffer, &config.buffer_bytes) || config.buffer_bytes < 65536)) {
    throw UsageError("--buffer '" + Excerpt(buffer) + "': expected a size of at least 64KiB");
  }
  if (payload < 64 || payload > 9000) throw UsageError("--payload must be 64..9000");
  config.payload_bytes = static_cast<uint32_t>(payload);
  if (!transport.empty()) {
    spec.transport = ParseEnumOption(kTransportPresets, "--transport", transport);
    ApplyTransportPreset(*spec.transport, &config);
  }
  RequireCountInRange("--homa-overcommit", homa_overcommit, 1, kNumPriorities);
  RequireCountInRange("--homa-per-sender", homa_per_sender, 0, kNumPriorities);
  config.homa.overcommit = homa_overcommit;
  config.homa.max_per_sender = homa_per_sender;
  config.pl2.bulk_oldest_first =
      ParseEnumOption(kPl2BulkOrders, "--pl2-bulk-order", pl2_bulk_order);
  RequireCountInRange("--egress-shift", egress_shift, -1, 16);
  config.egress_shift = egress_shift;
  for (const std::string& param : cc_params) {
    const size_t equals = param.find('=');
    if (equals == std::string::npos) {
      throw UsageError("--cc-param '" + Excerpt(param) + "': expected NAME=VALUE, NAME one of " +
                       CcParamNames());
    }
    SetCcParam(std::string_view(param).substr(0, equals),
               std::string_view(param).substr(equals + 1), &config);
    spec.cc_params.emplace_back(param.substr(0, equals), param.substr(equals + 1));
  }
  return spec;
}

}  // namespace jigsaw::net
