#include "faas/platform.h"

#include <httplib.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "core/output.h"
#include "serve/bounded_task_queue.h"

namespace jigsaw::faas {
namespace {

constexpr size_t kMaxBodyBytes = 1 << 20;
constexpr size_t kMaxStatsBytes = 16 << 20;

void Reply(httplib::Response& res, int status, const Json& body) {
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

class Balancer {
 public:
  Balancer(const Catalog& catalog, const PlatformOptions& options, std::vector<int> ports)
      : catalog_(catalog),
        options_(options),
        ports_(std::move(ports)),
        lb_(static_cast<uint32_t>(catalog.dags.size()), static_cast<uint32_t>(ports_.size()),
            options.balancer),
        load_(ports_.size(), 0),
        in_flight_(ports_.size(), 0),
        usable_(ports_.size(), 1),
        last_stats_(ports_.size(), Json::object()) {}

  int Start() {
    server_.new_task_queue = [this] {
      return new BoundedTaskQueue(options_.http_threads, 2 * options_.http_threads);
    };
    server_.set_payload_max_length(kMaxBodyBytes);
    server_.set_read_timeout(5, 0);
    server_.set_keep_alive_timeout(5);
    server_.set_tcp_nodelay(true);  // no Nagle + delayed-ACK stalls on small replies
    server_.Post(R"(/invoke/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
      Invoke(req.matches[1].str(), req.body, res);
    });
    server_.Get("/stats", [this](const httplib::Request&, httplib::Response& res) {
      Reply(res, 200, Stats());
    });
    server_.set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (res.body.empty()) {
        Reply(res, res.status,
              {{"error", "HTTP " + std::to_string(res.status) +
                             ": expected POST /invoke/{dag} (body at most 1 MiB) or GET /stats"}});
      }
    });
    const int port = options_.port == 0
                         ? server_.bind_to_any_port("127.0.0.1")
                         : (server_.bind_to_port("127.0.0.1", options_.port) ? options_.port : -1);
    if (port <= 0) {
      throw UsageError("faas: cannot listen on 127.0.0.1:" + std::to_string(options_.port));
    }
    running_ = true;
    listener_ = std::thread([this] { server_.listen_after_bind(); });
    epochs_ = std::thread([this] { EpochLoop(); });
    return port;
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      running_ = false;
    }
    epoch_cv_.notify_all();
    server_.stop();
    if (listener_.joinable()) listener_.join();
    if (epochs_.joinable()) epochs_.join();
  }

  Json Stats() {
    std::vector<Json> sgs(ports_.size());
    for (size_t s = 0; s < ports_.size(); ++s) {
      httplib::Client client("127.0.0.1", ports_[s]);
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
      sgs[s]["port"] = ports_[s];
    }
    std::lock_guard<std::mutex> lock(mu_);
    Json j;
    j["platform"] = options_.platform;
    j["sgs_count"] = ports_.size();
    Json counters = Json::object();
    for (const auto& [name, value] : counters_) counters[name] = value;
    j["counters"] = counters;
    j["scale_outs"] = lb_.scale_outs();
    j["scale_ins"] = lb_.scale_ins();
    j["max_sgs_per_dag"] = lb_.max_sgs_per_dag();
    Json sets = Json::object();
    for (DagId d = 0; d < catalog_.dags.size(); ++d) sets[catalog_.dags[d].name] = lb_.SgsOf(d);
    j["sgs_of_dag"] = sets;
    j["sgs"] = sgs;
    return j;
  }

 private:
  void Invoke(const std::string& dag_name, const std::string& body, httplib::Response& res) {
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
    std::string why;
    for (int attempt = 0; attempt < 2; ++attempt) {
      uint32_t s = 0;
      {
        std::lock_guard<std::mutex> lock(mu_);
        bool any = false;
        for (char u : usable_) any = any || u;
        if (!any && attempt > 0) break;
        // Every SGS looks unusable: try them all again rather than refusing at once (an SGS
        // that was only slow to answer /stats comes back; a dead one fails again).
        if (!any) std::fill(usable_.begin(), usable_.end(), 1);
        std::vector<double> load(ports_.size());
        for (size_t i = 0; i < ports_.size(); ++i) {
          load[i] = load_[i] + static_cast<double>(in_flight_[i]) / options_.sgs.slots;
        }
        s = lb_.Route(dag, load, usable_);
        ++in_flight_[s];
        ++counters_["forwarded"];
      }
      httplib::Client client("127.0.0.1", ports_[s]);
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
        res.set_content(reply->body, "application/json");
        return;
      }
      why = "SGS " + std::to_string(s) + " (port " + std::to_string(ports_[s]) +
            ") unreachable: " + httplib::to_string(reply.error());
      usable_[s] = 0;
      ++counters_["sgs_unreachable"];
    }
    Count("failed_no_sgs");
    Reply(res, 502, {{"error", why.empty() ? "no usable SGS" : why}});
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
      lock.unlock();
      std::vector<double> demand(catalog_.dags.size() * ports_.size(), 0);
      for (size_t s = 0; s < ports_.size(); ++s) {
        httplib::Client client("127.0.0.1", ports_[s]);
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
      load_ = load;
      usable_ = usable;
      if (options_.platform == "archipelago") lb_.EndEpoch(load, demand, usable);
    }
  }

  const Catalog& catalog_;
  const PlatformOptions& options_;
  std::vector<int> ports_;
  std::mutex mu_;
  std::condition_variable epoch_cv_;
  bool running_ = false;
  LoadBalancer lb_;
  std::vector<double> load_;
  std::vector<int> in_flight_;
  std::vector<char> usable_;
  std::vector<Json> last_stats_;
  std::map<std::string, int64_t> counters_;
  httplib::Server server_;
  std::thread listener_, epochs_;
};

}  // namespace

int RunPlatform(const Catalog& catalog, PlatformOptions options) {
  if (options.platform != "archipelago" && options.platform != "openwhisk") {
    throw UsageError("--platform '" + options.platform + "': expected archipelago or openwhisk");
  }
  if (options.sgs_count < 1 || options.sgs_count > 64) {
    throw UsageError("--sgs must be in 1..64");
  }
  if (options.platform == "openwhisk") {
    options.sgs.policy = QueuePolicy::kFifo;
    options.sgs.proactive = false;
  }
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // inherited by every thread and child

  std::vector<pid_t> children;
  std::vector<int> ports;
  auto stop_children = [&children] {
    for (pid_t pid : children) ::kill(pid, SIGTERM);
    for (pid_t pid : children) {
      int status = 0;
      for (int i = 0; i < 50; ++i) {
        if (::waitpid(pid, &status, WNOHANG) == pid) {
          pid = -1;
          break;
        }
        ::usleep(100 * 1000);
      }
      if (pid > 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
      }
    }
  };
  for (int s = 0; s < options.sgs_count; ++s) {
    int fds[2];
    if (::pipe(fds) != 0) {
      stop_children();
      throw std::runtime_error("faas: pipe failed");
    }
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      SgsChild(catalog, options.sgs, fds[1]);
    }
    ::close(fds[1]);
    if (pid < 0) {
      ::close(fds[0]);
      stop_children();
      throw std::runtime_error("faas: fork failed");
    }
    children.push_back(pid);
    char buffer[32] = {0};
    const ssize_t n = ::read(fds[0], buffer, sizeof(buffer) - 1);
    ::close(fds[0]);
    const int port = n > 0 ? std::atoi(buffer) : 0;
    if (port <= 0) {
      stop_children();
      throw std::runtime_error("faas: SGS " + std::to_string(s) + " did not start");
    }
    ports.push_back(port);
  }
  int code = 0;
  Json final_stats;
  try {
    Balancer balancer(catalog, options, ports);
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
    balancer.Stop();
  } catch (...) {
    stop_children();
    throw;
  }
  stop_children();
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
