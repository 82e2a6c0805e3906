#include "net/config.h"

namespace jigsaw::net {
namespace {

struct EcnStep {
  uint64_t rate_bps;
  uint64_t kmin_kb;
  uint64_t kmax_kb;
};

constexpr EcnStep kEcnSteps[] = {{25'000'000'000, 100, 400},
                                 {40'000'000'000, 200, 800},
                                 {100'000'000'000, 400, 1600},
                                 {200'000'000'000, 600, 2400},
                                 {400'000'000'000, 800, 3200}};

const EcnStep& StepFor(uint64_t rate_bps) {
  const EcnStep* chosen = &kEcnSteps[0];
  for (const EcnStep& step : kEcnSteps) {
    if (rate_bps >= step.rate_bps) chosen = &step;
  }
  return *chosen;
}

// Below 25G the thresholds shrink in proportion to the rate (K should track bandwidth).
uint64_t Scaled(uint64_t kb, uint64_t rate_bps) {
  uint64_t bytes = kb * 1000;
  if (rate_bps < kEcnSteps[0].rate_bps) bytes = bytes * rate_bps / kEcnSteps[0].rate_bps;
  return bytes < 2000 ? 2000 : bytes;
}

}  // namespace

bool ParseCcMode(std::string_view text, CcMode* mode) {
  if (text == "none" || text == "pfc") {
    *mode = CcMode::kNone;
  } else if (text == "dcqcn") {
    *mode = CcMode::kDcqcn;
  } else if (text == "dctcp") {
    *mode = CcMode::kDctcp;
  } else if (text == "timely") {
    *mode = CcMode::kTimely;
  } else if (text == "hpcc") {
    *mode = CcMode::kHpcc;
  } else if (text == "reno") {
    *mode = CcMode::kReno;
  } else {
    return false;
  }
  return true;
}

const char* CcModeName(CcMode mode) {
  switch (mode) {
    case CcMode::kNone:
      return "none";
    case CcMode::kDcqcn:
      return "dcqcn";
    case CcMode::kDctcp:
      return "dctcp";
    case CcMode::kTimely:
      return "timely";
    case CcMode::kHpcc:
      return "hpcc";
    case CcMode::kReno:
      return "reno";
  }
  return "?";
}

bool ParseAckPriority(std::string_view text, AckPriority* priority) {
  if (text == "data") {
    *priority = AckPriority::kData;
  } else if (text == "high") {
    *priority = AckPriority::kHigh;
  } else {
    return false;
  }
  return true;
}

const char* AckPriorityName(AckPriority priority) {
  return priority == AckPriority::kHigh ? "high" : "data";
}

uint64_t EcnKmin(uint64_t rate_bps) { return Scaled(StepFor(rate_bps).kmin_kb, rate_bps); }
uint64_t EcnKmax(uint64_t rate_bps) { return Scaled(StepFor(rate_bps).kmax_kb, rate_bps); }

}  // namespace jigsaw::net
