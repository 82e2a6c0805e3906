#include "paramsvc/service_client.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "core/handshake_client.h"
#include "paramsvc/control.h"

namespace jigsaw::paramsvc {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

ServiceClient::ServiceClient(const std::string& service, int rank, int workers, double timeout_s,
                             const wire::Token& token)
    : rank_(rank), workers_(workers), timeout_s_(timeout_s), token_(token) {
  if (!(timeout_s > 0)) throw std::invalid_argument("the timeout must be positive");
  wire::ParseHostPort(service, "--service", &host_, &port_);
}

Json ServiceClient::Ask(const std::string& op, uint64_t parameters) {
  ControlFrame request = MakeFrame(op);
  if (op == "size") request.body["parameters"] = parameters;
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      ControlFrame reply;
      if (!coordinator_.valid()) {  // a new connection: the handshake retries while busy
        reply = RequestWithRetry(
            host_, port_, timeout_s_, request, token_,
            "asking the parameter service at " + host_ + ":" + std::to_string(port_),
            &coordinator_);
        wire::SetReceiveTimeout(coordinator_.fd(), timeout_s_);
      } else {
        SendControl(coordinator_.fd(), request, token_);
        reply = ReceiveControl(coordinator_.fd(), 0);
      }
      if (reply.op() == "error") {
        throw std::runtime_error("the parameter service refused: " +
                                 reply.body.value("reason", std::string("?")));
      }
      if (reply.op() != "map") throw wire::ProtocolError("unexpected reply " + reply.op());
      return reply.body;
    } catch (const wire::ConnectionClosed&) {
      coordinator_ = wire::Socket();  // reconnect once
    }
  }
  throw std::runtime_error("the parameter service's coordinator closed the connection");
}

void ServiceClient::CheckJob(const Json& map) {
  if (map.value("failed", false)) {
    throw std::runtime_error("the parameter service failed the job: " +
                             map.value("reason", std::string("?")));
  }
}

Json ServiceClient::WaitForMap(int shard, uint64_t epoch, bool new_generation_ends_wait) {
  const auto give_up = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(timeout_s_));
  while (true) {
    Json map = Ask("lookup", 0);
    CheckJob(map);
    const bool new_generation = map.value("generation", uint64_t{0}) != generation_;
    if (connected_ && new_generation && new_generation_ends_wait) return map;
    if (new_generation) shard = -1;  // every shard is new
    bool ready = map.value("parameters", uint64_t{0}) > 0 && map["shards"].is_array() &&
                 !map["shards"].empty();
    if (ready) {
      for (const Json& entry : map["shards"]) ready = ready && entry.value("ready", false);
    }
    if (ready && shard >= 0) {
      ready = map["shards"].at(static_cast<size_t>(shard)).value("epoch", uint64_t{0}) > epoch;
    }
    if (ready) return map;
    if (Clock::now() > give_up) {
      throw std::runtime_error("the parameter service did not place the job's shards within " +
                               std::to_string(timeout_s_) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

void ServiceClient::Connect(size_t shard, const Json& map) {
  const Json& entry = map["shards"].at(shard);
  Link& link = links_[shard];
  link.offset = entry.value("offset", uint64_t{0});
  link.count = entry.value("count", uint64_t{0});
  link.epoch = entry.value("epoch", uint64_t{0});
  const std::string host = entry.value("host", std::string());
  const int port = entry.value("port", 0);
  const wire::Message hello{
      wire::MessageType::kHello, static_cast<uint32_t>(rank_), static_cast<uint64_t>(workers_), {}};
  try {
    link.socket = wire::HelloWithRetry(
        host, port, timeout_s_, hello, token_,
        "joining shard " + std::to_string(shard) + " at " + host + ":" + std::to_string(port));
    bytes_sent_ += wire::kHeaderBytes;
    bytes_received_ += wire::kHeaderBytes;
    link.broken = false;
    wire::SetReceiveTimeout(link.socket.fd(), timeout_s_);
  } catch (const std::exception&) {
    link.socket = wire::Socket();
    link.broken = true;  // refused (the shard moved) or unreachable: the next pull recovers
  }
}

void ServiceClient::ConnectAll(const Json& map) {
  parameters_ = map.value("parameters", uint64_t{0});
  generation_ = map.value("generation", uint64_t{0});
  links_.clear();
  links_.resize(map["shards"].size());
  for (size_t i = 0; i < links_.size(); ++i) Connect(i, map);
  uint64_t covered = 0;
  for (const Link& link : links_) {
    if (link.offset != covered) throw wire::ProtocolError("the shard map has a gap");
    covered += link.count;
  }
  if (covered != parameters_) throw wire::ProtocolError("the shard map does not cover the model");
  connected_ = true;
}

void ServiceClient::SendTo(Link& link, const wire::Message& message) {
  try {
    wire::SendMessage(link.socket.fd(), message, token_);
    bytes_sent_ += wire::kHeaderBytes + message.data.size() * sizeof(float);
  } catch (const std::exception&) {
    link.broken = true;  // found out and repaired at the next pull
  }
}

void ServiceClient::SendSlice(Link& link, wire::MessageType type, uint64_t step,
                              const std::vector<float>& values) {
  try {
    wire::SendFloats(link.socket.fd(), type, static_cast<uint32_t>(rank_), step,
                     values.data() + link.offset, link.count, token_);
    bytes_sent_ += wire::kHeaderBytes + link.count * sizeof(float);
  } catch (const std::exception&) {
    link.broken = true;
  }
}

void ServiceClient::Init(const std::vector<float>& parameters) {
  if (!connected_) {
    Json map = Ask("lookup", 0);
    CheckJob(map);
    if (map.value("parameters", uint64_t{0}) == 0) Ask("size", parameters.size());
    ConnectAll(WaitForMap(-1, 0, false));
  }
  if (parameters.size() != parameters_) {
    throw std::runtime_error("the model has " + std::to_string(parameters.size()) +
                             " parameters, the job was registered with " +
                             std::to_string(parameters_));
  }
  for (Link& link : links_) SendSlice(link, wire::MessageType::kInit, 0, parameters);
}

void ServiceClient::Push(uint64_t step, const std::vector<float>& gradient) {
  if (gradient.size() != parameters_) {
    throw std::runtime_error("gradient of " + std::to_string(gradient.size()) + " values, the " +
                             "model has " + std::to_string(parameters_));
  }
  last_push_step_ = step;
  last_push_ = gradient;
  for (Link& link : links_) {
    if (!link.broken) SendSlice(link, wire::MessageType::kPush, step, gradient);
  }
}

void ServiceClient::Recover(size_t shard, uint64_t version) {
  Link& link = links_[shard];
  Json map = WaitForMap(-1, 0, true);
  if (map.value("generation", uint64_t{0}) != generation_) {
    map = WaitForMap(-1, 0, false);  // every shard ready in the new generation
    const uint64_t resume = map.value("resume_version", uint64_t{0});
    ConnectAll(map);
    ++rollbacks_;
    last_push_step_ = UINT64_MAX;
    throw ps::JobRolledBack(
        resume, "the parameter service restored the job at version " + std::to_string(resume));
  }
  // Same generation: the shard moved (or is moving); wait for its new home.
  map = WaitForMap(static_cast<int>(shard), link.epoch, true);
  if (map.value("generation", uint64_t{0}) != generation_) return Recover(shard, version);
  Connect(shard, map);
  ++redirects_;
  if (version > 0 && last_push_step_ == version - 1) {
    SendSlice(link, wire::MessageType::kPush, last_push_step_, last_push_);
  }
}

std::vector<float> ServiceClient::Pull(uint64_t version) {
  if (!connected_) ConnectAll(WaitForMap(-1, 0, false));
  std::vector<float> parameters(links_.size() == 1 ? 0 : parameters_);
  std::vector<bool> pending(links_.size(), true);
  for (Link& link : links_) {
    if (!link.broken) {
      SendTo(link,
             wire::Message{wire::MessageType::kPull, static_cast<uint32_t>(rank_), version, {}});
    }
  }
  for (size_t i = 0; i < links_.size(); ++i) {
    while (pending[i]) {
      Link& link = links_[i];
      wire::Message reply;
      bool failed = link.broken;
      if (!failed) {
        try {
          reply = wire::ReceiveMessage(link.socket.fd(), token_, link.count);
          bytes_received_ += wire::kHeaderBytes + reply.data.size() * sizeof(float);
        } catch (const std::exception& e) {
          if (errno == EAGAIN || errno == EWOULDBLOCK) {
            throw std::runtime_error("no reply from the parameter service in time (pull of " +
                                     std::string("version ") + std::to_string(version) + ")");
          }
          failed = true;
        }
      }
      if (!failed && reply.type == wire::MessageType::kParams && reply.step >= version &&
          reply.data.size() == link.count) {
        if (links_.size() == 1) return std::move(reply.data);  // the whole model
        std::copy(reply.data.begin(), reply.data.end(),
                  parameters.begin() + static_cast<long>(link.offset));
        pending[i] = false;
        continue;
      }
      if (!failed && reply.type != wire::MessageType::kRedirect &&
          reply.type != wire::MessageType::kError) {
        throw std::runtime_error(std::string("unexpected reply to pull: ") +
                                 wire::MessageTypeName(reply.type));
      }
      // Moved, lost or failed: the coordinator knows which.
      link.socket = wire::Socket();
      link.broken = true;
      Recover(i, version);  // throws on a rollback or a failed job
      SendTo(links_[i],
             wire::Message{wire::MessageType::kPull, static_cast<uint32_t>(rank_), version, {}});
    }
  }
  return parameters;
}

void ServiceClient::Bye() {
  for (Link& link : links_) {
    SendTo(link, wire::Message{wire::MessageType::kBye, static_cast<uint32_t>(rank_), 0, {}});
  }
}

}  // namespace jigsaw::paramsvc
