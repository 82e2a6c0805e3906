#include "paramsvc/coordinator.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "core/handshake_acceptor.h"
#include "core/socket.h"
#include "paramsvc/control.h"
#include "paramsvc/cpu_rate.h"
#include "paramsvc/elasticity.h"
#include "paramsvc/packing.h"
#include "ps/server.h"

namespace jigsaw::paramsvc {
namespace {

using Clock = std::chrono::steady_clock;

double SelfCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

class Link {
 public:
  Link(wire::Socket socket, const wire::Token& token) : socket_(std::move(socket)), token_(token) {}
  int fd() const { return socket_.fd(); }
  bool Send(const ControlFrame& frame) {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      SendControl(socket_.fd(), frame, token_);
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }
  void Shutdown() { socket_.Shutdown(); }

 private:
  wire::Socket socket_;
  wire::Token token_;
  std::mutex mutex_;
};

struct Aggregator {
  int id = 0;
  pid_t pid = 0;
  bool ours = false;  // started (and reaped) by this coordinator
  bool joined = false;
  bool alive = true;
  bool draining = false;
  bool retired = false;
  std::shared_ptr<Link> link;
  std::string host;
  CpuRateMeter cpu;  // utilization: aggregation CPU in use, in cores
  double reported_cpu_s = 0;
  double exit_cpu_s = -1;  // utime + stime from wait4, once reaped
};

struct Snapshot {
  bool initialized = false;
  std::vector<float> floats;  // parameters then velocity
};

struct Shard {
  uint64_t id = 0;
  uint64_t job = 0;
  int index = 0;
  uint64_t offset = 0, count = 0;
  int agg = -1;  // where it is (or is being) hosted
  int port = 0;
  bool hosted = false;
  uint64_t epoch = 0;
  uint64_t instance = 0;
  uint64_t previous_instance = 0;  // the host it is being migrated from
  int target = -1;                 // migration destination while one is in flight
  bool migrating = false;
  double estimate = 0, demand = -1;  // cores
  CpuRateMeter cpu;
  uint64_t version = 0;
  bool initialized = false;
  bool done = false;
  int migrations = 0;
  uint64_t refused = 0;  // connections its host refused (wrong token, not a hello, ...)
  std::map<uint64_t, Snapshot> snapshots;  // the last few, by version
};

struct Job {
  uint64_t id = 0;
  std::string name;
  wire::Token token{};
  int workers = 1;
  uint64_t parameters = 0;
  double iter_rate = 1;
  float lr = 0.05f, momentum = 0;
  uint64_t generation = 0, resume_version = 0;
  bool failed = false, done = false;
  std::string reason;
  std::vector<uint64_t> shards;
  double registered_wall_s = 0, done_wall_s = 0;
  uint64_t replayed = 0;
  int restorations = 0;
};

class Coordinator {
 public:
  explicit Coordinator(const CoordinatorOptions& options)
      : options_(options),
        elasticity_(ElasticityOptions{options.high_mark, options.low_mark, options.sustain,
                                      options.min_aggregators, options.max_aggregators}) {
    if (options_.aggregator_binary.empty()) {
      options_.aggregator_binary = std::filesystem::read_symlink("/proc/self/exe").string();
    }
  }

  Json Run() {
    wire::Socket listener = wire::ListenTcp(options_.host, options_.port, 128);
    port_ = wire::LocalPort(listener);
    wire::HandshakeOptions handshake;
    handshake.header_bytes = kControlHeaderBytes;
    handshake.timeout_s = options_.handshake_timeout_s;
    handshake.max_pending = options_.max_pending;
    handshake.busy_reply = BusyReply();
    acceptor_ = std::make_unique<wire::HandshakeAcceptor>(
        std::move(listener), handshake, [this](const std::string& peer, const std::string& why) {
          ++refused_;
          if (refused_ <= 20) Log("refused a control connection from " + peer + ": " + why);
        });
    start_ = Clock::now();
    start_wall_s_ = ps::WallSeconds();
    if (options_.on_listening) options_.on_listening(port_);
    Log("listening on " + options_.host + ":" + std::to_string(port_));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (int i = 0; i < options_.initial_aggregators; ++i) Spawn("initial pool");
    }
    auto next_tick = Clock::now();
    while (!stopping_ && !(options_.stop && options_.stop->load())) {
      for (wire::Handshake& h : acceptor_->Poll(std::chrono::milliseconds(20))) Admit(h);
      if (Clock::now() >= next_tick) {
        next_tick += std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(options_.report_interval_s));
        std::lock_guard<std::mutex> lock(mutex_);
        Tick();
      }
    }
    return Shutdown();
  }

 private:
  // ---- logging and statistics -------------------------------------------------------------
  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  void Log(const std::string& line) {
    std::string stamped = "[";
    stamped += FormatFixed(Elapsed(), 2);
    stamped += " s] ";
    stamped += line;
    {
      std::lock_guard<std::mutex> lock(log_mutex_);
      log_.push_back(stamped);
    }
    if (!options_.quiet) std::fprintf(stderr, "jigsaw: paramsvc: %s\n", stamped.c_str());
  }

  // ---- connections -------------------------------------------------------------------------
  static std::string BusyReply() {
    ControlFrame busy = MakeFrame("error");
    busy.body["reason"] = "server busy";
    return EncodeControl(busy, wire::Token{});
  }

  // A connection whose first header arrived (wire::HandshakeAcceptor: one deadline for the whole
  // handshake, never blocked by one peer). The token is judged first, from the header alone: a
  // peer without the service's or a job's token is refused before a byte of its JSON is read.
  void Admit(wire::Handshake& h) {
    ControlHeader header;
    try {
      header = DecodeControlHeader(h.header.data(), 0);
    } catch (const std::exception& e) {
      return acceptor_->Refuse(h, e.what());
    }
    bool known = wire::SameToken(header.token, options_.token);
    if (!known) {
      std::lock_guard<std::mutex> lock(mutex_);
      known = FindJob(header.token) != nullptr;
    }
    if (!known) {
      const std::string reason = "no job has this token (nor is it the service's)";
      ControlFrame refusal = MakeFrame("error");
      refusal.body["reason"] = reason;
      return acceptor_->Refuse(h, reason, EncodeControl(refusal, wire::Token{}));
    }
    if (handlers_.load() >= options_.max_connections) {
      return acceptor_->Refuse(h, "too many connections at once", BusyReply());
    }
    ++handlers_;
    std::thread([this, s = std::make_shared<wire::Handshake>(std::move(h)), header]() mutable {
      Handle(std::move(s->socket), header, s->deadline);
      std::lock_guard<std::mutex> lock(mutex_);
      --handlers_;
      changed_.notify_all();
    }).detach();
  }

  void Handle(wire::Socket socket, const ControlHeader& header, Clock::time_point deadline) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_fds_.insert(socket.fd());
    }
    try {
      ControlFrame first = ReceiveControlBody(socket.fd(), header, deadline);
      if (wire::SameToken(first.token, options_.token) && first.op() == "join") {
        ServeAggregator(std::move(socket), first);
        return;
      }
      wire::SetReceiveTimeout(socket.fd(), options_.timeout_s);
      ControlFrame frame = std::move(first);
      while (true) {
        if (!Request(socket.fd(), frame)) break;
        frame = ReceiveControl(socket.fd(), 0);
      }
    } catch (const wire::ConnectionClosed&) {
    } catch (const std::exception& e) {
      ++refused_;
      if (refused_ <= 20) Log(std::string("refused a control connection: ") + e.what());
      try {
        ControlFrame error = MakeFrame("error");
        error.body["reason"] = e.what();
        SendControl(socket.fd(), error, wire::Token{});
      } catch (...) {
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    open_fds_.erase(socket.fd());
  }

  // One request of a registrar or a worker. Returns false to close the connection.
  bool Request(int fd, const ControlFrame& frame) {
    const std::string op = frame.op();
    wire::Token reply_token = frame.token;
    ControlFrame reply;
    if (wire::SameToken(frame.token, options_.token)) {
      if (op == "register") {
        reply = Register(frame.body);
      } else if (op == "status") {
        std::lock_guard<std::mutex> lock(mutex_);
        reply = MakeFrame("status");
        reply.body["status"] = StatusJson();
      } else if (op == "shutdown") {
        stopping_ = true;
        reply = MakeFrame("ok");
      } else {
        throw wire::ProtocolError("unknown service request \"" + op + "\"");
      }
    } else {
      std::lock_guard<std::mutex> lock(mutex_);
      Job* job = FindJob(frame.token);
      if (!job) throw wire::ProtocolError("a request with a token no job has");
      if (op == "lookup") {
        reply = MapOf(*job);
      } else if (op == "size") {
        if (job->parameters == 0) {
          job->parameters = GetUint(frame.body, "parameters", wire::kMaxFloats);
          if (job->parameters == 0) throw wire::ProtocolError("a job needs parameters");
          CreateShards(*job);
        }
        reply = MapOf(*job);
      } else {
        throw wire::ProtocolError("unknown job request \"" + op + "\"");
      }
    }
    SendControl(fd, reply, reply_token);
    return true;
  }

  Job* FindJob(const wire::Token& token) {
    Job* found = nullptr;
    for (auto& [id, job] : jobs_) {
      if (wire::SameToken(job.token, token)) found = &job;  // no early exit: constant time
    }
    return found;
  }

  ControlFrame Register(const Json& body) {
    Job job;
    job.name = GetString(body, "job", 128);
    job.parameters = GetUint(body, "parameters", wire::kMaxFloats);
    job.workers = static_cast<int>(GetUint(body, "workers", 100'000));
    if (job.workers < 1) throw wire::ProtocolError("a job needs at least one worker");
    job.iter_rate = GetNumber(body, "iter_rate", 1e-6, 1e6);
    job.lr = static_cast<float>(GetNumber(body, "lr", 0, 1e3));
    job.momentum = static_cast<float>(GetNumber(body, "momentum", 0, 1));
    job.token = wire::RandomToken();
    job.registered_wall_s = ps::WallSeconds();
    std::lock_guard<std::mutex> lock(mutex_);
    job.id = next_job_++;
    Job& stored = jobs_[job.id] = job;
    Log("registered job " + stored.name + " (" + std::to_string(stored.parameters) +
        " parameters, " + std::to_string(stored.workers) + " workers, " +
        FormatFixed(stored.iter_rate, 2) + " iterations/s expected)");
    if (stored.parameters > 0) CreateShards(stored);
    ControlFrame reply = MakeFrame("registered");
    reply.body["job"] = stored.name;
    reply.body["token"] = wire::FormatToken(stored.token);
    reply.body["shards"] = stored.shards.size();
    return reply;
  }

  ControlFrame MapOf(const Job& job) {
    ControlFrame reply = MakeFrame("map");
    reply.body["job"] = job.name;
    reply.body["generation"] = job.generation;
    reply.body["resume_version"] = job.resume_version;
    reply.body["failed"] = job.failed;
    reply.body["reason"] = job.reason;
    reply.body["done"] = job.done;
    reply.body["parameters"] = job.parameters;
    reply.body["workers"] = job.workers;
    reply.body["shards"] = Json::array();
    for (uint64_t id : job.shards) {
      const Shard& shard = shards_.at(id);
      const bool ready = shard.hosted && shard.agg >= 0 && aggs_.at(shard.agg).alive;
      Json entry;
      entry["offset"] = shard.offset;
      entry["count"] = shard.count;
      entry["host"] = ready ? aggs_.at(shard.agg).host : "";
      entry["port"] = ready ? shard.port : 0;
      entry["epoch"] = shard.epoch;
      entry["ready"] = ready;
      reply.body["shards"].push_back(entry);
    }
    return reply;
  }

  // ---- aggregators -------------------------------------------------------------------------
  // Starts an aggregator process; its id, or -1 when fork failed.
  int Spawn(const std::string& why) {
    const int id = next_agg_++;
    Aggregator agg;
    agg.id = id;
    agg.ours = true;
    const std::string address =
        (options_.host == "0.0.0.0" ? "127.0.0.1" : options_.host) + ":" + std::to_string(port_);
    const std::string interval = FormatFixed(options_.report_interval_s, 3);
    const std::string timeout = FormatFixed(options_.timeout_s, 3);
    const pid_t pid = fork();
    if (pid == 0) {
      const char* argv[] = {options_.aggregator_binary.c_str(),
                            "paramsvc-agg",
                            "--coordinator",
                            address.c_str(),
                            "--token-file",
                            options_.token_file.c_str(),
                            "--report-interval-s",
                            interval.c_str(),
                            "--timeout-s",
                            timeout.c_str(),
                            options_.quiet ? "--quiet" : nullptr,
                            nullptr};
      execv(argv[0], const_cast<char* const*>(argv));
      _exit(127);
    }
    if (pid < 0) {
      Log("could not start an aggregator: fork failed");
      return -1;
    }
    agg.pid = pid;
    aggs_[id] = agg;
    Log("started aggregator " + std::to_string(id) + " (pid " + std::to_string(pid) + "): " + why);
    return id;
  }

  void ServeAggregator(wire::Socket socket, const ControlFrame& join) {
    const pid_t pid = static_cast<pid_t>(GetUint(join.body, "pid", 1u << 30));
    auto link = std::make_shared<Link>(std::move(socket), options_.token);
    wire::SetReceiveTimeout(link->fd(), std::max(5.0, 20 * options_.report_interval_s));
    int id = -1;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto& [candidate, agg] : aggs_) {
        if (agg.ours && agg.pid == pid && !agg.joined && agg.alive) id = candidate;
      }
      if (id < 0) {  // joined from elsewhere (paramsvc-agg run by hand)
        id = next_agg_++;
        aggs_[id].id = id;
        aggs_[id].pid = pid;
      }
      Aggregator& agg = aggs_[id];
      agg.joined = true;
      agg.link = link;
      agg.host = GetString(join.body, "host", 256);
      Log("aggregator " + std::to_string(id) + " joined from " + agg.host);
      PlaceWaiting();
    }
    try {
      while (true) {
        ControlFrame frame = ReceiveControl(link->fd(), wire::kMaxFloats);
        if (!wire::SameToken(frame.token, options_.token)) {
          throw wire::ProtocolError("aggregator frame with a foreign token");
        }
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopping_) break;
        FromAggregator(id, frame);
      }
    } catch (const wire::ConnectionClosed&) {
    } catch (const std::exception& e) {
      Log("aggregator " + std::to_string(id) + ": " + e.what());
    }
    std::lock_guard<std::mutex> lock(mutex_);
    open_fds_.erase(link->fd());
    Aggregator& agg = aggs_[id];
    agg.alive = false;
    link->Shutdown();
    if (stopping_ || agg.retired) return;
    if (agg.ours && agg.pid > 0) kill(agg.pid, SIGKILL);  // silent or broken: make sure
    AggregatorLost(id);
  }

  void FromAggregator(int id, const ControlFrame& frame) {
    const std::string op = frame.op();
    Aggregator& agg = aggs_[id];
    if (op == "load") {
      const double wall = GetNumber(frame.body, "wall_s", 0, 1e12);
      const double cpu = GetNumber(frame.body, "cpu_s", 0, 1e12);
      const double min_window_s = 0.5 * options_.report_interval_s;
      agg.cpu.Sample(wall, cpu, min_window_s);
      agg.reported_cpu_s = cpu;
      if (!frame.body.contains("shards") || !frame.body["shards"].is_array()) return;
      for (const Json& report : frame.body["shards"]) {
        auto it = shards_.find(GetUint(report, "shard", UINT64_MAX));
        if (it == shards_.end() || it->second.instance != GetUint(report, "instance", UINT64_MAX))
          continue;
        Shard& shard = it->second;
        const double shard_cpu = GetNumber(report, "cpu_s", 0, 1e12);
        if (shard.cpu.Sample(wall, shard_cpu, min_window_s)) {
          const double now = shard.cpu.rate();
          shard.demand = shard.demand < 0 ? now : 0.5 * shard.demand + 0.5 * now;
        }
        shard.version = std::max(shard.version, GetUint(report, "version", UINT64_MAX));
        shard.initialized = report.value("initialized", false);
        shard.refused = report.value("refused", uint64_t{0});
      }
      return;
    }
    auto it = shards_.find(GetUint(frame.body, "shard", UINT64_MAX));
    if (it == shards_.end()) return;
    Shard& shard = it->second;
    const uint64_t instance = GetUint(frame.body, "instance", UINT64_MAX);
    // Stale, except that a job may finish at the host a shard was just migrated from.
    const bool finished_before_move = op == "shard_done" && instance == shard.previous_instance;
    if (shard.instance != instance && !finished_before_move) return;
    Job& job = jobs_.at(shard.job);
    if (op == "hosted") {
      shard.agg = id;
      shard.port = static_cast<int>(GetUint(frame.body, "port", 65535));
      shard.hosted = true;
      ++shard.epoch;
      if (shard.migrating) {
        shard.migrating = false;
        ++shard.migrations;
        ++migrations_;
        if (migrating_ == shard.id) migrating_ = 0;
        if (id == spread_to_) ++spread_moves_;  // counted once done: a job may end before
        if (options_.migrate_every == 0 || shard.migrations <= 3) {
          Log("shard " + std::to_string(shard.index) + " of " + job.name + " now on aggregator " +
              std::to_string(id) + " (version " + std::to_string(shard.version) + ")");
        }
      }
    } else if (op == "host_failed") {
      Log("aggregator " + std::to_string(id) + " could not host shard " +
          std::to_string(shard.index) + " of " + job.name + ": " +
          frame.body.value("reason", std::string()));
      FailJob(job, "could not host a shard");
    } else if (op == "snapshot" || op == "state") {
      const uint64_t version = GetUint(frame.body, "version", UINT64_MAX);
      if (frame.floats.size() != 2 * shard.count) {
        throw wire::ProtocolError(op + " of " + std::to_string(frame.floats.size()) +
                                  " floats for a shard of " + std::to_string(shard.count));
      }
      shard.version = std::max(shard.version, version);
      shard.initialized = true;
      Snapshot snapshot{frame.body.value("initialized", false), frame.floats};
      if (op == "snapshot") {
        shard.snapshots[version] = std::move(snapshot);
        PruneSnapshots(job);
        return;
      }
      // A frozen shard's state: host it at its destination.
      int target = shard.target;
      if (target < 0 || !aggs_.at(target).alive || !aggs_.at(target).joined) {
        target = PickNextAggregator(shard.agg);
      }
      shard.migrating = true;
      shard.hosted = false;
      shard.previous_instance = shard.instance;
      Host(shard, target, version, &snapshot);
    } else if (op == "job_failed") {
      FailJob(job, frame.body.value("reason", std::string("a shard failed")));
    } else if (op == "shard_done") {
      if (finished_before_move && shard.agg >= 0 && aggs_.at(shard.agg).alive) {
        ControlFrame drop = MakeFrame("drop");  // the copy at the destination is not needed
        drop.body["shard"] = shard.id;
        aggs_.at(shard.agg).link->Send(drop);
      }
      shard.done = true;
      shard.migrating = false;
      if (migrating_ == shard.id) migrating_ = 0;
      bool all = true;
      for (uint64_t s : job.shards) all = all && shards_.at(s).done;
      if (all && !job.done) {
        job.done = true;
        job.done_wall_s = ps::WallSeconds();
        for (uint64_t s : job.shards) shards_.at(s).snapshots.clear();
        Log("job " + job.name + " finished at version " +
            std::to_string(GetUint(frame.body, "version", UINT64_MAX)) + " (" +
            std::to_string(job.replayed) + " iterations replayed after " +
            std::to_string(job.restorations) + " restorations)");
      }
    }
  }

  // Keeps, per shard, the snapshots from the job's latest common version on (the version every
  // shard has one of): a restore always finds one, however late some shard's snapshot arrives.
  void PruneSnapshots(Job& job) {
    const Shard& first = shards_.at(job.shards.front());
    for (auto it = first.snapshots.rbegin(); it != first.snapshots.rend(); ++it) {
      bool everywhere = true;
      for (uint64_t id : job.shards)
        everywhere = everywhere && shards_.at(id).snapshots.count(it->first);
      if (!everywhere) continue;
      for (uint64_t id : job.shards) {
        auto& snapshots = shards_.at(id).snapshots;
        snapshots.erase(snapshots.begin(), snapshots.lower_bound(it->first));
      }
      return;
    }
  }

  // ---- placement ---------------------------------------------------------------------------
  double Capacity() const { return options_.cores_per_aggregator * (1 - options_.headroom); }
  double DemandOf(const Shard& shard) const {
    return shard.demand >= 0 ? shard.demand : shard.estimate;
  }
  double LoadOf(int agg) const {
    double load = 0;
    for (const auto& [id, shard] : shards_) {
      const int where = shard.migrating && shard.target >= 0 ? shard.target : shard.agg;
      if (where == agg && !shard.done && !jobs_.at(shard.job).failed) load += DemandOf(shard);
    }
    return load;
  }
  std::vector<int> Usable() const {
    std::vector<int> ids;
    for (const auto& [id, agg] : aggs_) {
      if (agg.alive && agg.joined && !agg.draining) ids.push_back(id);
    }
    return ids;
  }
  int Starting() const {
    int n = 0;
    for (const auto& [id, agg] : aggs_) n += agg.alive && !agg.joined;
    return n;
  }
  // Where a shard should go (first fit), or -1 when none fits (the caller may start one).
  int Place(double demand, int exclude) const {
    std::vector<int> ids;
    std::vector<double> loads;
    for (int id : Usable()) {
      if (id == exclude) continue;
      ids.push_back(id);
      loads.push_back(LoadOf(id));
    }
    const int bin = FirstFit(loads, demand, Capacity());
    return bin < 0 ? -1 : ids[bin];
  }
  int LeastLoaded(int exclude) const {
    int best = -1;
    double best_load = 0;
    for (int id : Usable()) {
      if (id == exclude) continue;
      const double load = LoadOf(id);
      if (best < 0 || load < best_load) best = id, best_load = load;
    }
    return best;
  }
  int PickNextAggregator(int current) const {  // round robin (migrate_every) or least loaded
    std::vector<int> ids = Usable();
    for (int id : ids) {
      if (id > current) return id;
    }
    for (int id : ids) {
      if (id != current) return id;
    }
    return ids.empty() ? -1 : ids.front();
  }

  void CreateShards(Job& job) {
    const double estimate = static_cast<double>(job.parameters) * job.workers * job.iter_rate *
                            options_.est_ns_per_float * 1e-9;
    const uint64_t count =
        ShardCount(job.parameters, estimate, options_.max_shard_floats, Capacity());
    for (uint64_t i = 0; i < count; ++i) {
      Shard shard;
      shard.id = next_shard_++;
      shard.job = job.id;
      shard.index = static_cast<int>(i);
      shard.offset = job.parameters * i / count;
      shard.count = job.parameters * (i + 1) / count - shard.offset;
      shard.estimate = estimate / static_cast<double>(count);
      job.shards.push_back(shard.id);
      shards_[shard.id] = shard;
      waiting_.push_back(shard.id);
    }
    PlaceWaiting();
  }

  // Hosts the shards that wait for an aggregator, starting one when none has room.
  void PlaceWaiting() {
    std::vector<uint64_t> still;
    for (uint64_t id : waiting_) {
      Shard& shard = shards_.at(id);
      Job& job = jobs_.at(shard.job);
      if (job.failed || job.done) continue;
      int where = Place(DemandOf(shard), -1);
      if (where < 0) {
        const int pool = static_cast<int>(Usable().size()) + Starting();
        if (pool < options_.max_aggregators && Starting() == 0) {
          Spawn("no room for shard " + std::to_string(shard.index) + " of " + job.name);
        }
        if (Starting() == 0) where = LeastLoaded(-1);
      }
      if (where < 0) {
        still.push_back(id);
        continue;
      }
      const Snapshot* snapshot = pending_states_.count(id) ? &pending_states_[id] : nullptr;
      Host(shard, where, pending_versions_[id], snapshot);
      pending_states_.erase(id);
      pending_versions_.erase(id);
    }
    waiting_ = still;
  }

  void Host(Shard& shard, int agg, uint64_t version, const Snapshot* state) {
    const Job& job = jobs_.at(shard.job);
    shard.instance = next_instance_++;
    shard.agg = agg;
    shard.hosted = false;
    shard.target = -1;
    shard.cpu.Reset();
    ControlFrame frame = MakeFrame("host");
    frame.body["shard"] = shard.id;
    frame.body["instance"] = shard.instance;
    frame.body["job"] = job.name;
    frame.body["index"] = shard.index;
    frame.body["workers"] = job.workers;
    frame.body["lr"] = job.lr;
    frame.body["momentum"] = job.momentum;
    frame.body["token"] = wire::FormatToken(job.token);
    frame.body["count"] = shard.count;
    frame.body["snapshot_every"] = options_.snapshot_every;
    frame.body["version"] = version;
    frame.body["initialized"] = state != nullptr && state->initialized;
    if (options_.migrate_every > 0) frame.body["migrate_at"] = version + options_.migrate_every;
    if (state != nullptr && state->initialized) frame.floats = state->floats;
    if (!aggs_.at(agg).link->Send(frame)) {
      Log("could not reach aggregator " + std::to_string(agg) + " to host a shard");
    }
  }

  void StartMigration(Shard& shard, int target, const std::string& why) {
    shard.target = target;
    shard.migrating = true;
    migrating_ = shard.id;
    migration_started_ = Clock::now();
    ControlFrame frame = MakeFrame("migrate_out");
    frame.body["shard"] = shard.id;
    frame.body["at"] = uint64_t{0};
    aggs_.at(shard.agg).link->Send(frame);
    migration_log_.push_back(Json{{"t", RoundTo(Elapsed(), 3)},
                                  {"job", jobs_.at(shard.job).name},
                                  {"shard", shard.index},
                                  {"from", shard.agg},
                                  {"to", target},
                                  {"reason", why}});
    Log("migrating shard " + std::to_string(shard.index) + " of " + jobs_.at(shard.job).name +
        " (" + FormatFixed(DemandOf(shard), 3) + " cores) from aggregator " +
        std::to_string(shard.agg) + " to " + std::to_string(target) + ": " + why);
  }

  // ---- faults ------------------------------------------------------------------------------
  void FailJob(Job& job, const std::string& reason) {
    if (job.failed || job.done) return;
    job.failed = true;
    job.reason = reason;
    Log("job " + job.name + " failed: " + reason);
    for (uint64_t id : job.shards) {
      Shard& shard = shards_.at(id);
      shard.snapshots.clear();
      if (migrating_ == id) migrating_ = 0;
      if (shard.agg >= 0 && aggs_.at(shard.agg).alive && aggs_.at(shard.agg).link) {
        ControlFrame drop = MakeFrame("drop");
        drop.body["shard"] = id;
        aggs_.at(shard.agg).link->Send(drop);
      }
    }
  }

  void AggregatorLost(int id) {
    Log("aggregator " + std::to_string(id) + " is gone (killed or disconnected)");
    std::set<uint64_t> affected;
    for (auto& [sid, shard] : shards_) {
      if ((shard.agg == id || shard.target == id) && !shard.done) affected.insert(shard.job);
    }
    for (uint64_t jid : affected) RestoreJob(jobs_.at(jid), id);
    const int pool = static_cast<int>(Usable().size()) + Starting();
    if (pool < options_.min_aggregators) Spawn("replacing aggregator " + std::to_string(id));
    PlaceWaiting();
  }

  void RestoreJob(Job& job, int lost) {
    if (job.failed || job.done) return;
    // The latest version every shard has a snapshot of.
    std::optional<uint64_t> common;
    uint64_t reached = 0;
    for (uint64_t id : job.shards) {
      const Shard& shard = shards_.at(id);
      reached = std::max(reached, shard.version);
      std::optional<uint64_t> best;
      for (const auto& [version, snap] : shard.snapshots) {
        bool everywhere = true;
        for (uint64_t other : job.shards) {
          everywhere = everywhere && shards_.at(other).snapshots.count(version) > 0;
        }
        if (everywhere) best = version;
      }
      if (!best) {
        common.reset();
        break;
      }
      common = common ? std::min(*common, *best) : best;
    }
    if (!common) {
      FailJob(job, "aggregator " + std::to_string(lost) +
                       " was lost before the job's first complete snapshot");
      return;
    }
    const uint64_t version = *common;
    ++job.generation;
    ++job.restorations;
    job.resume_version = version;
    job.replayed += reached > version ? reached - version : 0;
    Log("job " + job.name + ": aggregator " + std::to_string(lost) + " lost; restoring its " +
        std::to_string(job.shards.size()) + " shards from the snapshots at version " +
        std::to_string(version) + " (reached at least " + std::to_string(reached) + ": " +
        std::to_string(reached > version ? reached - version : 0) +
        " iterations will be replayed; generation " + std::to_string(job.generation) + ")");
    for (uint64_t id : job.shards) {
      Shard& shard = shards_.at(id);
      if (shard.agg >= 0 && shard.agg != lost && aggs_.at(shard.agg).alive) {
        ControlFrame drop = MakeFrame("drop");
        drop.body["shard"] = id;
        aggs_.at(shard.agg).link->Send(drop);
      }
      if (migrating_ == id) migrating_ = 0;
      shard.migrating = false;
      shard.hosted = false;
      shard.agg = -1;
      shard.instance = next_instance_++;  // anything the old hosts still send is stale
      shard.version = version;
      pending_states_[id] = shard.snapshots.at(version);
      pending_versions_[id] = version;
      waiting_.push_back(id);
    }
  }

  // ---- periodic work -----------------------------------------------------------------------
  void Tick() {
    ReapChildren();
    const std::vector<int> usable = Usable();
    double used = 0;
    int counted = 0;
    for (const auto& [id, agg] : aggs_) {
      if (agg.alive && agg.joined) used += agg.cpu.rate(), ++counted;
    }
    const double utilization = counted > 0 ? used / (counted * options_.cores_per_aggregator) : 0.0;
    int reserved = 0;
    for (const auto& [id, agg] : aggs_) reserved += agg.alive;
    timeline_.push_back(Json::array({RoundTo(Elapsed(), 3), reserved, RoundTo(used, 4)}));

    // Elasticity runs once the first job has registered (an operator's initial pool is kept until
    // then), and goes on after the load has ended, so that an idle pool drains to its minimum;
    // only a running job can make it grow.
    bool active = false;
    for (const auto& [id, job] : jobs_) active = active || (!job.done && !job.failed);
    if (options_.elastic && !jobs_.empty() && !usable.empty()) {
      const ElasticityDecision decision =
          elasticity_.Observe(utilization, static_cast<int>(usable.size()));
      if (decision.kind == ElasticityDecision::kAdd && Starting() == 0 && active) {
        Log("elasticity: add an aggregator: " + decision.reason);
        const int id = Spawn("elasticity");
        decisions_.push_back(Json{{"t", RoundTo(Elapsed(), 3)},
                                  {"decision", "add"},
                                  {"aggregator", id},
                                  {"reason", decision.reason}});
        if (id >= 0) spread_to_ = id, spread_moves_ = 0;
      } else if (decision.kind == ElasticityDecision::kRemove) {
        int victim = -1;
        double victim_load = 0;
        for (int id : usable) {
          const double load = LoadOf(id);
          if (victim < 0 || load <= victim_load) victim = id, victim_load = load;
        }
        aggs_.at(victim).draining = true;
        if (victim == spread_to_) spread_to_ = -1;
        Log("elasticity: drain aggregator " + std::to_string(victim) + ": " + decision.reason);
        decisions_.push_back(Json{{"t", RoundTo(Elapsed(), 3)},
                                  {"decision", "remove"},
                                  {"aggregator", victim},
                                  {"reason", decision.reason}});
      }
    }
    Rebalance();
    PlaceWaiting();
  }

  void Rebalance() {
    if (migrating_ != 0) {
      if (Clock::now() - migration_started_ < std::chrono::duration<double>(options_.timeout_s)) {
        return;
      }
      migrating_ = 0;  // its job ended or stalled; the shard stays where it is
    }
    // Drained aggregators with nothing left are stopped.
    for (auto& [id, agg] : aggs_) {
      if (!agg.alive || !agg.draining || !agg.joined || agg.retired) continue;
      bool empty = true;
      for (const auto& [sid, shard] : shards_) {
        const bool live = !shard.done && !jobs_.at(shard.job).failed;
        empty = empty && !(live && (shard.agg == id || shard.target == id));
      }
      if (empty) {
        agg.retired = true;
        agg.link->Send(MakeFrame("stop"));
        Log("aggregator " + std::to_string(id) + " drained and stopped");
        return;
      }
    }
    // One migration at a time: off a draining aggregator, else off an overloaded one.
    for (auto& [id, shard] : shards_) {
      if (shard.done || !shard.hosted || !shard.initialized || shard.migrating) continue;
      if (jobs_.at(shard.job).failed || shard.agg < 0) continue;
      const Aggregator& agg = aggs_.at(shard.agg);
      if (agg.draining) {
        int target = Place(DemandOf(shard), shard.agg);
        if (target < 0) target = LeastLoaded(shard.agg);
        if (target >= 0) return StartMigration(shard, target, "draining its aggregator");
      }
    }
    for (auto& [id, shard] : shards_) {
      if (shard.done || !shard.hosted || !shard.initialized || shard.migrating) continue;
      if (jobs_.at(shard.job).failed || shard.agg < 0) continue;
      if (LoadOf(shard.agg) <= Capacity() || shard.demand < 0) continue;
      const int target = Place(DemandOf(shard), shard.agg);
      if (target >= 0) {
        return StartMigration(shard, target,
                              "aggregator " + std::to_string(shard.agg) + " measured at " +
                                  FormatFixed(LoadOf(shard.agg), 2) + " cores, above " +
                                  FormatFixed(Capacity(), 2));
      }
    }
    if (spread_to_ >= 0) Spread();
  }

  // After an elasticity add: one shard at a time moves onto the new aggregator while that lowers
  // the larger of the two loads (new load + shard < source load; the move leaving the two closest
  // first) without overfilling it. A move never makes the reverse move eligible, so this cannot
  // oscillate. It ends once no move helps after at least one completed move (a migration whose
  // job ended first does not count); until then it also applies to the shards of jobs that
  // arrive later. A spread target that dies or is drained ends it.
  void Spread() {
    const auto target = aggs_.find(spread_to_);
    if (target == aggs_.end() || !target->second.alive || target->second.draining) {
      spread_to_ = -1;
      return;
    }
    if (!target->second.joined) return;
    const double target_load = LoadOf(spread_to_);
    Shard* best = nullptr;
    double best_gap = 0, best_source_load = 0;
    for (auto& [id, shard] : shards_) {
      if (shard.done || !shard.hosted || !shard.initialized || shard.migrating) continue;
      if (jobs_.at(shard.job).failed || shard.agg < 0 || shard.agg == spread_to_) continue;
      if (!aggs_.at(shard.agg).alive || aggs_.at(shard.agg).draining) continue;
      const double source_load = LoadOf(shard.agg);
      const double demand = DemandOf(shard);
      if (!(target_load + demand < source_load)) continue;
      if (target_load > 0 && target_load + demand > Capacity()) continue;
      const double gap = std::abs((source_load - demand) - (target_load + demand));
      if (best == nullptr || gap < best_gap) {
        best = &shard, best_gap = gap, best_source_load = source_load;
      }
    }
    if (best == nullptr) {
      if (spread_moves_ > 0) {
        Log("spread onto aggregator " + std::to_string(spread_to_) + " done after " +
            std::to_string(spread_moves_) + " migration(s)");
        spread_to_ = -1;
      }
      return;
    }
    StartMigration(*best, spread_to_,
                   "spreading the load onto aggregator " + std::to_string(spread_to_) +
                       ", added by elasticity (loads " + FormatFixed(best_source_load, 3) + " vs " +
                       FormatFixed(target_load, 3) + " cores)");
  }

  void ReapChildren() {
    for (auto& [id, agg] : aggs_) {
      if (!agg.ours || agg.pid <= 0 || agg.exit_cpu_s >= 0) continue;
      int status = 0;
      rusage usage{};
      if (wait4(agg.pid, &status, WNOHANG, &usage) == agg.pid) {
        agg.exit_cpu_s =
            static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
            static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
        if (!agg.joined && agg.alive) {
          agg.alive = false;
          Log("aggregator " + std::to_string(id) + " exited before joining");
        }
      }
    }
  }

  Json StatusJson() const {
    Json status;
    status["port"] = port_;
    status["aggregators"] = Json::array();
    for (const auto& [id, agg] : aggs_) {
      status["aggregators"].push_back(Json{{"id", id},
                                           {"pid", agg.pid},
                                           {"alive", agg.alive},
                                           {"joined", agg.joined},
                                           {"draining", agg.draining},
                                           {"utilization", RoundTo(agg.cpu.rate(), 4)},
                                           {"load", RoundTo(LoadOf(id), 4)}});
    }
    status["jobs"] = Json::array();
    for (const auto& [id, job] : jobs_) {
      Json shards = Json::array();
      for (uint64_t sid : job.shards) {
        const Shard& shard = shards_.at(sid);
        shards.push_back(
            Json{{"index", shard.index},
                 {"count", shard.count},
                 {"aggregator", shard.agg},
                 {"version", shard.version},
                 {"demand", RoundTo(DemandOf(shard), 5)},
                 {"refused", shard.refused},
                 {"snapshot_version",
                  shard.snapshots.empty() ? Json(nullptr) : Json(shard.snapshots.rbegin()->first)},
                 {"migrations", shard.migrations}});
      }
      status["jobs"].push_back(Json{{"job", job.name},
                                    {"workers", job.workers},
                                    {"parameters", job.parameters},
                                    {"generation", job.generation},
                                    {"resume_version", job.resume_version},
                                    {"replayed", job.replayed},
                                    {"restorations", job.restorations},
                                    {"failed", job.failed},
                                    {"reason", job.reason},
                                    {"done", job.done},
                                    {"shards", shards}});
    }
    status["migrations"] = migrations_;
    status["refused_requests"] = refused_.load();
    return status;
  }

  Json Shutdown() {
    Log("shutting down");
    std::unique_lock<std::mutex> lock(mutex_);
    stopping_ = true;
    for (auto& [id, agg] : aggs_) {
      if (agg.alive && agg.link) agg.link->Send(MakeFrame("stop"));
    }
    if (acceptor_) acceptor_->Close("shutting down");
    // Wait for our aggregators to exit (then kill what is left) and for every handler thread.
    const auto give_up = Clock::now() + std::chrono::seconds(5);
    while (Clock::now() < give_up) {
      ReapChildren();
      bool all = true;
      for (auto& [id, agg] : aggs_) all = all && (!agg.ours || agg.exit_cpu_s >= 0);
      if (all) break;
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      lock.lock();
    }
    for (auto& [id, agg] : aggs_) {
      if (agg.ours && agg.exit_cpu_s < 0 && agg.pid > 0) {
        kill(agg.pid, SIGKILL);
        int status = 0;
        rusage usage{};
        if (wait4(agg.pid, &status, 0, &usage) == agg.pid) {
          agg.exit_cpu_s =
              static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
              static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
        }
      }
    }
    for (int fd : open_fds_) shutdown(fd, SHUT_RDWR);
    changed_.wait(lock, [&] { return handlers_.load() == 0; });

    Json stats = StatusJson();
    double aggregator_cpu = 0;
    Json per_agg = Json::array();
    for (const auto& [id, agg] : aggs_) {
      const double cpu = agg.exit_cpu_s >= 0 ? agg.exit_cpu_s : agg.reported_cpu_s;
      aggregator_cpu += cpu;
      per_agg.push_back(Json{{"id", id}, {"pid", agg.pid}, {"cpu_s", RoundTo(cpu, 4)}});
    }
    stats["aggregator_cpu"] = per_agg;
    stats["aggregator_cpu_s"] = RoundTo(aggregator_cpu, 4);
    stats["coordinator_cpu_s"] = RoundTo(SelfCpuSeconds(), 4);
    stats["start_wall_s"] = start_wall_s_;  // the wall clock at t = 0 of timeline and log
    stats["timeline_columns"] = Json::array({"t_s", "aggregators", "cpu_cores_used"});
    stats["timeline"] = timeline_;
    stats["decisions"] = decisions_;
    stats["migration_log"] = migration_log_;
    stats["log"] = log_;
    for (auto& job : stats["jobs"]) {
      for (const auto& [id, record] : jobs_) {
        if (record.name == job["job"]) {
          job["registered_wall_s"] = record.registered_wall_s;
          job["done_wall_s"] = record.done_wall_s;
        }
      }
    }
    if (!options_.out.empty()) WriteJsonFile(options_.out, stats);
    return stats;
  }

  CoordinatorOptions options_;
  ElasticityController elasticity_;
  std::unique_ptr<wire::HandshakeAcceptor> acceptor_;
  int port_ = 0;
  Clock::time_point start_;
  double start_wall_s_ = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> handlers_{0};
  std::atomic<uint64_t> refused_{0};
  std::set<int> open_fds_;
  std::map<int, Aggregator> aggs_;
  std::map<uint64_t, Job> jobs_;
  std::map<uint64_t, Shard> shards_;
  std::vector<uint64_t> waiting_;
  std::map<uint64_t, Snapshot> pending_states_;
  std::map<uint64_t, uint64_t> pending_versions_;
  uint64_t migrating_ = 0;
  Clock::time_point migration_started_;
  uint64_t migrations_ = 0;
  int next_agg_ = 0;
  uint64_t next_job_ = 1, next_shard_ = 1, next_instance_ = 1;
  Json timeline_ = Json::array();
  Json decisions_ = Json::array();
  Json migration_log_ = Json::array();  // every migration started: t, job, shard, from, to, why
  int spread_to_ = -1;                  // an aggregator added by elasticity, being filled
  int spread_moves_ = 0;
  std::mutex log_mutex_;
  std::vector<std::string> log_;
};

}  // namespace

Json RunCoordinator(const CoordinatorOptions& options) {
  if (options.token_file.empty()) throw std::invalid_argument("the coordinator needs a token file");
  if (options.initial_aggregators < 0 || options.min_aggregators < 1 ||
      options.max_aggregators < options.min_aggregators) {
    throw std::invalid_argument("need 1 <= --min-aggregators <= --max-aggregators");
  }
  if (!(options.headroom >= 0 && options.headroom < 1)) {
    throw std::invalid_argument("--headroom must be in [0, 1)");
  }
  if (options.snapshot_every < 1) throw std::invalid_argument("--snapshot-every must be >= 1");
  if (options.max_shard_floats < 1) throw std::invalid_argument("--max-shard-floats must be >= 1");
  signal(SIGPIPE, SIG_IGN);
  Coordinator coordinator(options);
  return coordinator.Run();
}

}  // namespace jigsaw::paramsvc
