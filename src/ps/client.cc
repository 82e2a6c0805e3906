#include "ps/client.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <stdexcept>

#include "ps/handshake_client.h"
#include "ps/message.h"

namespace jigsaw::ps {

PsClient::PsClient(const std::string& host, int port, int rank, int workers, double timeout_s,
                   const Token& token)
    : rank_(rank), token_(token) {
  if (!(timeout_s > 0)) throw std::invalid_argument("the timeout must be positive");
  const Message hello{
      MessageType::kHello, static_cast<uint32_t>(rank), static_cast<uint64_t>(workers), {}};
  socket_ = HelloWithRetry(host, port, timeout_s, hello, token,
                           "joining the parameter server " + host + ":" + std::to_string(port));
  bytes_sent_ += kHeaderBytes;
  bytes_received_ += kHeaderBytes;
  SetReceiveTimeout(socket_.fd(), timeout_s);
}

void PsClient::Send(const Message& message) {
  SendMessage(socket_.fd(), message, token_);
  bytes_sent_ += kHeaderBytes + message.data.size() * sizeof(float);
}

void PsClient::Init(const std::vector<float>& parameters) {
  Send(Message{MessageType::kInit, static_cast<uint32_t>(rank_), 0, parameters});
}

void PsClient::Push(uint64_t step, const std::vector<float>& gradient) {
  Send(Message{MessageType::kPush, static_cast<uint32_t>(rank_), step, gradient});
}

std::vector<float> PsClient::Pull(uint64_t version) {
  Send(Message{MessageType::kPull, static_cast<uint32_t>(rank_), version, {}});
  Message reply;
  try {
    reply = ReceiveMessage(socket_.fd(), token_, model_floats_);
  } catch (const ConnectionClosed&) {
    throw std::runtime_error("the parameter server closed the connection (the job failed)");
  } catch (const std::runtime_error& e) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      throw std::runtime_error("no reply from the parameter server in time (pull of version " +
                               std::to_string(version) + ")");
    }
    throw;
  }
  bytes_received_ += kHeaderBytes + reply.data.size() * sizeof(float);
  if (reply.type == MessageType::kError) {
    throw std::runtime_error("the parameter server reported that the job failed");
  }
  if (reply.type != MessageType::kParams || reply.step < version) {
    throw std::runtime_error(std::string("unexpected reply to pull: ") +
                             MessageTypeName(reply.type) + " version " +
                             std::to_string(reply.step));
  }
  model_floats_ = reply.data.size();
  return std::move(reply.data);
}

void PsClient::Bye() { Send(Message{MessageType::kBye, static_cast<uint32_t>(rank_), 0, {}}); }

}  // namespace jigsaw::ps
