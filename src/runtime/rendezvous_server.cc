#include "runtime/rendezvous_server.h"

#include <sys/socket.h>

#include <cstdio>

#include "core/handshake_acceptor.h"

namespace jigsaw {

RendezvousServer::RendezvousServer(const RendezvousServerOptions& options,
                                   std::shared_ptr<RendezvousKeys> keys)
    : options_(options), keys_(std::move(keys)), connections_(options.world) {
  wire::Socket listener = wire::ListenTcp(options_.host, options_.port, 128);
  port_ = wire::LocalPort(listener);
  acceptor_ = std::thread([this, l = std::make_shared<wire::Socket>(std::move(listener))] {
    AcceptLoop(std::move(*l));
  });
}

RendezvousServer::~RendezvousServer() {
  stopping_ = true;
  keys_->Stop();
  if (acceptor_.joinable()) acceptor_.join();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (wire::Socket& s : connections_) s.Shutdown();  // wakes the threads blocked in recv
  }
  for (std::thread& t : threads_) t.join();
}

int RendezvousServer::Judge(const std::vector<uint8_t>& bytes, std::string* why) {
  wire::Header header;
  try {
    header = wire::DecodeHeader(bytes.data());
  } catch (const wire::ProtocolError& e) {
    *why = e.what();
    return -1;
  }
  if (!wire::SameToken(header.token, options_.token)) {
    *why = "wrong token";
  } else if (header.type != wire::MessageType::kHello || header.count != 0) {
    *why = std::string("expected hello, got ") + wire::MessageTypeName(header.type);
  } else if (header.step != static_cast<uint64_t>(options_.world)) {
    *why = "a rank of a " + std::to_string(header.step) + "-rank job; this one has " +
           std::to_string(options_.world);
  } else if (header.rank < 1 || header.rank >= static_cast<uint32_t>(options_.world)) {
    *why =
        "rank " + std::to_string(header.rank) + " outside 1.." + std::to_string(options_.world - 1);
  } else if (connections_[header.rank].valid()) {
    *why = "rank " + std::to_string(header.rank) + " is already connected";
  } else {
    return static_cast<int>(header.rank);
  }
  return -1;
}

void RendezvousServer::AcceptLoop(wire::Socket listener) {
  wire::HandshakeOptions handshake;
  handshake.header_bytes = wire::kHeaderBytes;
  handshake.timeout_s = options_.handshake_timeout_s;
  handshake.max_pending = options_.max_pending;
  handshake.busy_reply =
      wire::EncodeMessage(wire::Message{wire::MessageType::kBusy, 0, 0, {}}, wire::Token{});
  wire::HandshakeAcceptor acceptor(
      std::move(listener), handshake, [this](const std::string& peer, const std::string& why) {
        if (++refused_ > 20) return;
        const std::string line = "rendezvous refused " + peer + ": " + why;
        if (options_.log) {
          options_.log(line);
        } else {
          std::fprintf(stderr, "jigsaw: train: %s\n", line.c_str());
        }
      });
  const std::string refusal =
      wire::EncodeMessage(wire::Message{wire::MessageType::kError, 0, 0, {}}, wire::Token{});
  int joined = 0;
  while (!stopping_ && joined < options_.world - 1) {
    for (wire::Handshake& h : acceptor.Poll(std::chrono::milliseconds(100))) {
      std::lock_guard<std::mutex> lock(mutex_);
      std::string why;
      const int rank = Judge(h.header, &why);
      if (rank < 0) {
        acceptor.Refuse(h, why, refusal);
        continue;
      }
      try {
        wire::SendMessage(
            h.socket.fd(),
            wire::Message{wire::MessageType::kWelcome, static_cast<uint32_t>(rank), 0, {}},
            options_.token);
      } catch (const std::exception& e) {
        acceptor.Refuse(h, std::string("gone before its welcome: ") + e.what());
        continue;
      }
      const int fd = h.socket.fd();
      connections_[rank] = std::move(h.socket);
      ++joined;
      threads_.emplace_back([this, rank, fd] { Serve(rank, fd); });
    }
  }
  acceptor.Close(stopping_ ? "the rendezvous is shutting down" : "every rank has connected");
}

void RendezvousServer::Serve(int rank, int fd) {
  try {
    uint32_t op = 0;
    RendezvousArgs args;
    while (!stopping_ && ReadRendezvousFrame(fd, &op, &args)) {
      const RendezvousKeys::Result result = keys_->Execute(op, args);
      WriteRendezvousFrame(fd, result.status, result.args);
    }
  } catch (const std::exception& e) {
    if (!stopping_ && options_.log)
      options_.log("rendezvous: rank " + std::to_string(rank) + ": " + e.what());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  connections_[rank].Shutdown();
}

}  // namespace jigsaw
