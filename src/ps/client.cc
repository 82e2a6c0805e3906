#include "ps/client.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <stdexcept>

#include "core/handshake_client.h"
#include "core/wire_message.h"

namespace jigsaw::ps {

PsClient::PsClient(const std::string& host, int port, int rank, int workers, double timeout_s,
                   const wire::Token& token)
    : rank_(rank), token_(token) {
  if (!(timeout_s > 0)) throw std::invalid_argument("the timeout must be positive");
  const wire::Message hello{
      wire::MessageType::kHello, static_cast<uint32_t>(rank), static_cast<uint64_t>(workers), {}};
  socket_ =
      wire::HelloWithRetry(host, port, timeout_s, hello, token,
                           "joining the parameter server " + host + ":" + std::to_string(port));
  bytes_sent_ += wire::kHeaderBytes;
  bytes_received_ += wire::kHeaderBytes;
  wire::SetReceiveTimeout(socket_.fd(), timeout_s);
}

void PsClient::Send(const wire::Message& message) {
  wire::SendMessage(socket_.fd(), message, token_);
  bytes_sent_ += wire::kHeaderBytes + message.data.size() * sizeof(float);
}

void PsClient::Init(const std::vector<float>& parameters) {
  Send(wire::Message{wire::MessageType::kInit, static_cast<uint32_t>(rank_), 0, parameters});
}

void PsClient::Push(uint64_t step, const std::vector<float>& gradient) {
  Send(wire::Message{wire::MessageType::kPush, static_cast<uint32_t>(rank_), step, gradient});
}

std::vector<float> PsClient::Pull(uint64_t version) {
  Send(wire::Message{wire::MessageType::kPull, static_cast<uint32_t>(rank_), version, {}});
  wire::Message reply;
  try {
    reply = wire::ReceiveMessage(socket_.fd(), token_, model_floats_);
  } catch (const wire::ConnectionClosed&) {
    throw std::runtime_error("the parameter server closed the connection (the job failed)");
  } catch (const std::runtime_error& e) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      throw std::runtime_error("no reply from the parameter server in time (pull of version " +
                               std::to_string(version) + ")");
    }
    throw;
  }
  bytes_received_ += wire::kHeaderBytes + reply.data.size() * sizeof(float);
  if (reply.type == wire::MessageType::kError) {
    throw std::runtime_error("the parameter server reported that the job failed");
  }
  if (reply.type != wire::MessageType::kParams || reply.step < version) {
    throw std::runtime_error(std::string("unexpected reply to pull: ") +
                             wire::MessageTypeName(reply.type) + " version " +
                             std::to_string(reply.step));
  }
  model_floats_ = reply.data.size();
  return std::move(reply.data);
}

void PsClient::Bye() {
  Send(wire::Message{wire::MessageType::kBye, static_cast<uint32_t>(rank_), 0, {}});
}

}  // namespace jigsaw::ps
