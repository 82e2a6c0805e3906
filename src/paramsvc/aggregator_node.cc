#include "paramsvc/aggregator_node.h"

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
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "core/handshake_acceptor.h"
#include "core/socket.h"
#include "core/wire_message.h"
#include "paramsvc/control.h"
#include "paramsvc/shard_sgd.h"
#include "ps/server.h"

namespace jigsaw::paramsvc {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

long FirstNonFinite(const std::vector<float>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) return static_cast<long>(i);
  }
  return -1;
}

// The aggregator's side of the control connection; shards' threads send through it too.
class ControlLink {
 public:
  ControlLink(wire::Socket socket, const wire::Token& token)
      : socket_(std::move(socket)), token_(token) {}
  int fd() const { return socket_.fd(); }
  // Errors are swallowed: a lost coordinator ends the process through the control loop.
  void Send(const ControlFrame& frame) {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      SendControl(socket_.fd(), frame, token_);
    } catch (const std::exception&) {
    }
  }
  void Shutdown() { socket_.Shutdown(); }

 private:
  wire::Socket socket_;
  wire::Token token_;
  std::mutex mutex_;
};

struct ShardSpec {
  uint64_t shard = 0;
  uint64_t instance = 0;
  std::string job;
  int index = 0;
  int workers = 1;
  float lr = 0.05f;
  float momentum = 0;
  wire::Token token{};
  uint64_t count = 0;
  uint64_t snapshot_every = 10;
};

ControlFrame StateFrame(const std::string& op, const ShardSpec& spec, const ShardState& state) {
  ControlFrame frame = MakeFrame(op);
  frame.body["shard"] = spec.shard;
  frame.body["instance"] = spec.instance;
  frame.body["version"] = state.version;
  frame.body["initialized"] = state.initialized;
  frame.floats.reserve(2 * state.parameters.size());
  frame.floats.insert(frame.floats.end(), state.parameters.begin(), state.parameters.end());
  frame.floats.insert(frame.floats.end(), state.velocity.begin(), state.velocity.end());
  return frame;
}

class HostedShard : public std::enable_shared_from_this<HostedShard> {
 public:
  enum Phase { kServing, kFrozen, kClosed, kFailed, kDone };

  HostedShard(const ShardSpec& spec, ShardState state, std::shared_ptr<ControlLink> control,
              const AggregatorNodeOptions& options)
      : spec_(spec),
        options_(options),
        control_(std::move(control)),
        sgd_(spec.workers, spec.lr, spec.momentum),
        connections_(static_cast<size_t>(spec.workers), -1) {
    if (state.initialized) {
      sgd_.Restore(std::move(state));
      params_ = std::make_shared<const std::vector<float>>(sgd_.parameters());
    }
  }

  int Start() {
    listener_ = wire::ListenTcp(options_.bind, 0, options_.max_pending);
    const int port = wire::LocalPort(listener_);
    ++threads_;
    std::thread([self = shared_from_this()] { self->AcceptLoop(); }).detach();
    return port;
  }

  void RequestMigration(uint64_t at) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (phase_ != kServing) return;
    migrate_requested_ = true;
    migrate_at_ = at;
    std::optional<ShardState> state = MaybeFreeze();
    lock.unlock();
    if (state) control_->Send(StateFrame("state", spec_, *state));
  }

  void Drop() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (phase_ == kServing || phase_ == kFrozen) phase_ = kClosed;
    ShutdownAll();
  }

  Json Report() {
    std::lock_guard<std::mutex> lock(mutex_);
    Json json;
    json["shard"] = spec_.shard;
    json["instance"] = spec_.instance;
    json["version"] = sgd_.version();
    json["initialized"] = sgd_.initialized();
    json["phase"] = static_cast<int>(phase_);
    json["cpu_s"] = static_cast<double>(cpu_ns_.load()) * 1e-9;
    json["refused"] = refused_.load();
    json["discarded_pushes"] = discarded_;
    return json;
  }

  // No longer serving and every thread has left: the node may forget it.
  bool Finished() {
    std::lock_guard<std::mutex> lock(mutex_);
    return phase_ != kServing && threads_ == 0;
  }

  uint64_t id() const { return spec_.shard; }

 private:
  void ShutdownAll() {
    accepting_ = false;
    for (int fd : connections_) {
      if (fd >= 0) shutdown(fd, SHUT_RDWR);
    }
    changed_.notify_all();
  }

  void LogRefusal(const std::string& peer, const std::string& why) {
    const uint64_t count = ++refused_;
    if (!options_.quiet && count <= 10) {
      std::fprintf(stderr, "jigsaw: paramsvc-agg: shard %llu of %s refused %s: %s\n",
                   static_cast<unsigned long long>(spec_.shard), spec_.job.c_str(), peer.c_str(),
                   why.c_str());
    }
  }

  // The token first, then the hello; a worker that is taken gets kWelcome and its own thread.
  void Judge(wire::Handshake& h, wire::HandshakeAcceptor& acceptor) {
    static const std::string refusal =
        wire::EncodeMessage(wire::Message{wire::MessageType::kError, 0, 0, {}}, wire::Token{});
    wire::Header header;
    try {
      header = wire::DecodeHeader(h.header.data());
    } catch (const wire::ProtocolError& e) {
      return acceptor.Refuse(h, e.what());
    }
    if (!wire::SameToken(header.token, spec_.token)) {
      return acceptor.Refuse(h, "wrong token (not this job's)", refusal);
    }
    if (header.type != wire::MessageType::kHello || header.count != 0) {
      return acceptor.Refuse(
          h, std::string("expected hello, got ") + wire::MessageTypeName(header.type), refusal);
    }
    if (header.step != static_cast<uint64_t>(spec_.workers) ||
        header.rank >= static_cast<uint32_t>(spec_.workers)) {
      return acceptor.Refuse(h,
                             "rank " + std::to_string(header.rank) + " of " +
                                 std::to_string(header.step) + " workers; the job has " +
                                 std::to_string(spec_.workers),
                             refusal);
    }
    const int rank = static_cast<int>(header.rank);
    std::lock_guard<std::mutex> lock(mutex_);
    if (phase_ != kServing) {
      return acceptor.Refuse(h, "the shard is no longer served here", refusal);
    }
    if (connections_[rank] >= 0) return acceptor.Refuse(h, "rank already connected", refusal);
    try {
      wire::SendMessage(h.socket.fd(),
                        wire::Message{wire::MessageType::kWelcome, header.rank, 0, {}},
                        spec_.token);
    } catch (const std::exception& e) {
      return acceptor.Refuse(h, std::string("gone before its welcome: ") + e.what());
    }
    wire::SetReceiveTimeout(h.socket.fd(), options_.timeout_s);
    connections_[rank] = h.socket.fd();
    ++threads_;
    std::thread([self = shared_from_this(), rank, socket = std::move(h.socket)]() mutable {
      self->Serve(rank, std::move(socket));
    }).detach();
  }

  // Handshakes through the shared acceptor (core/handshake_acceptor.h), as a dedicated `jigsaw ps`.
  void AcceptLoop() {
    wire::HandshakeOptions handshake;
    handshake.header_bytes = wire::kHeaderBytes;
    handshake.timeout_s = options_.handshake_timeout_s;
    handshake.max_pending = options_.max_pending;
    handshake.busy_reply =
        wire::EncodeMessage(wire::Message{wire::MessageType::kBusy, 0, 0, {}}, wire::Token{});
    wire::HandshakeAcceptor acceptor(
        std::move(listener_), handshake,
        [this](const std::string& peer, const std::string& why) { LogRefusal(peer, why); });
    while (accepting_) {
      for (wire::Handshake& h : acceptor.Poll(std::chrono::milliseconds(50))) Judge(h, acceptor);
    }
    acceptor.Close("the shard stopped accepting");
    std::lock_guard<std::mutex> lock(mutex_);
    --threads_;
  }

  // With mutex_ held: freezes when a requested migration's boundary is reached.
  std::optional<ShardState> MaybeFreeze() {
    if (!migrate_requested_ || phase_ != kServing || !sgd_.initialized() || sgd_.pending() != 0 ||
        (migrate_at_ != 0 && sgd_.version() < migrate_at_)) {
      return std::nullopt;
    }
    phase_ = kFrozen;
    accepting_ = false;
    changed_.notify_all();
    return sgd_.Export();
  }

  // With mutex_ held.
  void FailJob(const std::string& reason) {
    if (phase_ != kServing) return;
    phase_ = kFailed;
    failure_ = reason;
    ShutdownAll();
    ControlFrame frame = MakeFrame("job_failed");
    frame.body["shard"] = spec_.shard;
    frame.body["instance"] = spec_.instance;
    frame.body["reason"] = reason;
    control_->Send(frame);
  }

  void Serve(int rank, wire::Socket socket) {
    const int fd = socket.fd();
    uint64_t cpu_mark = ThreadCpuNs();
    bool tell_error = false;
    try {
      while (true) {
        wire::Message message = wire::ReceiveMessage(fd, spec_.token, spec_.count);
        const bool more = Handle(rank, fd, message);
        const uint64_t now = ThreadCpuNs();
        cpu_ns_ += now - cpu_mark;
        cpu_mark = now;
        if (!more) break;
      }
    } catch (const wire::ConnectionClosed&) {
      std::lock_guard<std::mutex> lock(mutex_);
      FailJob("worker " + std::to_string(rank) + " of " + spec_.job +
              " disconnected before finishing");
      tell_error = phase_ == kFailed;
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(mutex_);
      FailJob("worker " + std::to_string(rank) + " of " + spec_.job + ": " + e.what());
      tell_error = phase_ == kFailed;
    }
    if (tell_error) {
      try {
        wire::SendMessage(
            fd, wire::Message{wire::MessageType::kError, static_cast<uint32_t>(rank), 0, {}},
            spec_.token);
      } catch (...) {
      }
    }
    cpu_ns_ += ThreadCpuNs() - cpu_mark;
    std::lock_guard<std::mutex> lock(mutex_);
    if (connections_[rank] == fd) connections_[rank] = -1;
    --threads_;
  }

  // Returns false when this connection is over.
  bool Handle(int rank, int fd, const wire::Message& message) {
    using wire::MessageType;
    switch (message.type) {
      case MessageType::kInit: {
        if (rank != 0 || message.data.size() != spec_.count) {
          throw std::runtime_error("init from worker " + std::to_string(rank) + " with " +
                                   std::to_string(message.data.size()) + " values (expected " +
                                   "worker 0 with " + std::to_string(spec_.count) + ")");
        }
        if (const long bad = FirstNonFinite(message.data); bad >= 0) {
          throw std::runtime_error("non-finite initial parameter refused");
        }
        std::unique_lock<std::mutex> lock(mutex_);
        if (phase_ != kServing) return false;
        if (sgd_.initialized()) throw std::runtime_error("a second init");
        sgd_.SetParameters(message.data);
        params_ = std::make_shared<const std::vector<float>>(sgd_.parameters());
        ShardState state = sgd_.Export();
        changed_.notify_all();
        lock.unlock();
        control_->Send(StateFrame("snapshot", spec_, state));
        return true;
      }
      case MessageType::kPush: {
        if (const long bad = FirstNonFinite(message.data); bad >= 0) {
          throw std::runtime_error("non-finite gradient at step " + std::to_string(message.step) +
                                   " refused: it would poison the model");
        }
        std::optional<ShardState> snapshot, frozen;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          if (phase_ == kFrozen) {
            ++discarded_;  // sent again to the new host after the redirect
            return true;
          }
          if (phase_ != kServing) return false;
          bool completed = false;
          try {
            completed = sgd_.Push(rank, message.step, message.data);
          } catch (const std::invalid_argument& e) {
            throw std::runtime_error(e.what());
          }
          if (completed) {
            params_ = std::make_shared<const std::vector<float>>(sgd_.parameters());
            if (sgd_.version() % spec_.snapshot_every == 0) snapshot = sgd_.Export();
            frozen = MaybeFreeze();
            changed_.notify_all();
          }
        }
        if (snapshot) control_->Send(StateFrame("snapshot", spec_, *snapshot));
        if (frozen) control_->Send(StateFrame("state", spec_, *frozen));
        return true;
      }
      case MessageType::kPull: {
        std::shared_ptr<const std::vector<float>> params;
        uint64_t version = 0;
        bool redirect = false;
        {
          std::unique_lock<std::mutex> lock(mutex_);
          const bool ready =
              changed_.wait_for(lock, std::chrono::duration<double>(options_.timeout_s), [&] {
                return (phase_ != kServing && phase_ != kFrozen) ||
                       (sgd_.initialized() && sgd_.version() >= message.step) || phase_ == kFrozen;
              });
          if (phase_ != kServing && phase_ != kFrozen) return false;
          if (!ready) {
            throw std::runtime_error("version " + std::to_string(message.step) +
                                     " not reached within " + std::to_string(options_.timeout_s) +
                                     " s (a worker stalled)");
          }
          version = sgd_.version();
          if (sgd_.initialized() && version >= message.step) {
            params = params_;
          } else {
            redirect = true;
          }
        }
        if (redirect) {
          wire::SendMessage(
              fd,
              wire::Message{wire::MessageType::kRedirect, static_cast<uint32_t>(rank), version, {}},
              spec_.token);
          return false;
        }
        wire::SendFloats(fd, wire::MessageType::kParams, static_cast<uint32_t>(rank), version,
                         params->data(), params->size(), spec_.token);
        return true;
      }
      case MessageType::kBye: {
        std::lock_guard<std::mutex> lock(mutex_);
        ++byes_;
        // A job may end exactly at a migration boundary: then its frozen shard sees the byes.
        if (byes_ == spec_.workers && (phase_ == kServing || phase_ == kFrozen)) {
          phase_ = kDone;
          accepting_ = false;
          ControlFrame frame = MakeFrame("shard_done");
          frame.body["shard"] = spec_.shard;
          frame.body["instance"] = spec_.instance;
          frame.body["version"] = sgd_.version();
          control_->Send(frame);
        }
        return false;
      }
      default:
        throw std::runtime_error(std::string("unexpected ") + wire::MessageTypeName(message.type) +
                                 " message");
    }
  }

  ShardSpec spec_;
  const AggregatorNodeOptions options_;
  std::shared_ptr<ControlLink> control_;
  std::mutex mutex_;
  std::condition_variable changed_;
  ShardSgd sgd_;
  std::shared_ptr<const std::vector<float>> params_;
  Phase phase_ = kServing;
  std::string failure_;
  bool migrate_requested_ = false;
  uint64_t migrate_at_ = 0;
  std::vector<int> connections_;
  int byes_ = 0;
  int threads_ = 0;
  uint64_t discarded_ = 0;
  std::atomic<bool> accepting_{true};
  std::atomic<uint64_t> cpu_ns_{0};
  std::atomic<uint64_t> refused_{0};
  wire::Socket listener_;
};

ShardSpec ParseSpec(const Json& body) {
  ShardSpec spec;
  spec.shard = GetUint(body, "shard", UINT64_MAX);
  spec.instance = GetUint(body, "instance", UINT64_MAX);
  spec.job = GetString(body, "job", 256);
  spec.index = static_cast<int>(GetUint(body, "index", 1 << 20));
  spec.workers = static_cast<int>(GetUint(body, "workers", 100'000));
  if (spec.workers < 1) throw wire::ProtocolError("a shard needs workers");
  spec.lr = static_cast<float>(GetNumber(body, "lr", 0, 1e3));
  spec.momentum = static_cast<float>(GetNumber(body, "momentum", 0, 1));
  try {
    spec.token = wire::ParseToken(GetString(body, "token", 64));
  } catch (const std::invalid_argument& e) {
    throw wire::ProtocolError(std::string("token: ") + e.what());
  }
  spec.count = GetUint(body, "count", wire::kMaxFloats);
  spec.snapshot_every = std::max<uint64_t>(1, GetUint(body, "snapshot_every", 1u << 30));
  return spec;
}

}  // namespace

void RunAggregatorNode(const AggregatorNodeOptions& options) {
  std::string host;
  int port = 0;
  wire::ParseHostPort(options.coordinator, "--coordinator", &host, &port);
  auto control =
      std::make_shared<ControlLink>(wire::ConnectTcp(host, port, options.timeout_s), options.token);
  std::string advertise = options.advertise;
  if (advertise.empty()) advertise = options.bind == "0.0.0.0" ? "127.0.0.1" : options.bind;
  ControlFrame join = MakeFrame("join");
  join.body["pid"] = static_cast<uint64_t>(getpid());
  join.body["host"] = advertise;
  control->Send(join);

  std::mutex mutex;
  std::map<uint64_t, std::shared_ptr<HostedShard>> shards;
  std::atomic<bool> running{true};
  std::thread reporter([&] {
    const auto start = Clock::now();
    auto next = start;
    while (running) {
      next += std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(options.report_interval_s));
      if (next < Clock::now()) next = Clock::now();  // late (descheduled): no burst of reports
      while (running && Clock::now() < next) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      if (!running) break;
      ControlFrame load = MakeFrame("load");
      load.body["wall_s"] = ps::WallSeconds();
      load.body["cpu_s"] = ProcessCpuSeconds();
      load.body["shards"] = Json::array();
      std::lock_guard<std::mutex> lock(mutex);
      for (auto it = shards.begin(); it != shards.end();) {
        load.body["shards"].push_back(it->second->Report());
        it = it->second->Finished() ? shards.erase(it) : std::next(it);
      }
      control->Send(load);
    }
  });

  try {
    while (true) {
      ControlFrame frame = ReceiveControl(control->fd(), wire::kMaxFloats);
      if (!wire::SameToken(frame.token, options.token)) {
        throw wire::ProtocolError("a control frame with a token other than the service's");
      }
      const std::string op = frame.op();
      if (op == "stop") break;
      if (op == "welcome") continue;
      if (op == "host") {
        const ShardSpec spec = ParseSpec(frame.body);
        ShardState state;
        state.initialized = frame.body.value("initialized", false);
        state.version = GetUint(frame.body, "version", UINT64_MAX);
        if (state.initialized) {
          if (frame.floats.size() != 2 * spec.count) {
            throw wire::ProtocolError("host: state of " + std::to_string(frame.floats.size()) +
                                      " floats for a shard of " + std::to_string(spec.count));
          }
          state.parameters.assign(frame.floats.begin(), frame.floats.begin() + spec.count);
          state.velocity.assign(frame.floats.begin() + spec.count, frame.floats.end());
        }
        auto shard = std::make_shared<HostedShard>(spec, std::move(state), control, options);
        ControlFrame reply = MakeFrame("hosted");
        reply.body["shard"] = spec.shard;
        reply.body["instance"] = spec.instance;
        try {
          reply.body["port"] = shard->Start();
          std::lock_guard<std::mutex> lock(mutex);
          shards[spec.shard] = shard;
        } catch (const std::exception& e) {
          reply.body["op"] = "host_failed";
          reply.body["reason"] = e.what();
        }
        control->Send(reply);
        if (const uint64_t at = frame.body.value("migrate_at", uint64_t{0}); at > 0) {
          shard->RequestMigration(at);
        }
        continue;
      }
      const uint64_t id = GetUint(frame.body, "shard", UINT64_MAX);
      std::shared_ptr<HostedShard> shard;
      {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = shards.find(id);
        if (it != shards.end()) shard = it->second;
      }
      if (!shard) continue;  // already gone: the coordinator's view lags a little
      if (op == "migrate_out") {
        shard->RequestMigration(GetUint(frame.body, "at", UINT64_MAX));
      } else if (op == "drop") {
        shard->Drop();
      } else {
        throw wire::ProtocolError("unknown control op \"" + op + "\"");
      }
    }
  } catch (const wire::ConnectionClosed&) {
    if (!options.quiet) std::fprintf(stderr, "jigsaw: paramsvc-agg: the coordinator went away\n");
  } catch (const std::exception& e) {
    running = false;
    reporter.join();
    throw std::runtime_error(std::string("paramsvc-agg: ") + e.what());
  }
  running = false;
  reporter.join();
  std::lock_guard<std::mutex> lock(mutex);
  for (auto& [id, shard] : shards) shard->Drop();
}

}  // namespace jigsaw::paramsvc
