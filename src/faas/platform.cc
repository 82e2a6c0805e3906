#include "faas/platform.h"

#include <fcntl.h>
#include <httplib.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "core/error.h"
#include "core/http_server.h"
#include "core/output.h"
#include "faas/openwhisk_balancer.h"
#include "faas/sparrow_scheduler.h"

namespace jigsaw::faas {
namespace {

constexpr size_t kMaxBodyBytes = 1 << 20;
constexpr size_t kMaxStatsBytes = 16 << 20;
// Platform "sparrow": reservations per SGS (live and stale) before a new task is refused (503).
constexpr size_t kSparrowMaxQueue = 4096;

void Reply(http::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json");
}

// The SGS child: serves until SIGTERM/SIGINT (blocked in every thread; taken with sigwait).
[[noreturn]] void SgsChild(const Catalog& catalog, const SgsOptions& options, int port_pipe) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  int code = 0;
  try {
    SgsServer server(catalog, options);
    const int port = server.Start(0);
    const std::string text = std::to_string(port) + "\n";
    if (::write(port_pipe, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
      code = 1;
    }
    ::close(port_pipe);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    int signal = 0;
    if (code == 0) sigwait(&set, &signal);
    server.Stop();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jigsaw faas: SGS %d: %s\n", static_cast<int>(::getpid()), e.what());
    code = 1;
  }
  std::fflush(stderr);
  _exit(code);
}

// Reads '\n'-terminated lines from a pipe (the supervisor's reports), at most 4 KiB each.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  bool Next(std::string* line) {
    for (;;) {
      const size_t end = buffer_.find('\n');
      if (end != std::string::npos) {
        *line = buffer_.substr(0, end);
        buffer_.erase(0, end + 1);
        return true;
      }
      if (buffer_.size() > 4096) return false;
      char chunk[512];
      const ssize_t n = ::read(fd_, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
};

void WriteLine(int fd, const std::string& line) {
  const std::string text = line + "\n";  // < PIPE_BUF: one atomic write
  (void)!::write(fd, text.data(), text.size());
}

std::string DescribeStatus(int status) {
  if (WIFSIGNALED(status)) {
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

// The SGS supervisor: forked by the platform before any thread exists and single-threaded, so it
// can fork SGS processes safely at any time. It starts `count` SGSs, reports "up S PORT PID" for
// each, then restarts an SGS that dies abnormally (a signal or a nonzero exit) up to
// `max_restarts` times, reporting "down S HOW" and "up S PORT PID" (or "gone S" when it gives
// up). On a 'q' or EOF on `command_fd` it stops every SGS (SIGTERM, SIGKILL after 5 s), reaps
// them and exits. It dies with the platform process (PR_SET_PDEATHSIG), and its SGSs with it.
[[noreturn]] void SupervisorMain(const Catalog& catalog, const SgsOptions& options, int count,
                                 int max_restarts, pid_t platform_pid, int command_fd,
                                 int report_fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != platform_pid) _exit(1);
  std::vector<pid_t> pids(count, -1);
  std::vector<int> restarts(count, 0);
  auto start = [&](int s) {
    int fds[2];
    if (::pipe(fds) != 0) return false;
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      ::close(command_fd);
      ::close(report_fd);
      SgsChild(catalog, options, fds[1]);
    }
    ::close(fds[1]);
    if (pid < 0) {
      ::close(fds[0]);
      return false;
    }
    char buffer[32] = {0};
    ssize_t n;
    while ((n = ::read(fds[0], buffer, sizeof(buffer) - 1)) < 0 && errno == EINTR) {
    }
    ::close(fds[0]);
    const int port = n > 0 ? std::atoi(buffer) : 0;
    if (port <= 0) {
      ::kill(pid, SIGKILL);
      int status = 0;
      ::waitpid(pid, &status, 0);
      return false;
    }
    pids[s] = pid;
    WriteLine(report_fd,
              "up " + std::to_string(s) + " " + std::to_string(port) + " " + std::to_string(pid));
    return true;
  };
  auto stop_all = [&] {
    for (pid_t pid : pids) {
      if (pid > 0) ::kill(pid, SIGTERM);
    }
    for (pid_t pid : pids) {
      if (pid <= 0) continue;
      int status = 0;
      bool reaped = false;
      for (int i = 0; i < 50 && !reaped; ++i) {
        reaped = ::waitpid(pid, &status, WNOHANG) == pid;
        if (!reaped) ::usleep(100 * 1000);
      }
      if (!reaped) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
      }
    }
  };
  for (int s = 0; s < count; ++s) {
    if (!start(s)) {
      WriteLine(report_fd, "fail " + std::to_string(s));
      stop_all();
      _exit(1);
    }
  }
  for (;;) {
    pollfd command{command_fd, POLLIN, 0};
    const int polled = ::poll(&command, 1, 100);
    if (polled > 0) {
      char byte = 0;
      const ssize_t n = ::read(command_fd, &byte, 1);
      if (n == 0 || (n == 1 && byte == 'q') || (n < 0 && errno != EINTR)) break;
    }
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
      for (int s = 0; s < count; ++s) {
        if (pids[s] != pid) continue;
        pids[s] = -1;
        WriteLine(report_fd, "down " + std::to_string(s) + " " + DescribeStatus(status));
        const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (clean || restarts[s] >= max_restarts) {
          WriteLine(report_fd, "gone " + std::to_string(s));
        } else {
          ++restarts[s];
          if (!start(s)) WriteLine(report_fd, "gone " + std::to_string(s));
        }
      }
    }
  }
  stop_all();
  _exit(0);
}

class Balancer {
 public:
  Balancer(const Catalog& catalog, const PlatformOptions& options, std::vector<int> ports,
           std::vector<int64_t> pids)
      : catalog_(catalog),
        options_(options),
        ports_(std::move(ports)),
        pids_(std::move(pids)),
        lb_(static_cast<uint32_t>(catalog.dags.size()), static_cast<uint32_t>(ports_.size()),
            options.balancer),
        load_(ports_.size(), 0),
        in_flight_(ports_.size(), 0),
        usable_(ports_.size(), 1),
        last_stats_(ports_.size(), Json::object()) {
    PoolMemory memory;
    memory.pool_bytes.assign(ports_.size(), options.sgs.memory);
    for (const Dag& dag : catalog.dags) {
      uint64_t bytes = 0;
      for (FunctionId f : dag.nodes) bytes += catalog.functions[f].memory;
      memory.dag_sandbox_bytes.push_back(bytes);
      memory.dag_functions.push_back(static_cast<uint32_t>(dag.nodes.size()));
    }
    memory.epoch_s = static_cast<double>(options.epoch) / static_cast<double>(net::kSecond);
    if (options.platform == "openwhisk") {
      const uint64_t slots =
          options.invoker_memory > 0 ? options.invoker_memory : options.sgs.memory;
      openwhisk_ = std::make_unique<OpenWhiskBalancer>(std::vector<uint64_t>(ports_.size(), slots),
                                                       /*seed=*/1);
    }
    if (options.platform == "sparrow") {
      sparrow_ = std::make_unique<SparrowScheduler>(
          std::vector<uint32_t>(ports_.size(), static_cast<uint32_t>(options.sgs.slots)),
          static_cast<uint32_t>(options.sparrow_probes), kSparrowMaxQueue, /*seed=*/1);
    }
    lb_.SetPoolMemory(std::move(memory));
  }

  int Start() {
    http::ServerOptions http = options_.http;
    http.host = "127.0.0.1";
    http.port = options_.port;
    http.max_body_bytes = kMaxBodyBytes;
    http.handler_threads = options_.http_threads;
    http.max_queued_requests = 2 * options_.http_threads;
    server_ = std::make_unique<http::Server>(http);
    server_->Post(R"(/invoke/([^/]+))", [this](const http::Request& req, http::Response& res) {
      Invoke(req.matches[1], req.body, res);
    });
    server_->Get("/stats",
                 [this](const http::Request&, http::Response& res) { Reply(res, 200, Stats()); });
    server_->set_not_found_hint("expected POST /invoke/{dag} (body at most 1 MiB) or GET /stats");
    int port = 0;
    try {
      port = server_->Start();
    } catch (const UsageError& e) {
      throw UsageError(std::string("faas: ") + e.what());
    }
    running_ = true;
    epochs_ = std::thread([this] { EpochLoop(); });
    return port;
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      running_ = false;
    }
    epoch_cv_.notify_all();
    sparrow_cv_.notify_all();
    if (server_) server_->Stop();
    if (epochs_.joinable()) epochs_.join();
  }

  // Applies the supervisor's reports until EOF (the supervisor exited): an SGS that died is
  // unusable at once; a restarted one is usable on its new port.
  void FollowReader(LineReader* reader) {
    std::string line;
    while (reader->Next(&line)) {
      std::istringstream in(line);
      std::string what;
      size_t s = 0;
      if (!(in >> what >> s) || s >= ports_.size()) continue;
      std::lock_guard<std::mutex> lock(mu_);
      if (what == "up") {
        int port = 0;
        int64_t pid = 0;
        if (!(in >> port >> pid) || port <= 0) continue;
        ports_[s] = port;
        pids_[s] = pid;
        usable_[s] = 1;
        load_[s] = 0;
        ++restarts_[s];
        ++counters_["sgs_restarts"];
      } else if (what == "down") {
        usable_[s] = 0;
        pids_[s] = 0;
        ++counters_["sgs_deaths"];
        std::string how;
        std::getline(in, how);
        last_death_[s] = how.empty() ? how : how.substr(1);
      } else if (what == "gone") {
        usable_[s] = 0;
        ++counters_["sgs_given_up"];
      }
      SyncSparrowLocked();
    }
  }

  Json Stats() {
    std::vector<int> ports;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ports = ports_;
    }
    std::vector<Json> sgs(ports.size());
    for (size_t s = 0; s < ports.size(); ++s) {
      httplib::Client client("127.0.0.1", ports[s]);
      client.set_connection_timeout(2, 0);
      client.set_read_timeout(5, 0);
      auto res = client.Get("/stats");
      if (res && res->status == 200 && res->body.size() < kMaxStatsBytes) {
        try {
          sgs[s] = Json::parse(res->body);
        } catch (const std::exception&) {
          sgs[s] = {{"error", "unreadable /stats"}};
        }
      } else {
        sgs[s] = {{"error", "unreachable"}};
      }
      sgs[s]["port"] = ports[s];
    }
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t s = 0; s < ports.size(); ++s) {
      // The LB's own view of each SGS (also when the SGS itself cannot answer).
      sgs[s]["lb"] = {{"pid", pids_[s]},
                      {"usable", usable_[s] != 0},
                      {"in_flight", in_flight_[s]},
                      {"restarts", restarts_[s]},
                      {"last_death", last_death_[s]}};
    }
    Json j;
    j["platform"] = options_.platform;
    j["sgs_count"] = ports_.size();
    Json counters = Json::object();
    for (const auto& [name, value] : counters_) counters[name] = value;
    j["counters"] = counters;
    j["scale_outs"] = lb_.scale_outs();
    j["scale_ins"] = lb_.scale_ins();
    j["max_sgs_per_dag"] = lb_.max_sgs_per_dag();
    j["memory_scale_ins"] = lb_.memory_scale_ins();
    j["memory_refusals"] = lb_.memory_refusals();
    if (openwhisk_) {
      j["openwhisk_spilled"] = openwhisk_->spilled();
      j["openwhisk_forced"] = openwhisk_->forced();
    }
    if (sparrow_) {
      j["sparrow"] = {{"probes", options_.sparrow_probes},
                      {"launched", sparrow_->launched()},
                      {"late_binding_drops", sparrow_->late_binding_drops()},
                      {"replaced", sparrow_->replaced()},
                      {"refused", sparrow_->refused()},
                      {"failed", sparrow_->failed()},
                      {"pending", sparrow_->pending()}};
    }
    Json sets = Json::object();
    for (DagId d = 0; d < catalog_.dags.size(); ++d) sets[catalog_.dags[d].name] = lb_.SgsOf(d);
    j["sgs_of_dag"] = sets;
    j["sgs"] = sgs;
    return j;
  }

 private:
  // Call with mu_ held. When every SGS looks unusable, the first attempt marks them all usable
  // again rather than refusing at once (an SGS that was only slow to answer /stats comes back; a
  // dead one fails again); a later attempt returns false: stop, none is left.
  bool MarkAllUsableIfNoneLocked(int attempt) {
    if (std::find(usable_.begin(), usable_.end(), 1) != usable_.end()) return true;
    if (attempt > 0) return false;
    std::fill(usable_.begin(), usable_.end(), 1);
    return true;
  }

  void Invoke(const std::string& dag_name, const std::string& body, http::Response& res) {
    DagId dag = 0;
    bool found = false;
    for (DagId d = 0; d < catalog_.dags.size() && !found; ++d) {
      if (catalog_.dags[d].name == dag_name) {
        dag = d;
        found = true;
      }
    }
    if (!found) {
      Count("unknown_dag");
      Reply(res, 404, {{"error", "unknown DAG '" + Excerpt(dag_name) + "'"}});
      return;
    }
    if (openwhisk_ || sparrow_) {
      InvokeComposition(dag, body, res);
      return;
    }
    // A request whose SGS cannot be reached, or dies or hangs up before answering, is sent once
    // more to another usable SGS (functions are pure: a partial first run is harmless); with
    // none left it fails with an explicit 502. Never dropped silently.
    std::string why;
    for (int attempt = 0; attempt < 2; ++attempt) {
      uint32_t s = 0;
      int port = 0;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (!MarkAllUsableIfNoneLocked(attempt)) break;
        std::vector<double> load(ports_.size());
        for (size_t i = 0; i < ports_.size(); ++i) {
          load[i] = load_[i] + static_cast<double>(in_flight_[i]) / options_.sgs.slots;
        }
        s = lb_.Route(dag, load, usable_);
        ++in_flight_[s];
        ++counters_["forwarded"];
        if (attempt > 0) ++counters_["resent"];
        port = ports_[s];
      }
      httplib::Client client("127.0.0.1", port);
      client.set_connection_timeout(2, 0);
      client.set_tcp_nodelay(true);
      client.set_read_timeout(static_cast<time_t>(options_.sgs.request_timeout / net::kSecond) + 5,
                              0);
      auto reply = client.Post("/run/" + dag_name, body, "application/octet-stream");
      std::lock_guard<std::mutex> lock(mu_);
      --in_flight_[s];
      if (reply) {
        ++counters_["answered_" + std::to_string(reply->status)];
        res.status = reply->status;
        res.set_header("X-Faas-Sgs", std::to_string(s));
        res.set_header("X-Faas-Attempts", std::to_string(attempt + 1));
        res.set_content(reply->body, "application/json");
        return;
      }
      why = "SGS " + std::to_string(s) + " (port " + std::to_string(port) +
            ") unreachable or gone before answering: " + httplib::to_string(reply.error());
      usable_[s] = 0;
      ++counters_["sgs_unreachable"];
    }
    Count("failed_no_sgs");
    Reply(res, 502, {{"error", why.empty() ? "no usable SGS" : why}});
  }

  // One function of a composition, as OpenWhisk's controller invokes an action: placed
  // (AcquireLocked) and sent to that SGS's POST /fn; an SGS that cannot be reached or hangs up is
  // marked unusable and the function is placed once more. Returns the SGS's answer (status 0: none)
  // and the SGS that gave it.
  struct FunctionAnswer {
    int status = 0;
    std::string body;
    int sgs = -1;
    int attempts = 0;
  };
  FunctionAnswer InvokeFunction(DagId dag, uint32_t node, const std::string& payload) {
    const Dag& d = catalog_.dags[dag];
    const FunctionId f = d.nodes[node];
    const uint64_t bytes = catalog_.functions[f].memory;
    FunctionAnswer answer;
    std::string why = "no usable SGS";
    for (int attempt = 0; attempt < 2; ++attempt) {
      int s = -1;
      int port = 0;
      {
        std::unique_lock<std::mutex> lock(mu_);
        if (!MarkAllUsableIfNoneLocked(attempt)) break;
        s = AcquireLocked(lock, f, bytes, &answer.status, &why);
        if (s < 0) break;
        ++in_flight_[s];
        ++counters_["forwarded_functions"];
        if (attempt > 0) ++counters_["resent"];
        port = ports_[s];
      }
      answer.attempts = attempt + 1;
      httplib::Client client("127.0.0.1", port);
      client.set_connection_timeout(2, 0);
      client.set_tcp_nodelay(true);
      client.set_read_timeout(static_cast<time_t>(options_.sgs.request_timeout / net::kSecond) + 5,
                              0);
      auto reply = client.Post("/fn/" + d.name + "/" + catalog_.functions[f].name, payload,
                               "application/octet-stream");
      std::lock_guard<std::mutex> lock(mu_);
      --in_flight_[s];
      ReleaseLocked(static_cast<uint32_t>(s), bytes);
      if (reply) {
        ++counters_["answered_function_" + std::to_string(reply->status)];
        answer.status = reply->status;
        answer.body = reply->body;
        answer.sgs = s;
        return answer;
      }
      why = "SGS " + std::to_string(s) + " (port " + std::to_string(port) +
            ") unreachable or gone before answering: " + httplib::to_string(reply.error());
      usable_[s] = 0;
      SyncSparrowLocked();
      ++counters_["sgs_unreachable"];
    }
    answer.body = Json{{"error", why}}.dump();
    return answer;
  }

  // The SGS that runs function f (holding `bytes`), or -1 with *why (and *status when not 502).
  // "openwhisk": OpenWhiskBalancer::Acquire (the function is the action; it holds its memory in
  // the invoker's slots until answered). "sparrow": a SparrowScheduler reservation on `probes`
  // random SGSs, waiting (mu_ released) until one of them has a free slot for it.
  int AcquireLocked(std::unique_lock<std::mutex>& lock, FunctionId f, uint64_t bytes, int* status,
                    std::string* why) {
    if (openwhisk_) return openwhisk_->Acquire(f, bytes, usable_);
    SyncSparrowLocked();
    std::vector<SparrowScheduler::Launch> launches;
    const uint64_t task = sparrow_->Reserve(&launches);
    ApplyLaunchesLocked(launches);
    if (task == 0) {
      *status = 503;
      *why = "every usable SGS has " + std::to_string(kSparrowMaxQueue) + " reservations queued";
      return -1;
    }
    sparrow_cv_.wait_for(lock, std::chrono::nanoseconds(options_.sgs.request_timeout),
                         [&] { return sparrow_placed_.count(task) > 0 || !running_; });
    if (sparrow_placed_.count(task) == 0) {  // timed out, or the LB is stopping
      sparrow_->Cancel(task);
      *status = 504;
      *why = "no probed SGS had a free slot in time";
      return -1;
    }
    const int s = sparrow_placed_[task];
    sparrow_placed_.erase(task);
    if (s < 0) *why = "the reserved SGSs became unusable and no usable SGS was left";
    return s;
  }

  void ReleaseLocked(uint32_t s, uint64_t bytes) {
    if (openwhisk_) {
      openwhisk_->Release(s, bytes);
    } else {
      ApplyLaunchesLocked(sparrow_->Finish(s));
    }
  }

  // Platform "sparrow": tells the scheduler which SGSs changed usability (their reservations move).
  void SyncSparrowLocked() {
    if (!sparrow_) return;
    for (uint32_t s = 0; s < usable_.size(); ++s) {
      if ((usable_[s] != 0) != sparrow_->usable(s)) {
        ApplyLaunchesLocked(sparrow_->SetUsable(s, usable_[s] != 0));
      }
    }
  }

  // Hands each decision to the function thread waiting for it.
  void ApplyLaunchesLocked(const std::vector<SparrowScheduler::Launch>& launches) {
    for (const auto& launch : launches) sparrow_placed_[launch.task] = launch.sgs;
    if (!launches.empty()) sparrow_cv_.notify_all();
  }

  // Platform "openwhisk": the LB is the controller of a composition. Each function whose
  // predecessors have answered is invoked on its own (InvokeFunction, one thread each, so a
  // fan-out runs in parallel); the functions read the request's payload, and their outputs come
  // back through the controller into the answer. The first function that fails fails the request
  // with its SGS's status and error (its successors are not invoked).
  void InvokeComposition(DagId dag, const std::string& payload, http::Response& res) {
    const auto begin = std::chrono::steady_clock::now();
    const Dag& d = catalog_.dags[dag];
    std::mutex mu;
    std::condition_variable cv;
    std::vector<uint32_t> waiting = d.predecessor_count;
    std::vector<int> sgs_of(d.nodes.size(), -1);
    std::vector<std::thread> threads;
    int running = 0;
    uint32_t done = 0;
    int failed_status = 0;
    Json failed_body;
    Json outputs = Json::object();
    int cold_starts = 0, retries = 0;
    std::function<void(uint32_t)> launch;  // with mu held
    launch = [&](uint32_t node) {
      ++running;
      threads.emplace_back([&, node] {
        FunctionAnswer answer = InvokeFunction(dag, node, payload);
        Json body;
        try {
          body = Json::parse(answer.body);
        } catch (const std::exception&) {
          body = Json{{"error", "unreadable answer from SGS " + std::to_string(answer.sgs)}};
          if (answer.status == 200) answer.status = 502;
        }
        std::lock_guard<std::mutex> lock(mu);
        --running;
        sgs_of[node] = answer.sgs;
        if (body.is_object()) {
          cold_starts += body.value("cold_starts", 0);
          retries += body.value("retries", 0) + answer.attempts - 1;
        }
        if (answer.status != 200) {
          if (failed_status == 0) {
            failed_status = answer.status == 0 ? 502 : answer.status;
            failed_body = body.is_object() ? body : Json::object();
            failed_body["function"] = catalog_.functions[d.nodes[node]].name;
          }
        } else if (failed_status == 0) {
          const std::string& name = catalog_.functions[d.nodes[node]].name;
          if (body.contains("outputs") && body["outputs"].contains(name)) {
            outputs[name] = body["outputs"][name];
          }
          ++done;
          for (uint32_t next : d.successors[node]) {
            if (--waiting[next] == 0) launch(next);
          }
        }
        cv.notify_all();
      });
    };
    std::unique_lock<std::mutex> lock(mu);
    for (uint32_t node = 0; node < d.nodes.size(); ++node) {
      if (d.predecessor_count[node] == 0) launch(node);
    }
    cv.wait(lock, [&] { return running == 0; });
    lock.unlock();
    for (std::thread& t : threads) t.join();
    std::string placement;
    for (int s : sgs_of) {
      if (!placement.empty()) placement += ",";
      placement += std::to_string(s);
    }
    res.set_header("X-Faas-Sgs", placement);
    const double latency_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
    if (failed_status != 0 || done != d.nodes.size()) {
      Count("failed_composition");
      failed_body["dag"] = d.name;
      failed_body["cold_starts"] = cold_starts;
      failed_body["retries"] = retries;
      if (!failed_body.contains("error")) failed_body["error"] = "the composition did not finish";
      Reply(res, failed_status != 0 ? failed_status : 502, failed_body);
      return;
    }
    Count("answered_200");
    Reply(res, 200,
          {{"dag", d.name},
           {"latency_ms", latency_ms},
           {"tasks", d.nodes.size()},
           {"cold_starts", cold_starts},
           {"retries", retries},
           {"outputs", outputs}});
  }

  void Count(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    ++counters_[name];
  }

  void EpochLoop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (running_) {
      epoch_cv_.wait_for(lock, std::chrono::nanoseconds(options_.epoch / 1000),
                         [this] { return !running_; });
      if (!running_) break;
      // Start from the last known state: an SGS that is only slow to answer keeps it.
      std::vector<double> load = load_;
      std::vector<char> usable = usable_;
      const std::vector<int> ports = ports_;
      lock.unlock();
      std::vector<double> demand(catalog_.dags.size() * ports_.size(), 0);
      for (size_t s = 0; s < ports.size(); ++s) {
        httplib::Client client("127.0.0.1", ports[s]);
        client.set_connection_timeout(1, 0);
        client.set_read_timeout(5, 0);
        auto res = client.Get("/stats?reset=1");
        if (!res && res.error() == httplib::Error::Connection) {
          usable[s] = 0;  // nothing listens there: the SGS is gone
          continue;
        }
        if (res) usable[s] = 1;
        Json stats;
        try {
          if (res && res->status == 200 && res->body.size() < kMaxStatsBytes) {
            stats = Json::parse(res->body);
          }
        } catch (const std::exception&) {
        }
        if (!stats.is_object() || !stats.contains("load")) continue;  // slow or garbled: as before
        load[s] = stats["load"].get<double>();
        for (DagId d = 0; d < catalog_.dags.size(); ++d) {
          const Json& by_dag = stats["demand_core_s"];
          if (by_dag.contains(catalog_.dags[d].name)) {
            demand[d * ports_.size() + s] = by_dag[catalog_.dags[d].name].get<double>();
          }
        }
      }
      lock.lock();
      for (size_t s = 0; s < ports.size(); ++s) {
        if (ports_[s] != ports[s]) continue;  // restarted meanwhile: its new state stands
        load_[s] = load[s];
        usable_[s] = usable[s];
      }
      SyncSparrowLocked();
      if (options_.platform == "archipelago") lb_.EndEpoch(load, demand, usable);
    }
  }

  const Catalog& catalog_;
  const PlatformOptions& options_;
  std::vector<int> ports_;     // under mu_: a restarted SGS has a new port
  std::vector<int64_t> pids_;  // under mu_; 0 while an SGS is down
  std::vector<int> restarts_ = std::vector<int>(ports_.size(), 0);
  std::vector<std::string> last_death_ = std::vector<std::string>(ports_.size());
  std::mutex mu_;
  std::condition_variable epoch_cv_;
  bool running_ = false;
  LoadBalancer lb_;
  std::unique_ptr<OpenWhiskBalancer> openwhisk_;      // platform "openwhisk" only
  std::unique_ptr<SparrowScheduler> sparrow_;         // platform "sparrow" only
  std::condition_variable sparrow_cv_;                // a task in sparrow_placed_, or stopping
  std::unordered_map<uint64_t, int> sparrow_placed_;  // task -> its SGS (-1: failed), not yet taken
  std::vector<double> load_;
  std::vector<int> in_flight_;
  std::vector<char> usable_;
  std::vector<Json> last_stats_;
  std::map<std::string, int64_t> counters_;
  std::unique_ptr<http::Server> server_;
  std::thread epochs_;
};

}  // namespace

int RunPlatform(const Catalog& catalog, PlatformOptions options) {
  if (options.platform != "archipelago" && options.platform != "openwhisk" &&
      options.platform != "sparrow") {
    throw UsageError("--platform '" + options.platform +
                     "': expected archipelago, openwhisk or sparrow");
  }
  if (options.sparrow_probes < 1 || options.sparrow_probes > 8) {
    throw UsageError("--sparrow-probes must be in 1..8");
  }
  if (options.sgs_count < 1 || options.sgs_count > 64) {
    throw UsageError("--sgs must be in 1..64");
  }
  if (options.platform != "archipelago") {
    options.sgs.policy = QueuePolicy::kFifo;
    options.sgs.proactive = false;
  }
  if (options.platform != "openwhisk") {
    options.sgs.pause_grace = 0;  // Archipelago keeps its sandboxes warm; Sparrow has no pausing
  }
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // inherited by every thread and child

  // The supervisor forks (and restarts) the SGSs; it is forked before any thread exists.
  int command[2], report[2];
  if (::pipe2(command, O_CLOEXEC) != 0) throw std::runtime_error("faas: pipe failed");
  if (::pipe2(report, O_CLOEXEC) != 0) {
    ::close(command[0]);
    ::close(command[1]);
    throw std::runtime_error("faas: pipe failed");
  }
  const pid_t platform_pid = ::getpid();
  std::fflush(nullptr);
  const pid_t supervisor = ::fork();
  if (supervisor == 0) {
    ::close(command[1]);
    ::close(report[0]);
    SupervisorMain(catalog, options.sgs, options.sgs_count, options.max_sgs_restarts, platform_pid,
                   command[0], report[1]);
  }
  ::close(command[0]);
  ::close(report[1]);
  if (supervisor < 0) {
    ::close(command[1]);
    ::close(report[0]);
    throw std::runtime_error("faas: fork failed");
  }
  bool supervisor_stopped = false;
  auto stop_supervisor = [&] {
    if (supervisor_stopped) return;
    supervisor_stopped = true;
    WriteLine(command[1], "q");
    ::close(command[1]);
    int status = 0;
    while (::waitpid(supervisor, &status, 0) < 0 && errno == EINTR) {
    }
  };
  std::vector<int> ports(options.sgs_count, 0);
  std::vector<int64_t> pids(options.sgs_count, 0);
  LineReader reader(report[0]);
  for (int started = 0; started < options.sgs_count;) {
    std::string line;
    std::istringstream in;
    std::string what;
    int s = -1, port = 0;
    int64_t pid = 0;
    if (reader.Next(&line)) {
      in.str(line);
      in >> what >> s >> port >> pid;
    }
    if (what != "up" || s < 0 || s >= options.sgs_count || port <= 0) {
      stop_supervisor();
      ::close(report[0]);
      throw std::runtime_error("faas: SGS " + std::to_string(started) + " did not start");
    }
    ports[s] = port;
    pids[s] = pid;
    ++started;
  }
  int code = 0;
  Json final_stats;
  Balancer balancer(catalog, options, ports, pids);
  std::thread follower([&balancer, &reader] { balancer.FollowReader(&reader); });
  try {
    const int port = balancer.Start();
    std::fprintf(stderr, "jigsaw faas: %s, load balancer on 127.0.0.1:%d, %d SGS (ports",
                 options.platform.c_str(), port, options.sgs_count);
    for (int p : ports) std::fprintf(stderr, " %d", p);
    std::fprintf(stderr, "), %d slots each; SIGTERM or Ctrl-C stops\n", options.sgs.slots);
    if (!options.port_file.empty()) {
      const std::string tmp = options.port_file + ".tmp";
      {
        std::ofstream out(tmp);
        out << port << "\n";
      }
      std::rename(tmp.c_str(), options.port_file.c_str());
    }
    int signal = 0;
    sigwait(&set, &signal);
    if (!options.out.empty()) final_stats = balancer.Stats();
  } catch (...) {
    balancer.Stop();
    stop_supervisor();
    follower.join();
    ::close(report[0]);
    throw;
  }
  balancer.Stop();
  stop_supervisor();  // its exit closes the report pipe: the follower ends
  follower.join();
  ::close(report[0]);
  if (!options.out.empty()) {
    // CPU of the whole platform: the LB, and the reaped SGSs with their reaped sandboxes.
    rusage self{}, children{};
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
    final_stats["cpu_s"] = seconds(self.ru_utime) + seconds(self.ru_stime) +
                           seconds(children.ru_utime) + seconds(children.ru_stime);
    WriteJsonFile(options.out + "/platform.json", final_stats);
  }
  std::fprintf(stderr, "jigsaw faas: stopped\n");
  return code;
}

}  // namespace jigsaw::faas
