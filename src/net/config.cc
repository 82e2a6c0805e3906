#include "net/config.h"

#include <string>

#include "core/error.h"
#include "core/output.h"
#include "core/text_input.h"

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

bool ParseCcMode(std::string_view text, CcMode* mode) { return ParseEnum(kCcModes, text, mode); }

const char* CcModeName(CcMode mode) { return EnumNameOf(kCcModes, mode); }

bool ParseAckPriority(std::string_view text, AckPriority* priority) {
  return ParseEnum(kAckPriorities, text, priority);
}

const char* AckPriorityName(AckPriority priority) { return EnumNameOf(kAckPriorities, priority); }

bool ParseNicOrder(std::string_view text, NicOrder* order) {
  return ParseEnum(kNicOrders, text, order);
}

const char* NicOrderName(NicOrder order) { return EnumNameOf(kNicOrders, order); }

namespace {

double ParseReal(std::string_view name, std::string_view value, double lo, double hi) {
  try {
    size_t used = 0;
    const std::string text(value);
    const double parsed = std::stod(text, &used);
    if (used == text.size() && parsed >= lo && parsed <= hi) return parsed;
  } catch (const std::exception&) {
  }
  throw UsageError("--cc-param " + std::string(name) + "='" + Excerpt(value) +
                   "': expected a number in [" + FormatFixed(lo, 3) + ", " + FormatFixed(hi, 3) +
                   "]");
}

}  // namespace

const char* CcParamNames() {
  return "dcqcn.{g,alpha_interval,decrease_interval,increase_timer,fast_recovery_stages,rate_ai,"
         "rate_hai,rate_on_first_cnp,clamp_target}, dctcp.{g,rate_ai}, "
         "timely.{alpha,beta,t_low,t_high,min_rtt,rate_ai,rate_hai}, "
         "hpcc.{eta,max_stage,rate_ai}, min_rate, ecn_pmax, retransmit_timeout";
}

void SetCcParam(std::string_view name, std::string_view value, NetConfig* config) {
  auto duration = [&](Time* out) {
    Time t = 0;
    if (!ParseDuration(value, &t) || t <= 0 || t > kSecond) {
      throw UsageError("--cc-param " + std::string(name) + "='" + Excerpt(value) +
                       "': expected a positive duration of at most 1s like 4us");
    }
    *out = t;
  };
  auto rate = [&](double* out) {
    uint64_t bps = 0;
    if (!ParseRate(value, &bps) || bps == 0 || bps > 10'000'000'000'000ull) {
      throw UsageError("--cc-param " + std::string(name) + "='" + Excerpt(value) +
                       "': expected a positive rate like 50Mbps");
    }
    *out = static_cast<double>(bps);
  };
  auto integer = [&](int* out, int hi) {
    const double parsed = ParseReal(name, value, 0, hi);
    if (parsed != static_cast<int>(parsed)) {
      throw UsageError("--cc-param " + std::string(name) + "='" + Excerpt(value) +
                       "': expected a whole number");
    }
    *out = static_cast<int>(parsed);
  };
  DcqcnParams& d = config->dcqcn;
  TimelyParams& t = config->timely;
  HpccParams& h = config->hpcc;
  if (name == "dcqcn.g") {
    d.g = ParseReal(name, value, 1e-9, 1);
  } else if (name == "dcqcn.alpha_interval") {
    duration(&d.alpha_interval);
  } else if (name == "dcqcn.decrease_interval") {
    duration(&d.decrease_interval);
  } else if (name == "dcqcn.increase_timer") {
    duration(&d.increase_timer);
  } else if (name == "dcqcn.fast_recovery_stages") {
    integer(&d.fast_recovery_stages, 100);
  } else if (name == "dcqcn.rate_ai") {
    rate(&d.rate_ai_bps);
  } else if (name == "dcqcn.rate_hai") {
    rate(&d.rate_hai_bps);
  } else if (name == "dcqcn.rate_on_first_cnp") {
    d.rate_on_first_cnp = ParseReal(name, value, 0, 1);
  } else if (name == "dcqcn.clamp_target") {
    d.clamp_target = ParseReal(name, value, 0, 1) != 0;
  } else if (name == "dctcp.g") {
    config->dctcp.g = ParseReal(name, value, 1e-9, 1);
  } else if (name == "dctcp.rate_ai") {
    rate(&config->dctcp.rate_ai_bps);
  } else if (name == "timely.alpha") {
    t.alpha = ParseReal(name, value, 0, 1);
  } else if (name == "timely.beta") {
    t.beta = ParseReal(name, value, 0, 1);
  } else if (name == "timely.t_low") {
    duration(&t.t_low);
  } else if (name == "timely.t_high") {
    duration(&t.t_high);
  } else if (name == "timely.min_rtt") {
    duration(&t.min_rtt);
  } else if (name == "timely.rate_ai") {
    rate(&t.rate_ai_bps);
  } else if (name == "timely.rate_hai") {
    rate(&t.rate_hai_bps);
  } else if (name == "hpcc.eta") {
    h.target_utilization = ParseReal(name, value, 0.01, 1);
  } else if (name == "hpcc.max_stage") {
    integer(&h.max_stage, 1000);
  } else if (name == "hpcc.rate_ai") {
    rate(&h.rate_ai_bps);
  } else if (name == "retransmit_timeout") {
    duration(&config->retransmit_timeout);
  } else if (name == "min_rate") {
    rate(&config->min_rate_bps);
  } else if (name == "ecn_pmax") {
    config->ecn_pmax = ParseReal(name, value, 0, 1);
  } else {
    throw UsageError("--cc-param '" + Excerpt(name) + "': unknown; expected one of " +
                     CcParamNames());
  }
}

uint64_t EcnKmin(uint64_t rate_bps) { return Scaled(StepFor(rate_bps).kmin_kb, rate_bps); }
uint64_t EcnKmax(uint64_t rate_bps) { return Scaled(StepFor(rate_bps).kmax_kb, rate_bps); }

}  // namespace jigsaw::net
