#include "net/rack_workload.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "net/collective.h"

namespace jigsaw::net {
namespace {

constexpr uint64_t kKindShift = 62;
constexpr uint64_t kRequestTag = uint64_t{1} << kKindShift;
constexpr uint64_t kResponseTag = uint64_t{2} << kKindShift;
constexpr uint64_t kBulkTag = uint64_t{3} << kKindShift;
constexpr uint64_t kIndexMask = (uint64_t{1} << kKindShift) - 1;
constexpr uint32_t kMemcachedHeader = 24;
constexpr uint32_t kMaxValue = 1'000'000;

// Draws u in (0, 1), never 0, so the inverse CDFs stay finite.
double OpenUniform(Rng& rng) {
  double u = rng.Uniform();
  return u > 0 ? u : 0x1p-53;
}

class RackDriver : public NetObserver, public CollectiveClient {
 public:
  RackDriver(Network* network, const RackWorkloadSpec& spec, RackResult* result)
      : network_(network), spec_(spec), result_(result), engine_(network) {
    network_->set_observer(this);  // the engine's messages are forwarded to it
  }

  void StartMl() {
    if (spec_.ml_bytes == 0) return;
    const uint32_t hosts = network_->num_hosts();
    const uint32_t stride = hosts / spec_.ml_hosts;
    for (uint32_t r = 0; r < spec_.ml_hosts; ++r) {
      const uint32_t first = spec_.hot_host + (spec_.ml_with_server ? 0 : 1);
      ml_.hosts.push_back((first + r * stride) % hosts);
    }
    ml_.type = CollectiveType::kAllReduce;
    ml_.bytes = spec_.ml_bytes;
    ml_.chunks = spec_.ml_chunks;
    StartIteration();
  }

  void StartIteration() {
    if (spec_.ml_pattern == MlPattern::kRing) {
      engine_.Start(ml_, this);
      return;
    }
    // Parameter server: ml_.hosts[0] serves, the others push every shard at once.
    ps_start_ = network_->now();
    ps_workers_left_ = static_cast<uint32_t>(ml_.hosts.size()) - 1;
    ps_pushed_.assign(static_cast<size_t>(spec_.ml_chunks), 0);
    ps_pulled_.assign(ml_.hosts.size(), 0);
    ps_messages_.clear();
    for (uint32_t worker = 1; worker < ml_.hosts.size(); ++worker) {
      for (int shard = 0; shard < spec_.ml_chunks; ++shard) {
        SendShard(worker, static_cast<uint32_t>(shard), /*push=*/true);
      }
    }
  }

  void SendShard(uint32_t worker, uint32_t shard, bool push) {
    const uint64_t base = spec_.ml_bytes / static_cast<uint64_t>(spec_.ml_chunks);
    const uint64_t bytes = shard + 1 == static_cast<uint32_t>(spec_.ml_chunks)
                               ? spec_.ml_bytes - base * static_cast<uint64_t>(spec_.ml_chunks - 1)
                               : base;
    const uint32_t ps = ml_.hosts[0];
    const uint32_t peer = ml_.hosts[worker];
    const uint64_t tag = ps_messages_.size();
    ps_messages_.push_back({worker, shard, push});
    network_->AddFlow(push ? peer : ps, push ? ps : peer, std::max<uint64_t>(bytes, 1),
                      network_->now(), tag);
  }

  void OnShardDelivered(uint64_t tag) {
    const PsMessage message = ps_messages_[tag];
    if (message.push) {
      if (++ps_pushed_[message.shard] < ml_.hosts.size() - 1) return;
      for (uint32_t worker = 1; worker < ml_.hosts.size(); ++worker) {
        SendShard(worker, message.shard, /*push=*/false);
      }
      return;
    }
    if (++ps_pulled_[message.worker] < static_cast<uint32_t>(spec_.ml_chunks)) return;
    if (--ps_workers_left_ > 0) return;
    IterationDone(network_->now() - ps_start_);
  }

  void OnFlowDelivered(uint32_t flow, uint64_t tag) override {
    const uint64_t kind = tag & ~kIndexMask;
    const uint64_t index = tag & kIndexMask;
    if (kind == 0) {
      if (spec_.ml_pattern == MlPattern::kRing) {
        engine_.OnFlowDelivered(flow, tag);
      } else {
        OnShardDelivered(tag);
      }
    } else if (kind == kRequestTag) {
      const RpcRecord& rpc = result_->rpcs[index];
      network_->AddFlow(spec_.hot_host, rpc.client, rpc.response_bytes, network_->now(),
                        kResponseTag | index);
    } else if (kind == kResponseTag) {
      result_->rpcs[index].done = network_->now();
    } else {
      ++result_->bulk_delivered;
    }
  }

  void OnTimer(uint32_t) override { StartIteration(); }

  void OnCollectiveDone(uint32_t collective) override {
    IterationDone(engine_.end_time(collective) - engine_.start_time(collective));
  }

 private:
  struct PsMessage {
    uint32_t worker;  // index into ml_.hosts (1..)
    uint32_t shard;
    bool push;  // worker -> PS (gradient) or PS -> worker (parameters)
  };

  void IterationDone(Time transfer_time) {
    result_->ml_iterations.push_back(transfer_time);
    const Time next = network_->now() + spec_.ml_compute;
    if (next >= spec_.duration) return;
    if (spec_.ml_compute == 0) {
      StartIteration();
    } else {
      network_->AddTimer(next, 0);
    }
  }

  Network* network_;
  const RackWorkloadSpec& spec_;
  RackResult* result_;
  CollectiveEngine engine_;
  CollectiveSpec ml_;
  // The parameter-server iteration in progress.
  std::vector<PsMessage> ps_messages_;  // by tag
  std::vector<uint32_t> ps_pushed_;     // per shard: workers whose gradient arrived
  std::vector<uint32_t> ps_pulled_;     // per worker: shards whose parameters arrived
  uint32_t ps_workers_left_ = 0;
  Time ps_start_ = 0;
};

}  // namespace

uint32_t EtcKeyBytes(Rng& rng) {
  // GEV(mu, sigma, xi) by inversion: mu + sigma * ((-ln u)^-xi - 1) / xi.
  const double mu = 30.7984, sigma = 8.20449, xi = 0.078688;
  const double x = mu + sigma * (std::pow(-std::log(OpenUniform(rng)), -xi) - 1) / xi;
  return static_cast<uint32_t>(std::clamp(std::lround(x), 1L, 250L));
}

uint32_t EtcValueBytes(Rng& rng) {
  // Generalized Pareto(0, sigma, xi): sigma * ((1 - u)^-xi - 1) / xi.
  const double sigma = 214.476, xi = 0.348238;
  const double x = sigma * (std::pow(OpenUniform(rng), -xi) - 1) / xi;
  return static_cast<uint32_t>(std::clamp<double>(std::round(x), 1, kMaxValue));
}

RackResult RunRackWorkload(Network* network, const RackWorkloadSpec& spec) {
  const uint32_t hosts = network->num_hosts();
  if (hosts < 2 || spec.hot_host >= hosts) {
    throw UsageError("rack workload: needs at least 2 hosts and the hot host among them");
  }
  if (!(spec.load > 0 && spec.load <= 100) || !(spec.rpc_load >= 0 && spec.rpc_load < 1)) {
    throw UsageError("rack workload: load must be in (0, 100] (4 = 400%) and rpc load in [0, 1)");
  }
  if (spec.duration <= 0 || spec.drain < 0 || spec.bulk_min == 0 || spec.bulk_min > spec.bulk_max ||
      spec.bulk_max > (uint64_t{1} << 40)) {
    throw UsageError("rack workload: duration must be positive and 0 < bulk_min <= bulk_max");
  }
  if (spec.ml_bytes > 0 && (spec.ml_hosts < 2 || spec.ml_hosts > hosts || spec.ml_chunks < 1)) {
    throw UsageError("rack workload: the training job needs 2.." + std::to_string(hosts) +
                     " hosts and at least one chunk");
  }
  RackResult result;
  Rng rng(spec.seed);
  const double rate = static_cast<double>(network->host_rate_bps(spec.hot_host));
  const double seconds = static_cast<double>(spec.duration) / kSecond;
  auto client = [&] {
    uint32_t c = static_cast<uint32_t>(rng.UniformInt(hosts - 1));
    return c >= spec.hot_host ? c + 1 : c;
  };

  // RPCs: mean response ~ 24 + 31 + 329 bytes; the rate makes responses rpc_load of the link.
  uint64_t request_bytes = 0;
  if (spec.rpc_load > 0) {
    const double mean_response = kMemcachedHeader + 31.5 + 214.476 / (1 - 0.348238);
    const double per_second = spec.rpc_load * rate / 8 / mean_response;
    double t = 0;
    while (true) {
      t += rng.Exponential(1.0 / per_second);
      if (t >= seconds) break;
      RpcRecord rpc;
      rpc.client = client();
      const uint32_t key = EtcKeyBytes(rng);
      rpc.request_bytes = kMemcachedHeader + key;
      rpc.response_bytes = kMemcachedHeader + key + EtcValueBytes(rng);
      rpc.issued = static_cast<Time>(t * kSecond);
      request_bytes += rpc.request_bytes;
      result.rpcs.push_back(rpc);
    }
  }
  // Bulk incast: the rest of the offered load.
  const double bulk_rate = spec.load * rate / 8 - static_cast<double>(request_bytes) / seconds;
  if (bulk_rate > 0) {
    const double log_min = std::log(static_cast<double>(spec.bulk_min));
    const double log_max = std::log(static_cast<double>(spec.bulk_max));
    const double mean_bulk =
        log_max > log_min
            ? (static_cast<double>(spec.bulk_max - spec.bulk_min)) / (log_max - log_min)
            : static_cast<double>(spec.bulk_min);
    const double per_second = bulk_rate / mean_bulk;
    double t = 0;
    while (true) {
      t += rng.Exponential(1.0 / per_second);
      if (t >= seconds) break;
      const uint64_t bytes =
          static_cast<uint64_t>(std::exp(rng.Uniform(log_min, std::max(log_max, log_min + 1e-9))));
      network->AddFlow(client(), spec.hot_host, std::max<uint64_t>(bytes, 1),
                       static_cast<Time>(t * kSecond), kBulkTag | result.bulk_messages);
      ++result.bulk_messages;
      result.bulk_bytes += bytes;
    }
  }
  for (size_t i = 0; i < result.rpcs.size(); ++i) {
    const RpcRecord& rpc = result.rpcs[i];
    network->AddFlow(rpc.client, spec.hot_host, rpc.request_bytes, rpc.issued, kRequestTag | i);
  }
  RackDriver driver(network, spec, &result);
  driver.StartMl();
  network->Run(spec.duration + spec.drain);
  network->set_observer(nullptr);
  return result;
}

}  // namespace jigsaw::net
