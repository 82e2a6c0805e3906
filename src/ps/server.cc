#include "ps/server.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "core/output.h"
#include "ps/aggregator.h"
#include "ps/message.h"
#include "ps/socket.h"

namespace jigsaw::ps {

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

namespace {

void SetReceiveTimeout(int fd, double seconds) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(seconds);
  tv.tv_usec = static_cast<suseconds_t>((seconds - static_cast<double>(tv.tv_sec)) * 1e6);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

class Server {
 public:
  explicit Server(const ServerOptions& options)
      : options_(options), aggregator_(options.workers, options.lr, options.momentum) {}

  ServerStats Run() {
    Socket listener = ListenTcp(options_.host, options_.port, options_.workers + 4);
    stats_.port = LocalPort(listener);
    stats_.workers = options_.workers;
    if (options_.on_listening) options_.on_listening(stats_.port);
    if (!options_.quiet) {
      std::fprintf(stderr, "jigsaw: ps %s: listening on %s:%d for %d workers\n",
                   options_.job.c_str(), options_.host.c_str(), stats_.port, options_.workers);
    }
    AcceptWorkers(listener);
    listener = Socket();

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
  void AcceptWorkers(const Socket& listener) {
    connections_.resize(static_cast<size_t>(options_.workers));
    for (int accepted = 0; accepted < options_.workers; ++accepted) {
      Socket socket = AcceptTcp(listener, options_.timeout_s);
      SetReceiveTimeout(socket.fd(), options_.timeout_s);
      Message hello = ReceiveMessage(socket.fd());
      if (hello.type != MessageType::kHello) {
        throw std::runtime_error(std::string("expected hello, got ") + MessageTypeName(hello.type));
      }
      if (hello.step != static_cast<uint64_t>(options_.workers)) {
        throw std::runtime_error("worker " + std::to_string(hello.rank) + " expects " +
                                 std::to_string(hello.step) + " workers, this job has " +
                                 std::to_string(options_.workers));
      }
      if (hello.rank >= static_cast<uint32_t>(options_.workers) ||
          connections_[hello.rank].valid()) {
        throw std::runtime_error("worker rank " + std::to_string(hello.rank) +
                                 " is out of range or already connected");
      }
      connections_[hello.rank] = std::move(socket);
    }
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
        Message message = ReceiveMessage(fd);
        AddBytesReceived(kHeaderBytes + message.data.size() * sizeof(float));
        if (message.type == MessageType::kBye) break;
        if (!Handle(rank, message)) break;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      stats_.end_wall_s = WallSeconds();
      return;
    } catch (const ConnectionClosed&) {
      Fail("worker " + std::to_string(rank) + " disconnected before finishing");
    } catch (const std::exception& e) {
      Fail("worker " + std::to_string(rank) + ": " + e.what());
    }
    // Tell this worker (only its own thread writes to its socket), then close every connection:
    // that wakes the threads blocked in recv and the other workers see the job end.
    try {
      SendMessage(fd, Message{MessageType::kError, static_cast<uint32_t>(rank), 0, {}});
    } catch (...) {
    }
    for (auto& connection : connections_) connection.Shutdown();
  }

  void AddBytesReceived(uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.bytes_received += bytes;
  }

  // Returns false when the job failed meanwhile.
  bool Handle(int rank, const Message& message) {
    switch (message.type) {
      case MessageType::kInit: {
        std::lock_guard<std::mutex> lock(mutex_);
        if (rank != 0 || aggregator_.initialized()) {
          throw std::runtime_error("unexpected init (only worker 0 initializes, once)");
        }
        aggregator_.SetParameters(message.data);
        snapshot_ = std::make_shared<const std::vector<float>>(message.data);
        stats_.start_wall_s = WallSeconds();
        changed_.notify_all();
        return true;
      }
      case MessageType::kPush: {
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
      case MessageType::kPull: {
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
        Message reply{MessageType::kParams, static_cast<uint32_t>(rank), version, *parameters};
        SendMessage(connections_[rank].fd(), reply);
        std::lock_guard<std::mutex> lock(mutex_);
        stats_.bytes_sent += kHeaderBytes + reply.data.size() * sizeof(float);
        return true;
      }
      default:
        throw std::runtime_error(std::string("unexpected ") + MessageTypeName(message.type) +
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
    json["step_done_wall_s"] = stats_.step_done_wall_s;
    WriteJsonFile(options_.out, json);
  }

  ServerOptions options_;
  SyncSgdAggregator aggregator_;
  std::vector<Socket> connections_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::shared_ptr<const std::vector<float>> snapshot_;
  std::string failure_;
  ServerStats stats_;
};

}  // namespace

ServerStats RunParameterServer(const ServerOptions& options) {
  if (options.workers < 1) throw std::invalid_argument("--workers must be >= 1");
  Server server(options);
  return server.Run();
}

}  // namespace jigsaw::ps
