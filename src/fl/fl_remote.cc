#include "fl/fl_remote.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <stdexcept>

#include "core/handshake_acceptor.h"
#include "core/handshake_client.h"

namespace jigsaw {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point After(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

double SecondsUntil(Clock::time_point deadline) {
  return std::chrono::duration<double>(deadline - Clock::now()).count();
}

void SendError(int fd, uint32_t rank, const wire::Token& token) {
  try {
    wire::SendMessage(fd, wire::Message{wire::MessageType::kError, rank, 0, {}}, token);
  } catch (const std::exception&) {
    // The peer is being dropped anyway.
  }
}

}  // namespace

FlServer::FlServer(const FlServeOptions& options, int population, int64_t num_weights,
                   const LocalTrainOptions& local)
    : options_(options), population_(population), num_weights_(num_weights), local_(local) {
  listener_ = wire::ListenTcp(options.host, options.port, 64);
  port_ = wire::LocalPort(listener_);
}

int FlServer::WaitForClients(const std::function<void(const std::string&)>& log) {
  const auto deadline = After(options_.join_timeout_s);
  // Every hello through the shared acceptor (core/handshake_acceptor.h): one deadline per
  // connection for its whole hello (hello_timeout_s), never blocked by one peer, so a slow or
  // silent connection cannot hold the join past join_timeout_s.
  wire::HandshakeOptions handshake;
  handshake.header_bytes = wire::kHeaderBytes;
  handshake.timeout_s = options_.hello_timeout_s;
  handshake.max_pending = options_.max_pending;
  handshake.busy_reply =
      wire::EncodeMessage(wire::Message{wire::MessageType::kBusy, 0, 0, {}}, wire::Token{});
  int logged = 0;
  wire::HandshakeAcceptor acceptor(std::move(listener_), handshake,
                                   [&](const std::string& peer, const std::string& why) {
                                     if (++logged <= 20) {
                                       log("refused a connection: " + why + " (from " + peer + ")");
                                     }
                                   });
  const std::string refusal =
      wire::EncodeMessage(wire::Message{wire::MessageType::kError, 0, 0, {}}, wire::Token{});
  while (connected() < options_.expected_clients) {
    const double left = SecondsUntil(deadline);
    if (left <= 0) break;
    for (wire::Handshake& h : acceptor.Poll(
             std::chrono::milliseconds(static_cast<int64_t>(std::min(left, 0.2) * 1000) + 1))) {
      std::string why;
      const int client = Judge(h.header.data(), &why);
      if (client < 0) {
        acceptor.Refuse(h, why, refusal);
        continue;
      }
      try {
        wire::SendMessage(
            h.socket.fd(),
            wire::Message{wire::MessageType::kWelcome, static_cast<uint32_t>(client), 0, {}},
            options_.token);
      } catch (const std::exception& e) {
        acceptor.Refuse(h, std::string("gone before its welcome: ") + e.what());
        continue;
      }
      clients_[client] = std::move(h.socket);
      log("client " + std::to_string(client) + " joined (" + std::to_string(connected()) + "/" +
          std::to_string(options_.expected_clients) + ")");
    }
  }
  acceptor.Close("the join is over");  // later connections are refused by the kernel
  return connected();
}

// The token before anything else; -1 with *why when the hello is refused.
int FlServer::Judge(const uint8_t* bytes, std::string* why) const {
  wire::Header header;
  try {
    header = wire::DecodeHeader(bytes);
  } catch (const wire::ProtocolError& e) {
    *why = e.what();
    return -1;
  }
  if (!wire::SameToken(header.token, options_.token)) {
    *why = "wrong token";
  } else if (header.type != wire::MessageType::kHello) {
    *why = std::string("expected hello, got ") + wire::MessageTypeName(header.type);
  } else if (header.count != 0) {
    *why = "hello message of " + std::to_string(header.count) + " floats, expected at most 0";
  } else if (header.step != kFlProtocolVersion) {
    *why = "protocol version " + std::to_string(header.step) + ", expected " +
           std::to_string(kFlProtocolVersion);
  } else if (header.rank >= static_cast<uint32_t>(population_)) {
    *why = "client index " + std::to_string(header.rank) + " outside the population of " +
           std::to_string(population_);
  } else if (clients_.count(static_cast<int>(header.rank)) > 0) {
    *why = "client " + std::to_string(header.rank) + " is already connected";
  } else {
    return static_cast<int>(header.rank);
  }
  return -1;
}

void FlServer::Drop(int client, const std::string& why,
                    const std::function<void(const std::string&)>& log) {
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  clients_.erase(it);
  log("client " + std::to_string(client) + " dropped: " + why);
}

CohortUpdates FlServer::Train(int round, const torch::Tensor& global,
                              const std::vector<int>& clients,
                              const std::function<void(const std::string&)>& log) {
  CohortUpdates result;
  const torch::Tensor weights = global.contiguous();
  std::vector<float> message(weights.data_ptr<float>(),
                             weights.data_ptr<float>() + weights.numel());
  const LocalTrainOptions local = RoundTrainOptions(local_, round);
  message.push_back(static_cast<float>(local.local_steps));
  message.push_back(static_cast<float>(local.batch));
  message.push_back(static_cast<float>(local.lr));
  message.push_back(static_cast<float>(local.prox_mu));
  message.push_back(static_cast<float>(local.momentum));
  message.push_back(static_cast<float>(local.weight_decay));
  std::vector<int> asked;
  for (int c : clients) {
    auto it = clients_.find(c);
    if (it == clients_.end()) {
      result.lost.push_back(c);
      continue;
    }
    try {
      wire::SendFloats(it->second.fd(), wire::MessageType::kParams, static_cast<uint32_t>(c),
                       static_cast<uint64_t>(round), message.data(), message.size(),
                       options_.token);
      asked.push_back(c);
    } catch (const std::exception& e) {
      result.lost.push_back(c);
      Drop(c, std::string("sending the model: ") + e.what(), log);
    }
  }
  const auto deadline = After(options_.round_timeout_s);
  const uint64_t expected = static_cast<uint64_t>(num_weights_) + kFlPushTail;
  for (int c : asked) {
    const int fd = clients_.at(c).fd();
    try {
      wire::SetReceiveTimeout(fd, std::max(0.001, SecondsUntil(deadline)));
      wire::Message push = wire::ReceiveMessage(fd, options_.token, expected);
      if (push.type != wire::MessageType::kPush || push.step != static_cast<uint64_t>(round) ||
          push.data.size() != expected) {
        throw wire::ProtocolError(
            std::string("expected the round's push of ") + std::to_string(expected) +
            " floats, got " + wire::MessageTypeName(push.type) + " for round " +
            std::to_string(push.step) + " with " + std::to_string(push.data.size()));
      }
      LocalUpdate update;
      update.samples = static_cast<int>(push.data[num_weights_]);
      update.loss = push.data[num_weights_ + 1];
      if (update.samples < 1 || !std::isfinite(update.loss)) {
        throw wire::ProtocolError("push with " + std::to_string(update.samples) +
                                  " samples and loss " + std::to_string(update.loss));
      }
      push.data.resize(num_weights_);
      update.weights = torch::from_blob(push.data.data(), {num_weights_}, torch::kFloat32).clone();
      result.trained.push_back(c);
      result.updates.push_back(std::move(update));
    } catch (const wire::ProtocolError& e) {
      SendError(fd, static_cast<uint32_t>(c), options_.token);
      result.lost.push_back(c);
      Drop(c, std::string("protocol error: ") + e.what(), log);
    } catch (const std::exception& e) {
      result.lost.push_back(c);
      Drop(c, e.what(), log);
    }
  }
  return result;
}

void FlServer::Finish() {
  for (auto& [client, socket] : clients_) {
    try {
      wire::SendMessage(
          socket.fd(), wire::Message{wire::MessageType::kBye, static_cast<uint32_t>(client), 0, {}},
          options_.token);
    } catch (const std::exception&) {
      // Gone already; nothing to tell it.
    }
  }
  clients_.clear();
}

int RunFlClient(const FederatedData& data, const std::string& model_name,
                const FlClientOptions& options,
                const std::function<void(const std::string&)>& log) {
  if (options.client < 0 || options.client >= static_cast<int>(data.clients.size())) {
    throw std::invalid_argument("client index outside the population");
  }
  FlModel model(model_name, data.height, data.width, data.classes, options.seed);
  const int64_t num_weights = model.num_weights();
  const uint64_t expected = static_cast<uint64_t>(num_weights) + kFlParamsTail;
  wire::Socket socket = wire::HelloWithRetry(
      options.host, options.port, options.connect_timeout_s,
      wire::Message{
          wire::MessageType::kHello, static_cast<uint32_t>(options.client), kFlProtocolVersion, {}},
      options.token, "joining the fl server " + options.host + ":" + std::to_string(options.port));
  wire::SetReceiveTimeout(socket.fd(), options.idle_timeout_s);
  int rounds = 0;
  while (true) {
    wire::Message message = wire::ReceiveMessage(socket.fd(), options.token, expected);
    if (message.type == wire::MessageType::kBye) return rounds;
    if (message.type == wire::MessageType::kError) {
      throw std::runtime_error("the server refused this client (kError)");
    }
    if (message.type != wire::MessageType::kParams || message.data.size() != expected) {
      throw wire::ProtocolError(std::string("expected params of ") + std::to_string(expected) +
                                " floats, got " + wire::MessageTypeName(message.type) + " with " +
                                std::to_string(message.data.size()));
    }
    if (options.die_after_rounds > 0 && rounds >= options.die_after_rounds) {
      log("fault injection: killing myself in round " + std::to_string(message.step));
      std::raise(SIGKILL);
    }
    LocalTrainOptions local;
    local.local_steps = static_cast<int>(message.data[num_weights]);
    local.batch = static_cast<int>(message.data[num_weights + 1]);
    local.lr = message.data[num_weights + 2];
    local.prox_mu = message.data[num_weights + 3];
    local.momentum = message.data[num_weights + 4];
    local.weight_decay = message.data[num_weights + 5];
    if (local.local_steps < 1 || local.local_steps > 1000000 || local.batch < 1 ||
        local.batch > 1000000 || !(local.lr > 0) || !(local.prox_mu >= 0) ||
        !(local.momentum >= 0 && local.momentum < 1) || !(local.weight_decay >= 0) ||
        !std::isfinite(local.lr) || !std::isfinite(local.prox_mu) ||
        !std::isfinite(local.weight_decay)) {
      throw wire::ProtocolError("params with invalid local-training options");
    }
    const int round = static_cast<int>(message.step);
    const torch::Tensor global =
        torch::from_blob(message.data.data(), {num_weights}, torch::kFloat32).clone();
    const LocalUpdate update =
        TrainLocally(model, global, data, data.clients[options.client], local,
                     LocalTrainingSeed(options.seed, round, options.client));
    const torch::Tensor weights = update.weights.contiguous();
    std::vector<float> push(weights.data_ptr<float>(), weights.data_ptr<float>() + num_weights);
    push.push_back(static_cast<float>(update.samples));
    push.push_back(static_cast<float>(update.loss));
    wire::SendFloats(socket.fd(), wire::MessageType::kPush, static_cast<uint32_t>(options.client),
                     message.step, push.data(), push.size(), options.token);
    ++rounds;
    log("round " + std::to_string(round) + " trained, loss " + std::to_string(update.loss));
  }
}

}  // namespace jigsaw
