#include "ps/server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "core/handshake_acceptor.h"
#include "core/output.h"
#include "core/socket.h"
#include "core/wire_message.h"
#include "ps/aggregator.h"

namespace jigsaw::ps {

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

namespace {

using Clock = std::chrono::steady_clock;

// The first non-finite value, or -1.
long FirstNonFinite(const std::vector<float>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) return static_cast<long>(i);
  }
  return -1;
}

class Server {
 public:
  explicit Server(const ServerOptions& options)
      : options_(options),
        aggregator_(options.workers, options.lr, options.momentum),
        expected_floats_(options.max_parameters) {}

  ServerStats Run() {
    wire::Socket listener = wire::ListenTcp(options_.host, options_.port, 128);
    stats_.port = wire::LocalPort(listener);
    stats_.workers = options_.workers;
    if (options_.on_listening) options_.on_listening(stats_.port);
    if (!options_.quiet) {
      std::fprintf(stderr, "jigsaw: ps %s: listening on %s:%d for %d workers\n",
                   options_.job.c_str(), options_.host.c_str(), stats_.port, options_.workers);
    }
    try {
      AcceptWorkers(std::move(listener));  // closed once every worker joined
    } catch (const std::exception& e) {
      throw std::runtime_error("ps " + options_.job + ": " + e.what());
    }
    if (!options_.quiet) {
      std::fprintf(stderr, "jigsaw: ps %s: all %d workers joined; no longer listening\n",
                   options_.job.c_str(), options_.workers);
    }

    std::vector<std::thread> threads;
    for (int rank = 0; rank < options_.workers; ++rank) {
      threads.emplace_back([this, rank] { Serve(rank); });
    }
    for (auto& thread : threads) thread.join();
    if (!failure_.empty()) {
      throw std::runtime_error("ps " + options_.job + ": " + failure_);
    }
    stats_.steps = aggregator_.version();
    stats_.parameters = aggregator_.parameters().size();
    stats_.final_parameters = aggregator_.parameters();
    if (!options_.out.empty()) WriteStats();
    return stats_;
  }

 private:
  // Logs a connection that is not one of this job's workers (the acceptor closes it); the job
  // goes on.
  void LogRefusal(const std::string& peer, const std::string& why) {
    ++stats_.refused_connections;
    if (!options_.quiet && stats_.refused_connections <= kLoggedRefusals) {
      std::fprintf(
          stderr, "jigsaw: ps %s: refused a connection from %s: %s%s\n", options_.job.c_str(),
          peer.c_str(), why.c_str(),
          stats_.refused_connections == kLoggedRefusals ? " (further ones not logged)" : "");
    }
  }

  // Judges a complete hello: the token before anything else. Returns the rank it joins as, or -1
  // with *why when refused; throws when a worker of this job (right token) is misconfigured.
  int Judge(const wire::Handshake& handshake, std::string* why) {
    wire::Header header;
    try {
      header = wire::DecodeHeader(handshake.header.data());
    } catch (const wire::ProtocolError& e) {
      *why = e.what();
      return -1;
    }
    if (!wire::SameToken(header.token, options_.token)) {
      *why = "wrong token";
      return -1;
    }
    if (header.type != wire::MessageType::kHello || header.count != 0) {
      *why = std::string("expected hello, got ") + wire::MessageTypeName(header.type);
      return -1;
    }
    if (header.step != static_cast<uint64_t>(options_.workers)) {
      throw std::runtime_error("worker " + std::to_string(header.rank) + " expects " +
                               std::to_string(header.step) + " workers, this job has " +
                               std::to_string(options_.workers));
    }
    if (header.rank >= static_cast<uint32_t>(options_.workers) ||
        connections_[header.rank].valid()) {
      throw std::runtime_error("worker rank " + std::to_string(header.rank) +
                               " is out of range or already connected");
    }
    return static_cast<int>(header.rank);
  }

  // Every handshake goes through the shared acceptor (core/handshake_acceptor.h): one deadline per
  // connection for its whole hello, never blocked by one peer, the oldest pending handshake
  // evicted (told kBusy) when max_pending are in progress.
  void AcceptWorkers(wire::Socket listener) {
    connections_.resize(static_cast<size_t>(options_.workers));
    wire::HandshakeOptions handshake;
    handshake.header_bytes = wire::kHeaderBytes;
    handshake.timeout_s = options_.handshake_timeout_s;
    handshake.max_pending = options_.max_pending;
    handshake.busy_reply =
        wire::EncodeMessage(wire::Message{wire::MessageType::kBusy, 0, 0, {}}, wire::Token{});
    wire::HandshakeAcceptor acceptor(
        std::move(listener), handshake,
        [this](const std::string& peer, const std::string& why) { LogRefusal(peer, why); });
    const std::string refusal =
        wire::EncodeMessage(wire::Message{wire::MessageType::kError, 0, 0, {}}, wire::Token{});
    const Clock::time_point give_up =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(options_.timeout_s));
    int joined = 0;
    while (joined < options_.workers) {
      for (wire::Handshake& h : acceptor.Poll(std::chrono::milliseconds(200))) {
        std::string why;
        int rank = -1;
        try {
          rank = Judge(h, &why);
        } catch (const std::exception& e) {
          // A worker of this job that is misconfigured fails the job; it hears so at once.
          acceptor.Refuse(h, e.what(), refusal);
          throw;
        }
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
        wire::SetReceiveTimeout(h.socket.fd(), options_.timeout_s);
        connections_[rank] = std::move(h.socket);
        ++joined;
      }
      if (joined < options_.workers && Clock::now() >= give_up) {
        throw std::runtime_error(std::to_string(joined) + " of " +
                                 std::to_string(options_.workers) + " workers joined within " +
                                 FormatFixed(options_.timeout_s, 1) + " s");
      }
    }
    acceptor.Close("the job is complete");  // later connections are refused by the kernel
  }

  void Fail(const std::string& reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure_.empty()) failure_ = reason;
    changed_.notify_all();
  }

  void Serve(int rank) {
    const int fd = connections_[rank].fd();
    try {
      while (true) {
        wire::Message message = wire::ReceiveMessage(fd, options_.token, expected_floats_.load());
        AddBytesReceived(wire::kHeaderBytes + message.data.size() * sizeof(float));
        if (message.type == wire::MessageType::kBye) break;
        if (!Handle(rank, message)) break;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      stats_.end_wall_s = WallSeconds();
      return;
    } catch (const wire::ConnectionClosed&) {
      Fail("worker " + std::to_string(rank) + " disconnected before finishing");
    } catch (const std::exception& e) {
      Fail("worker " + std::to_string(rank) + ": " + e.what());
    }
    // Tell this worker (only its own thread writes to its socket), then close every connection:
    // that wakes the threads blocked in recv and the other workers see the job end.
    try {
      wire::SendMessage(
          fd, wire::Message{wire::MessageType::kError, static_cast<uint32_t>(rank), 0, {}},
          options_.token);
    } catch (...) {
    }
    for (auto& connection : connections_) connection.Shutdown();
  }

  void AddBytesReceived(uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.bytes_received += bytes;
  }

  // Returns false when the job failed meanwhile.
  bool Handle(int rank, const wire::Message& message) {
    if (message.type != wire::MessageType::kInit && message.type != wire::MessageType::kPush &&
        !message.data.empty()) {
      throw std::runtime_error(std::string("unexpected payload in a ") +
                               wire::MessageTypeName(message.type) + " message");
    }
    switch (message.type) {
      case wire::MessageType::kInit: {
        std::lock_guard<std::mutex> lock(mutex_);
        if (rank != 0 || aggregator_.initialized()) {
          throw std::runtime_error("unexpected init (only worker 0 initializes, once)");
        }
        if (const long bad = FirstNonFinite(message.data); bad >= 0) {
          throw std::runtime_error("non-finite initial parameter " + std::to_string(bad) +
                                   " refused");
        }
        aggregator_.SetParameters(message.data);
        expected_floats_ = message.data.size();
        snapshot_ = std::make_shared<const std::vector<float>>(message.data);
        stats_.start_wall_s = WallSeconds();
        changed_.notify_all();
        return true;
      }
      case wire::MessageType::kPush: {
        if (const long bad = FirstNonFinite(message.data); bad >= 0) {
          throw std::runtime_error("non-finite gradient at step " + std::to_string(message.step) +
                                   " (element " + std::to_string(bad) + " is " +
                                   std::to_string(message.data[bad]) +
                                   ") refused: it would poison the model");
        }
        std::lock_guard<std::mutex> lock(mutex_);
        if (!failure_.empty()) return false;
        try {
          if (aggregator_.Push(rank, message.step, message.data)) {
            snapshot_ = std::make_shared<const std::vector<float>>(aggregator_.parameters());
            stats_.step_done_wall_s.push_back(WallSeconds());
            changed_.notify_all();
          }
        } catch (const std::invalid_argument& e) {
          throw std::runtime_error(e.what());
        }
        return true;
      }
      case wire::MessageType::kPull: {
        std::shared_ptr<const std::vector<float>> parameters;
        uint64_t version = 0;
        {
          std::unique_lock<std::mutex> lock(mutex_);
          const bool ready =
              changed_.wait_for(lock, std::chrono::duration<double>(options_.timeout_s), [&] {
                return !failure_.empty() ||
                       (aggregator_.initialized() && aggregator_.version() >= message.step);
              });
          if (!failure_.empty()) return false;
          if (!ready) {
            throw std::runtime_error("version " + std::to_string(message.step) +
                                     " not reached within " + std::to_string(options_.timeout_s) +
                                     " s (a worker stalled)");
          }
          parameters = snapshot_;
          version = aggregator_.version();
        }
        wire::SendFloats(connections_[rank].fd(), wire::MessageType::kParams,
                         static_cast<uint32_t>(rank), version, parameters->data(),
                         parameters->size(), options_.token);
        std::lock_guard<std::mutex> lock(mutex_);
        stats_.bytes_sent += wire::kHeaderBytes + parameters->size() * sizeof(float);
        return true;
      }
      default:
        throw std::runtime_error(std::string("unexpected ") + wire::MessageTypeName(message.type) +
                                 " message");
    }
  }

  void WriteStats() {
    Json json;
    json["job"] = options_.job;
    json["port"] = stats_.port;
    json["workers"] = stats_.workers;
    json["parameters"] = stats_.parameters;
    json["steps"] = stats_.steps;
    json["lr"] = RoundTo(options_.lr, 6);
    json["momentum"] = RoundTo(options_.momentum, 6);
    json["start_wall_s"] = stats_.start_wall_s;
    json["end_wall_s"] = stats_.end_wall_s;
    json["bytes_sent"] = stats_.bytes_sent;
    json["bytes_received"] = stats_.bytes_received;
    json["refused_connections"] = stats_.refused_connections;
    rusage usage{};  // this process's CPU so far (utime + stime, as /proc/PID/stat counts it)
    getrusage(RUSAGE_SELF, &usage);
    json["cpu_s"] =
        RoundTo(static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                    static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6,
                4);
    json["step_done_wall_s"] = stats_.step_done_wall_s;
    WriteJsonFile(options_.out, json);
  }

  static constexpr uint64_t kLoggedRefusals = 20;

  ServerOptions options_;
  SyncSgdAggregator aggregator_;
  // Largest payload accepted: max_parameters until kInit, then the model's size.
  std::atomic<uint64_t> expected_floats_{0};
  std::vector<wire::Socket> connections_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::shared_ptr<const std::vector<float>> snapshot_;
  std::string failure_;
  ServerStats stats_;
};

}  // namespace

ServerStats RunParameterServer(const ServerOptions& options) {
  if (options.workers < 1) throw std::invalid_argument("--workers must be >= 1");
  if (options.max_pending < 1) throw std::invalid_argument("max_pending must be >= 1");
  Server server(options);
  return server.Run();
}

}  // namespace jigsaw::ps
