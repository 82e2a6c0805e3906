#include "net/cc.h"

#include <algorithm>
#include <cmath>

namespace jigsaw::net {

void CongestionControl::Start(Flow& flow) const {
  flow.rate = flow.line_rate;
  flow.cc.target_rate = flow.line_rate;
  flow.cc.reference_rate = flow.line_rate;
}

double CongestionControl::Clamp(const Flow& flow, double rate) const {
  return std::clamp(rate, std::min(config_.min_rate_bps, flow.line_rate), flow.line_rate);
}

void CongestionControl::OnAck(uint32_t id, Flow& flow, const Packet& ack, const IntHop* hops,
                              Time now) {
  switch (config_.cc) {
    case CcMode::kNone:
      return;
    case CcMode::kDcqcn:
      DcqcnAck(id, flow, ack, now);
      return;
    case CcMode::kDctcp:
      DctcpAck(flow, ack);
      return;
    case CcMode::kTimely:
      TimelyAck(flow, ack, now);
      return;
    case CcMode::kHpcc:
      HpccAck(flow, ack, hops);
      return;
    case CcMode::kReno:
      RenoAck(flow, ack);
      return;
  }
}

void CongestionControl::OnTimer(uint8_t type, uint32_t id, uint32_t generation, Flow& flow,
                                Time now) {
  if (type == kEventDcqcnDecrease) {
    flow.cc.decrease_pending = false;
    flow.cc.decrease_next += config_.dcqcn.decrease_interval;
    if (flow.cc.decrease_cnp) DcqcnDecrease(id, flow, now);
  } else if (type == kEventDcqcnIncrease && generation == flow.cc.increase_generation &&
             flow.cc.increase_running) {
    DcqcnIncrease(id, flow, now);
  }
}

// --- DCQCN -----------------------------------------------------------------------------------

void CongestionControl::DcqcnCatchUpAlpha(Flow& flow, Time now) const {
  CcState& cc = flow.cc;
  if (cc.first_cnp || now < cc.alpha_next) return;
  const DcqcnParams& p = config_.dcqcn;
  Time ticks = (now - cc.alpha_next) / p.alpha_interval + 1;
  cc.alpha = (1 - p.g) * cc.alpha + (cc.alpha_cnp ? p.g : 0.0);
  if (ticks > 1) cc.alpha *= std::pow(1 - p.g, static_cast<double>(ticks - 1));
  cc.alpha_cnp = false;
  cc.alpha_next += ticks * p.alpha_interval;
}

void CongestionControl::DcqcnAck(uint32_t id, Flow& flow, const Packet& ack, Time now) {
  if (!ack.ecn) return;
  CcState& cc = flow.cc;
  const DcqcnParams& p = config_.dcqcn;
  DcqcnCatchUpAlpha(flow, now);
  cc.alpha_cnp = true;
  cc.decrease_cnp = true;
  if (cc.first_cnp) {
    cc.first_cnp = false;
    cc.alpha = 1.0;
    cc.alpha_next = now + p.alpha_interval;
    cc.decrease_next = now + p.decrease_interval + kNanosecond;
    flow.rate = Clamp(flow, flow.rate * p.rate_on_first_cnp);
    cc.target_rate = flow.rate;
  } else if (cc.decrease_next < now) {
    Time behind = now - cc.decrease_next;
    cc.decrease_next +=
        (behind + p.decrease_interval - 1) / p.decrease_interval * p.decrease_interval;
  }
  if (!cc.decrease_pending) {
    cc.decrease_pending = true;
    timers_->PushCcTimer(cc.decrease_next, kEventDcqcnDecrease, id, 0);
  }
}

void CongestionControl::DcqcnDecrease(uint32_t id, Flow& flow, Time now) {
  CcState& cc = flow.cc;
  const DcqcnParams& p = config_.dcqcn;
  DcqcnCatchUpAlpha(flow, now);
  if (p.clamp_target || cc.stage != 0) cc.target_rate = flow.rate;
  flow.rate = Clamp(flow, flow.rate * (1 - cc.alpha / 2));
  cc.stage = 0;
  cc.decrease_cnp = false;
  cc.increase_running = true;
  ++cc.increase_generation;
  timers_->PushCcTimer(now + p.increase_timer, kEventDcqcnIncrease, id, cc.increase_generation);
}

void CongestionControl::DcqcnIncrease(uint32_t id, Flow& flow, Time now) {
  CcState& cc = flow.cc;
  const DcqcnParams& p = config_.dcqcn;
  if (cc.stage == p.fast_recovery_stages) {
    cc.target_rate = std::min(flow.line_rate, cc.target_rate + p.rate_ai_bps);
  } else if (cc.stage > p.fast_recovery_stages) {
    cc.target_rate = std::min(flow.line_rate, cc.target_rate + p.rate_hai_bps);
  }
  flow.rate = Clamp(flow, (flow.rate + cc.target_rate) / 2);
  ++cc.stage;
  if (cc.target_rate >= flow.line_rate && flow.rate >= flow.line_rate * 0.9999) {
    flow.rate = flow.line_rate;
    cc.increase_running = false;
    return;
  }
  timers_->PushCcTimer(now + p.increase_timer, kEventDcqcnIncrease, id, cc.increase_generation);
}

// --- DCTCP -----------------------------------------------------------------------------------

void CongestionControl::DctcpAck(Flow& flow, const Packet& ack) const {
  CcState& cc = flow.cc;
  const DctcpParams& p = config_.dctcp;
  const uint64_t mtu = config_.payload_bytes;
  bool new_batch = false;
  if (ack.ecn) ++cc.ecn_count;
  if (ack.seq > cc.last_update_seq) {
    new_batch = true;
    if (cc.last_update_seq == 0) {
      cc.batch_packets = flow.snd_nxt / mtu + 1;
    } else {
      double fraction = std::min(1.0, static_cast<double>(cc.ecn_count) / cc.batch_packets);
      cc.dctcp_alpha = (1 - p.g) * cc.dctcp_alpha + p.g * fraction;
      cc.ecn_count = 0;
      cc.batch_packets = (flow.snd_nxt - ack.seq) / mtu + 1;
    }
    cc.last_update_seq = flow.snd_nxt;
  }
  if (cc.cwr && ack.seq > cc.high_seq) cc.cwr = false;
  if (ack.ecn && !cc.cwr) {
    flow.rate = Clamp(flow, flow.rate * (1 - cc.dctcp_alpha / 2));
    cc.cwr = true;
    cc.high_seq = flow.snd_nxt;
  }
  if (!cc.cwr && new_batch) flow.rate = Clamp(flow, flow.rate + p.rate_ai_bps);
}

// --- TCP-like loss-based AIMD ------------------------------------------------------------------

void CongestionControl::RenoAck(Flow& flow, const Packet& ack) const {
  CcState& cc = flow.cc;
  if (cc.cwr && ack.seq > cc.high_seq) cc.cwr = false;
  if (ack.type == PacketType::kNack && !cc.cwr) {
    flow.rate = Clamp(flow, flow.rate / 2);
    cc.cwr = true;
    cc.high_seq = flow.snd_nxt;
    return;
  }
  if (!cc.cwr && ack.seq > cc.last_update_seq) {
    cc.last_update_seq = flow.snd_nxt;
    flow.rate = Clamp(flow, flow.rate + config_.dctcp.rate_ai_bps);
  }
}

// --- TIMELY ----------------------------------------------------------------------------------

void CongestionControl::TimelyAck(Flow& flow, const Packet& ack, Time now) const {
  CcState& cc = flow.cc;
  const TimelyParams& p = config_.timely;
  if (ack.seq <= cc.last_update_seq) return;
  Time rtt = now - ack.sent_at;
  if (cc.last_update_seq != 0) {
    double rtt_diff =
        (1 - p.alpha) * cc.rtt_diff + p.alpha * static_cast<double>(rtt - cc.last_rtt);
    double gradient = rtt_diff / static_cast<double>(p.min_rtt);
    bool increase = false;
    double factor = 1.0;
    if (rtt < p.t_low) {
      increase = true;
    } else if (rtt > p.t_high) {
      factor = 1 - p.beta * (1 - static_cast<double>(p.t_high) / static_cast<double>(rtt));
    } else if (gradient <= 0) {
      increase = true;
    } else {
      factor = std::max(0.0, 1 - p.beta * gradient);
    }
    if (increase) {
      double step = cc.increase_stage < 5 ? p.rate_ai_bps : p.rate_hai_bps;
      flow.rate = Clamp(flow, flow.rate + step);
      ++cc.increase_stage;
    } else {
      flow.rate = Clamp(flow, flow.rate * factor);
      cc.increase_stage = 0;
    }
    cc.rtt_diff = rtt_diff;
  }
  cc.last_update_seq = flow.snd_nxt;
  cc.last_rtt = rtt;
}

// --- HPCC ------------------------------------------------------------------------------------

void CongestionControl::HpccAck(Flow& flow, const Packet& ack, const IntHop* ack_hops) const {
  CcState& cc = flow.cc;
  const HpccParams& p = config_.hpcc;
  const bool fast_react = ack.seq <= cc.last_update_seq;
  if (cc.last_update_seq == 0) {
    cc.last_update_seq = flow.snd_nxt;
    cc.hops = ack.hops;
    std::copy(ack_hops, ack_hops + ack.hops, cc.hop);
    return;
  }
  double max_u = 0;
  Time max_tau = 0;
  bool updated = false;
  const int hop_count = std::min(ack.hops, cc.hops);
  for (int i = 0; i < hop_count; ++i) {
    const IntHop& now_hop = ack_hops[i];
    const IntHop& old_hop = cc.hop[i];
    Time tau = now_hop.time - old_hop.time;
    if (tau <= 0) continue;
    double rate = static_cast<double>(now_hop.rate_bps);
    double tx_rate = static_cast<double>(now_hop.tx_bytes - old_hop.tx_bytes) * 8 /
                     (static_cast<double>(tau) * 1e-12);
    double queue = static_cast<double>(std::min(now_hop.queue_bytes, old_hop.queue_bytes));
    double u = tx_rate / rate + queue * flow.line_rate / rate / static_cast<double>(flow.bdp);
    if (u > max_u) {
      max_u = u;
      max_tau = tau;
    }
    updated = true;
  }
  if (updated) {
    const double base = static_cast<double>(flow.base_rtt);
    double tau = static_cast<double>(std::min(max_tau, flow.base_rtt));
    cc.utilization = (cc.utilization * (base - tau) + max_u * tau) / base;
    double ratio = cc.utilization / p.target_utilization;
    double new_rate;
    int new_stage;
    if (ratio >= 1 || cc.hpcc_stage >= p.max_stage) {
      new_rate = cc.reference_rate / ratio + p.rate_ai_bps;
      new_stage = 0;
    } else {
      new_rate = cc.reference_rate + p.rate_ai_bps;
      new_stage = cc.hpcc_stage + 1;
    }
    flow.rate = Clamp(flow, new_rate);
    if (!fast_react) {
      cc.reference_rate = flow.rate;
      cc.hpcc_stage = new_stage;
    }
  }
  cc.hops = ack.hops;
  std::copy(ack_hops, ack_hops + ack.hops, cc.hop);
  if (!fast_react && flow.snd_nxt > cc.last_update_seq) cc.last_update_seq = flow.snd_nxt;
}

}  // namespace jigsaw::net
