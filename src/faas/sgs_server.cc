#include "faas/sgs_server.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <list>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/http_server.h"
#include "core/json_input.h"
#include "core/output.h"
#include "faas/duration_table.h"
#include "faas/estimator.h"
#include "faas/proactive.h"
#include "faas/sandbox_pause.h"
#include "faas/sandbox_process.h"
#include "faas/worker.h"

namespace jigsaw::faas {
namespace {

constexpr size_t kMaxBodyBytes = 1 << 20;
// What /stats reports of each function's recent durations (faas-sim --durations replays them).
const std::vector<double> kReportedQuantiles = {0,    0.01, 0.05, 0.1,  0.25,  0.5,
                                                0.75, 0.9,  0.95, 0.99, 0.999, 1};

Time Now() {
  return static_cast<Time>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::steady_clock::now().time_since_epoch())
                               .count()) *
         1000;
}

double Ms(Time t) { return static_cast<double>(t) / net::kMillisecond; }

Time Longest(const std::vector<Time>& path) { return *std::max_element(path.begin(), path.end()); }

void Reply(http::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json");
}

}  // namespace

class SgsServer::Impl {
 public:
  Impl(const Catalog& catalog, SgsOptions options)
      : catalog_(catalog),
        options_(std::move(options)),
        queue_(options_.policy),
        durations_(catalog_),
        recent_(catalog_.functions.size()),
        rates_(catalog_.functions.size(), options_.epoch),
        allocator_(ProactiveOptions{2.0, options_.keep_alive}),
        memory_of_(MemoryOf(catalog_)),
        books_(options_.slots, options_.memory, &memory_of_),
        used_at_(catalog_.functions.size(), -1),
        setup_sum_(catalog_.functions.size(), 0),
        setup_count_(catalog_.functions.size(), 0),
        demand_(catalog_.dags.size(), 0) {}

  ~Impl() {
    Stop();
    for (int fd : stop_pipe_) {
      if (fd >= 0) ::close(fd);
    }
  }

  int Start(int port) {
    http::ServerOptions http = options_.http;
    http.host = "127.0.0.1";
    http.port = port;
    http.max_body_bytes = kMaxBodyBytes;
    http.handler_threads = options_.http_threads;
    http.max_queued_requests = 2 * options_.http_threads;
    server_ = std::make_unique<http::Server>(http);
    server_->Post(R"(/run/([^/]+))", [this](const http::Request& req, http::Response& res) {
      Run(req.matches[1], "", req.body, res);
    });
    server_->Post(R"(/fn/([^/]+)/([^/]+))", [this](const http::Request& req, http::Response& res) {
      Run(req.matches[1], req.matches[2], req.body, res);
    });
    server_->Get("/stats", [this](const http::Request& req, http::Response& res) {
      Reply(res, 200, Stats(req.has_param("reset")));
    });
    server_->set_not_found_hint(
        "expected POST /run/{dag}, POST /fn/{dag}/{function} or GET /stats");
    try {
      port_ = server_->Start();
    } catch (const UsageError& e) {
      throw UsageError(std::string("faas SGS: ") + e.what());
    }
    if (::pipe2(stop_pipe_, O_CLOEXEC) != 0) throw std::runtime_error("faas SGS: pipe failed");
    running_ = true;
    scheduler_ = std::thread([this] { ScheduleLoop(); });
    epoch_thread_ = std::thread([this] { EpochLoop(); });
    return port_;
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!running_) return;
      running_ = false;
      for (auto& [id, r] : requests_) {
        if (!r->finished) Finish(*r, 503, "the SGS is shutting down");
      }
      for (auto& s : sandboxes_) s->retire = true;
      for (auto& s : sandboxes_) s->cv.notify_all();
      // Wakes every Spawn still waiting for a sandbox's "ready" (level-triggered: never read).
      const char byte = 'x';
      (void)!::write(stop_pipe_[1], &byte, 1);
    }
    cv_.notify_all();
    epoch_cv_.notify_all();
    server_->Stop();
    if (scheduler_.joinable()) scheduler_.join();
    if (epoch_thread_.joinable()) epoch_thread_.join();
    std::list<std::unique_ptr<Sandbox>> all;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& s : sandboxes_) {
        if (s->process) s->process->Kill();
      }
      all.swap(sandboxes_);
    }
    for (auto& s : all) {
      s->cv.notify_all();
      if (s->thread.joinable()) s->thread.join();
    }
  }

 private:
  enum class State { kWarming, kIdle, kBusy, kRetired, kDead };
  struct Sandbox {
    uint64_t id = 0;
    FunctionId function = 0;
    State state = State::kWarming;
    bool cold = false;  // created for a waiting task
    bool has_task = false;
    bool retire = false;
    bool exited = false;
    bool paused = false;  // mirrors pause->paused() for /stats (pause is the thread's own)
    ReadyTask task;
    Time dispatched_at = -1;  // of a task given to this idle sandbox (not a cold start)
    Time last_used = 0;
    std::unique_ptr<SandboxProcess> process;
    std::unique_ptr<SandboxPause> pause;  // pause_grace > 0
    std::condition_variable cv;
    std::thread thread;
  };
  struct Request {
    uint32_t id = 0;
    DagId dag = 0;
    std::string payload;
    Time arrival = 0, deadline = 0;
    std::vector<uint32_t> waiting;  // unfinished predecessors per node
    std::vector<int> attempts;      // per node
    uint32_t done = 0;
    uint32_t total = 0;  // nodes to run: the whole DAG, or 1 for POST /fn
    int cold_starts = 0, retries = 0;
    bool finished = false;
    int status = 0;
    std::string error;
    Json outputs = Json::object();
    std::condition_variable cv;
  };

  static std::vector<uint64_t> MemoryOf(const Catalog& catalog) {
    std::vector<uint64_t> memory;
    for (const Function& f : catalog.functions) memory.push_back(f.memory);
    return memory;
  }

  // ---- HTTP side ----
  // `function` empty: the whole DAG; else only that function of it (its successors are not run).
  void Run(const std::string& dag_name, const std::string& function, const std::string& payload,
           http::Response& res) {
    const Time arrival = Now();
    DagId dag = 0;
    bool found = false;
    for (DagId d = 0; d < catalog_.dags.size(); ++d) {
      if (catalog_.dags[d].name == dag_name) {
        dag = d;
        found = true;
      }
    }
    if (!found) {
      Reply(res, 404, {{"error", "unknown DAG '" + Excerpt(dag_name) + "'"}});
      return;
    }
    const Dag& d = catalog_.dags[dag];
    int only = -1;
    if (!function.empty()) {
      for (uint32_t node = 0; node < d.nodes.size() && only < 0; ++node) {
        if (catalog_.functions[d.nodes[node]].name == function) only = static_cast<int>(node);
      }
      if (only < 0) {
        Reply(res, 404,
              {{"error", "DAG '" + d.name + "' has no function '" + Excerpt(function) + "'"}});
        return;
      }
    }
    std::unique_lock<std::mutex> lock(mu_);
    ++counters_["requests"];
    if (!running_ || requests_.size() >= static_cast<size_t>(options_.max_requests)) {
      ++counters_["rejected"];
      lock.unlock();
      Reply(res, 503,
            {{"error",
              "SGS full: " + std::to_string(options_.max_requests) + " requests in flight"}});
      return;
    }
    auto request = std::make_shared<Request>();
    request->id = next_request_++;
    request->dag = dag;
    request->payload = payload;
    request->arrival = arrival;
    request->deadline = arrival + d.deadline;
    request->waiting = d.predecessor_count;
    request->attempts.assign(d.nodes.size(), 0);
    request->total = only < 0 ? static_cast<uint32_t>(d.nodes.size()) : 1;
    requests_[request->id] = request;
    const std::vector<Time> path = CriticalPathFrom(d, durations_.estimates());
    for (uint32_t node = 0; node < d.nodes.size(); ++node) {
      if (only >= 0 && node != static_cast<uint32_t>(only)) continue;
      rates_.Count(d.nodes[node]);
      used_at_[d.nodes[node]] = arrival;
      if (only >= 0 || d.predecessor_count[node] == 0)
        PushTask(*request, node, path[node], Longest(path), arrival);
    }
    cv_.notify_all();
    request->cv.wait_until(lock,
                           std::chrono::steady_clock::now() +
                               std::chrono::nanoseconds(options_.request_timeout / 1000),
                           [&] { return request->finished; });
    if (!request->finished) Finish(*request, 504, "timed out in the SGS");
    requests_.erase(request->id);
    Json body;
    const int status = request->status;
    if (status == 200) {
      body = {{"dag", d.name},
              {"latency_ms", Ms(Now() - arrival)},
              {"tasks", request->total},
              {"cold_starts", request->cold_starts},
              {"retries", request->retries},
              {"outputs", request->outputs}};
    } else {
      body = {{"dag", d.name},
              {"error", request->error},
              {"cold_starts", request->cold_starts},
              {"retries", request->retries}};
    }
    lock.unlock();
    Reply(res, status, body);
  }

  // ---- scheduling (every function below runs with mu_ held) ----
  void PushTask(const Request& r, uint32_t node, Time remaining, Time whole, Time now) {
    ReadyTask task;
    task.request = r.id;
    task.node = node;
    task.function = catalog_.dags[r.dag].nodes[node];
    task.deadline = r.deadline;
    task.remaining_critical_path = remaining;
    task.request_critical_path = whole;
    task.queued = now;
    queue_.Push(task);
    dirty_ = true;
  }

  void Finish(Request& r, int status, const std::string& error) {
    if (r.finished) return;
    r.finished = true;
    r.status = status;
    r.error = error;
    ++counters_[status == 200 ? "completed" : "failed_" + std::to_string(status)];
    r.cv.notify_all();
  }

  Request* Live(uint32_t id) {
    auto found = requests_.find(id);
    if (found == requests_.end() || found->second->finished) return nullptr;
    return found->second.get();
  }

  // A task whose sandbox died: again (until max_attempts), else the request fails explicitly.
  void RetryOrFail(const ReadyTask& task, const std::string& why) {
    Request* r = Live(task.request);
    if (!r) return;
    if (++r->attempts[task.node] < options_.max_attempts) {
      ++r->retries;
      ++counters_["retries"];
      queue_.Push(task);
      dirty_ = true;
      return;
    }
    Finish(*r, 502,
           "function '" + catalog_.functions[task.function].name + "' failed after " +
               std::to_string(r->attempts[task.node]) + " attempt(s): " + why);
  }

  void ScheduleLoop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (running_) {
      cv_.wait(lock, [this] { return !running_ || dirty_; });
      if (!running_) break;
      dirty_ = false;
      if (queue_.policy() != QueuePolicy::kFifo) queue_.DemoteLate(Now());
      std::vector<ReadyTask> skipped;
      std::vector<int> claimed(catalog_.functions.size(), 0);
      while (!queue_.empty() && books_.free_cores() > 0) {
        const ReadyTask task = queue_.Pop();
        Request* r = Live(task.request);
        if (!r) continue;  // answered already (timed out or failed): its tasks are dropped
        const FunctionId f = task.function;
        Sandbox* idle = books_.idle(f) > 0 ? IdleSandbox(f) : nullptr;
        if (idle) {
          Dispatch(task, idle);
          continue;
        }
        if (claimed[f] < books_.warming(f)) {  // park for a sandbox that is being created
          ++claimed[f];
          skipped.push_back(task);
          continue;
        }
        uint64_t evicted = 0;
        if (books_.MakeRoom(
                f, [this](FunctionId) { return true; }, &evicted)) {
          counters_["evicted"] += evicted;
          SyncEvictions();
          books_.CreateBusy(f);
          books_.TakeCore();
          ++r->cold_starts;
          ++counters_["cold_starts"];
          ++counters_["tasks"];
          Sandbox* s = NewSandbox(f, State::kBusy);
          s->cold = true;
          s->has_task = true;
          s->task = task;
          continue;
        }
        SyncEvictions();
        skipped.push_back(task);  // no memory for it now
      }
      for (const ReadyTask& task : skipped) queue_.Push(task);
      ReapExited();
    }
  }

  Sandbox* IdleSandbox(FunctionId f) {
    Sandbox* best = nullptr;
    for (auto& s : sandboxes_) {
      if (s->function == f && s->state == State::kIdle && !s->retire &&
          (!best || s->last_used > best->last_used)) {
        best = s.get();
      }
    }
    return best;
  }

  void Dispatch(const ReadyTask& task, Sandbox* s) {
    s->dispatched_at = Now();
    books_.TakeIdle(task.function);
    books_.TakeCore();
    ++counters_["tasks"];
    ++counters_["warm_starts"];
    s->state = State::kBusy;
    s->has_task = true;
    s->task = task;
    s->cv.notify_all();
  }

  Sandbox* NewSandbox(FunctionId f, State state) {
    auto sandbox = std::make_unique<Sandbox>();
    sandbox->id = next_sandbox_++;
    sandbox->function = f;
    sandbox->state = state;
    Sandbox* s = sandbox.get();
    sandboxes_.push_back(std::move(sandbox));
    s->thread = std::thread([this, s] { Drive(s); });
    return s;
  }

  // The books evicted idle sandboxes (memory pressure, keep-alive, proactive plan): retire as many
  // real idle ones, least recently used first.
  void SyncEvictions() {
    for (FunctionId f = 0; f < catalog_.functions.size(); ++f) {
      int real = 0;
      for (auto& s : sandboxes_) real += s->function == f && s->state == State::kIdle;
      while (real > books_.idle(f)) {
        Sandbox* oldest = nullptr;
        for (auto& s : sandboxes_) {
          if (s->function == f && s->state == State::kIdle &&
              (!oldest || s->last_used < oldest->last_used)) {
            oldest = s.get();
          }
        }
        oldest->state = State::kRetired;
        oldest->retire = true;
        oldest->cv.notify_all();
        --real;
      }
    }
  }

  void ReapExited() {
    for (auto it = sandboxes_.begin(); it != sandboxes_.end();) {
      if ((*it)->exited) {
        (*it)->thread.join();
        it = sandboxes_.erase(it);
      } else {
        ++it;
      }
    }
  }

  // One sandbox's thread: creates the process (so PR_SET_PDEATHSIG ties it to this thread), runs
  // its tasks, and reports deaths.
  void Drive(Sandbox* s) {
    const FunctionId f = s->function;
    const Time begin = Now();
    std::string error;
    std::unique_ptr<SandboxProcess> process = SandboxProcess::Spawn(
        options_.jigsaw_exe, catalog_.functions[f].code, options_.cifar_archive, &error,
        static_cast<int>(
            std::min<Time>(options_.sandbox_ready_timeout / net::kMillisecond, INT32_MAX)),
        stop_pipe_[0]);
    std::unique_lock<std::mutex> lock(mu_);
    const Time ready = Now();
    if (!process) {
      ++counters_["sandbox_start_failures"];
      if (s->state == State::kBusy) {
        books_.Release(f, ready);
        books_.EvictIdle(f);
        books_.ReleaseCore();
        RetryOrFail(s->task, error);
      } else {
        books_.WarmingDone(f, ready);
        books_.EvictIdle(f);
      }
      s->state = State::kDead;
      s->exited = true;
      dirty_ = true;
      cv_.notify_all();
      return;
    }
    s->process = std::move(process);
    if (options_.pause_grace > 0) {
      s->pause = std::make_unique<SandboxPause>(s->process->pid(), options_.pause_with_freezer);
      pause_mechanism_ = PauseMechanismName(s->pause->mechanism());
    }
    setup_sum_[f] += ready - begin;
    ++setup_count_[f];
    if (s->state == State::kWarming) {
      books_.WarmingDone(f, ready);
      s->state = State::kIdle;
      s->last_used = ready;
      ++counters_["proactive_ready"];
      if (s->retire) {  // stopped while it warmed
        books_.EvictIdle(f);
        s->state = State::kRetired;
      }
      dirty_ = true;
      cv_.notify_all();
    }
    for (;;) {
      const auto has_work = [s] { return s->has_task || s->retire; };
      if (s->pause && !s->paused &&
          !s->cv.wait_for(lock, std::chrono::nanoseconds(options_.pause_grace / 1000), has_work)) {
        lock.unlock();  // idle past the grace: a task given meanwhile resumes it below
        const bool ok = s->pause->Pause();
        lock.lock();
        s->paused = true;
        ++counters_[ok ? "pauses" : "pause_failures"];
      }
      s->cv.wait(lock, has_work);
      if (!s->has_task) break;
      if (s->dispatched_at >= 0) {  // the scheduler's hand-off to this thread (warm tasks)
        dispatch_sum_ += Now() - s->dispatched_at;
        ++dispatch_count_;
        s->dispatched_at = -1;
      }
      if (s->paused) Unpause(s, &lock);
      const ReadyTask task = s->task;
      Request* r = Live(task.request);
      std::string payload;
      if (r) payload = r->payload + "#" + catalog_.functions[f].name;
      bool ok = false, alive = true;
      std::string result;
      Time started = Now(), ended = started;
      if (r) {
        lock.unlock();
        started = Now();
        alive = s->process->Invoke(payload, &ok, &result, &error);
        ended = Now();
        lock.lock();
      }
      s->has_task = false;
      books_.Release(f, ended);
      books_.ReleaseCore();
      dirty_ = true;
      cv_.notify_all();
      if (!alive) {
        books_.EvictIdle(f);
        ++counters_["sandbox_deaths"];
        s->state = State::kDead;
        RetryOrFail(task, error);
        break;
      }
      s->state = State::kIdle;
      s->last_used = ended;
      if (!r) continue;
      demand_[catalog_.functions[f].dag] += static_cast<double>(ended - started) / net::kSecond;
      durations_.Observe(f, ended - started);
      recent_.Add(f, ended - started);
      r = Live(task.request);
      if (!r) continue;
      if (!ok) {
        Finish(*r, 502, "function '" + catalog_.functions[f].name + "' failed: " + result);
        continue;
      }
      r->outputs[catalog_.functions[f].name] = result;
      const Dag& d = catalog_.dags[r->dag];
      if (++r->done == r->total) {
        Finish(*r, 200, "");
        continue;
      }
      std::vector<Time> path;
      for (uint32_t next : d.successors[task.node]) {
        if (--r->waiting[next] == 0) {
          if (path.empty()) path = CriticalPathFrom(d, durations_.estimates());
          PushTask(*r, next, path[next], Longest(path), ended);
        }
      }
    }
    if (s->state != State::kDead) s->state = State::kRetired;
    std::unique_ptr<SandboxProcess> done = std::move(s->process);
    std::unique_ptr<SandboxPause> pause = std::move(s->pause);
    s->paused = false;
    lock.unlock();
    if (pause) pause->Resume();  // before the kill: never signal a pid that may be reused
    done.reset();                // SIGKILL + reap, outside the lock
    pause.reset();               // removes its cgroup, now empty
    lock.lock();
    s->exited = true;
    dirty_ = true;
    cv_.notify_all();
  }

  // Resumes a paused sandbox before its task: the real thaw, then the modelled runtime cost.
  void Unpause(Sandbox* s, std::unique_lock<std::mutex>* lock) {
    lock->unlock();
    const Time begin = Now();
    const bool ok = s->pause->Resume();
    const Time real = Now() - begin;
    if (options_.resume_cost > 0)
      std::this_thread::sleep_for(std::chrono::nanoseconds(options_.resume_cost / 1000));
    lock->lock();
    s->paused = false;
    ++counters_[ok ? "unpauses" : "unpause_failures"];
    resume_real_sum_ += real;
    resume_real_max_ = std::max(resume_real_max_, real);
  }

  // ---- epochs: rates, proactive plan, keep-alive, load and memory samples ----
  void EpochLoop() {
    constexpr int kSamplesPerEpoch = 10;
    int sample = 0;
    std::unique_lock<std::mutex> lock(mu_);
    while (running_) {
      epoch_cv_.wait_for(lock, std::chrono::nanoseconds(options_.epoch / kSamplesPerEpoch / 1000),
                         [this] { return !running_; });
      if (!running_) break;
      load_sum_ += static_cast<double>(options_.slots - books_.free_cores() + queue_.size()) /
                   options_.slots;
      ++load_samples_;
      if (++sample < kSamplesPerEpoch) continue;
      sample = 0;
      const Time now = Now();
      rates_.CloseWindow();
      std::vector<FunctionId> served;
      std::vector<int> target(catalog_.functions.size(), 0);
      for (FunctionId f = 0; f < catalog_.functions.size(); ++f) {
        if (used_at_[f] < 0) continue;
        const bool recent = now - used_at_[f] < options_.keep_alive;
        if (!recent) continue;
        served.push_back(f);
        target[f] = std::min(options_.slots, allocator_.Target(rates_.RatePerSecond(f),
                                                               durations_.Estimate(f), recent));
      }
      if (options_.proactive) {
        const ProactiveAllocator::PlanResult plan = allocator_.Plan({&books_}, served, target);
        counters_["evicted"] += plan.evicted;
        SyncEvictions();
        for (const auto& creation : plan.created) {
          ++counters_["proactive_created"];
          NewSandbox(creation.function, State::kWarming);
        }
      }
      counters_["expired"] += books_.ExpireIdle(now - options_.keep_alive);
      SyncEvictions();
      uint64_t rss = 0;
      for (auto& s : sandboxes_) {
        if (s->process && s->state != State::kDead) rss += s->process->RssBytes();
      }
      rss_sum_ += static_cast<double>(rss);
      ++rss_samples_;
      rss_peak_ = std::max(rss_peak_, rss);
      rss_now_ = rss;
      dirty_ = true;
      cv_.notify_all();
    }
  }

  Json Stats(bool reset) {
    std::lock_guard<std::mutex> lock(mu_);
    Json j;
    j["pid"] = static_cast<int64_t>(::getpid());
    j["load"] = load_samples_ ? load_sum_ / load_samples_ : 0.0;
    j["queued"] = queue_.size();
    j["in_flight"] = requests_.size();
    j["slots"] = options_.slots;
    j["policy"] = QueuePolicyName(options_.policy);
    j["proactive"] = options_.proactive;
    j["isolated"] = SandboxProcess::Isolated();
    Json demand = Json::object();
    for (DagId d = 0; d < catalog_.dags.size(); ++d) demand[catalog_.dags[d].name] = demand_[d];
    j["demand_core_s"] = demand;
    Json sandboxes = Json::array();
    static const char* kStateNames[] = {"warming", "idle", "busy", "retired", "dead"};
    for (auto& s : sandboxes_) {
      sandboxes.push_back({{"pid", s->process ? s->process->pid() : 0},
                           {"function", catalog_.functions[s->function].name},
                           {"state", kStateNames[static_cast<int>(s->state)]},
                           {"paused", s->paused}});
    }
    j["sandboxes"] = sandboxes;
    j["pause_grace_ms"] = Ms(options_.pause_grace);
    j["pause_mechanism"] = options_.pause_grace > 0 ? pause_mechanism_ : "none";
    const int64_t resumes = counters_.count("unpauses") ? counters_.at("unpauses") : 0;
    j["resume_ms"] = {{"real_mean", resumes ? Ms(resume_real_sum_) / resumes : 0.0},
                      {"real_max", Ms(resume_real_max_)},
                      {"modelled", Ms(options_.resume_cost)}};
    Json counters = Json::object();
    for (const auto& [name, value] : counters_) counters[name] = value;
    j["counters"] = counters;
    j["rss_bytes"] = {{"now", rss_now_},
                      {"mean", rss_samples_ ? rss_sum_ / rss_samples_ : 0.0},
                      {"peak", rss_peak_}};
    Json functions = Json::object();
    for (FunctionId f = 0; f < catalog_.functions.size(); ++f) {
      if (used_at_[f] < 0) continue;
      const std::string name =
          catalog_.dags[catalog_.functions[f].dag].name + "/" + catalog_.functions[f].name;
      Json quantiles = Json::array();
      for (Time t : recent_.Quantiles(f, kReportedQuantiles)) quantiles.push_back(Ms(t));
      functions[name] = {{"duration_ms", Ms(durations_.Estimate(f))},
                         {"setup_ms", setup_count_[f] ? Ms(setup_sum_[f]) / setup_count_[f] : 0.0},
                         {"setups", setup_count_[f]},
                         {"runs", recent_.count(f)},
                         {"duration_quantiles", kReportedQuantiles},
                         {"duration_quantiles_ms", quantiles}};
    }
    j["functions"] = functions;
    j["dispatch_overhead_ms"] = {
        {"mean", dispatch_count_ ? Ms(dispatch_sum_) / dispatch_count_ : 0.0},
        {"tasks", dispatch_count_}};
    if (reset) {
      load_sum_ = 0;
      load_samples_ = 0;
      std::fill(demand_.begin(), demand_.end(), 0.0);
    }
    return j;
  }

  const Catalog catalog_;
  const SgsOptions options_;
  std::mutex mu_;
  std::condition_variable cv_;        // the scheduler's
  std::condition_variable epoch_cv_;  // wakes the epoch thread at Stop
  bool running_ = false;
  bool dirty_ = false;
  ReadyQueue queue_;
  DurationEstimator durations_;
  RecentDurations recent_;  // the last runs' durations per function, for their quantiles
  Time dispatch_sum_ = 0;
  int64_t dispatch_count_ = 0;
  RateEstimator rates_;
  ProactiveAllocator allocator_;
  std::vector<uint64_t> memory_of_;
  Worker books_;
  std::vector<Time> used_at_;
  std::vector<Time> setup_sum_;
  std::vector<int64_t> setup_count_;
  std::vector<double> demand_;
  double load_sum_ = 0;
  int64_t load_samples_ = 0;
  double rss_sum_ = 0;
  int64_t rss_samples_ = 0;
  uint64_t rss_peak_ = 0, rss_now_ = 0;
  std::map<std::string, int64_t> counters_;
  Time resume_real_sum_ = 0, resume_real_max_ = 0;
  std::string pause_mechanism_ =  // probes the host only where the SGS pauses at all
      PauseMechanismName(options_.pause_grace > 0 && options_.pause_with_freezer &&
                                 SandboxPause::FreezerUsable()
                             ? PauseMechanism::kFreezer
                             : PauseMechanism::kSignal);
  std::map<uint32_t, std::shared_ptr<Request>> requests_;
  std::list<std::unique_ptr<Sandbox>> sandboxes_;
  uint32_t next_request_ = 0;
  uint64_t next_sandbox_ = 0;
  std::unique_ptr<http::Server> server_;
  std::thread scheduler_, epoch_thread_;
  int port_ = 0;
  int stop_pipe_[2] = {-1, -1};
};

SgsServer::SgsServer(const Catalog& catalog, SgsOptions options)
    : impl_(std::make_unique<Impl>(catalog, std::move(options))) {}
SgsServer::~SgsServer() = default;
int SgsServer::Start(int port) { return impl_->Start(port); }
void SgsServer::Stop() { impl_->Stop(); }

}  // namespace jigsaw::faas
