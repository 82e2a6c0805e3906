// The real platform on loopback: `jigsaw faas` (LB + 2 SGS processes + sandbox processes) started
// as a child process and stopped by pid with SIGTERM. A DAG request end to end (outputs checked
// against the functions run here), faas-load's summary, the OpenWhisk-like baseline's per-function
// placement, the Sparrow-like baseline's late binding, a sandbox killed with SIGKILL mid-request
// (retried, or failed explicitly after the last attempt; never lost), and malformed HTTP refused
// while other requests are served; an SGS pausing an idle sandbox after the pause-grace and
// resuming it for the next task. Nothing here asserts on time: waits are bounded only so that a
// broken platform fails the test instead of hanging it.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "faas/dag_reader.h"
#include "faas/function_code.h"
#include "faas/sgs_server.h"
#include "test_util/raw_http.h"
#include "test_util/shell.h"

namespace jigsaw::faas {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kCifar =
    std::string(JIGSAW_SHARED_DATA) + "/datasets/cifar10/cifar10-jpeg.tar.gz";

class Platform {
 public:
  Platform(const std::string& name, const std::string& dags, std::vector<std::string> args)
      : dir_(test_util::FreshTempDir("jigsaw_faas_real_", name)) {
    dags_ = (dir_ / "dags.json").string();
    std::ofstream(dags_) << dags;
    const std::string port_file = (dir_ / "port").string();
    std::vector<std::string> argv = {JIGSAW_BINARY, "faas",        "--dags",  dags_,     "--port",
                                     "0",           "--port-file", port_file, "--slots", "1",
                                     "--epoch",     "200ms",       "--cifar", kCifar};
    if (std::find(args.begin(), args.end(), "--sgs") == args.end()) {
      args.insert(args.end(), {"--sgs", "2"});
    }
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = fork();
    if (pid_ == 0) {
      const std::string err = (dir_ / "stderr.txt").string();
      freopen(err.c_str(), "w", stderr);
      std::vector<char*> raw;
      for (std::string& a : argv) raw.push_back(a.data());
      raw.push_back(nullptr);
      execv(raw[0], raw.data());
      _exit(127);
    }
    // Bounded wait for the port file (a broken platform fails here instead of hanging).
    for (int i = 0; i < 600 && port_ == 0; ++i) {
      std::ifstream in(port_file);
      if (!(in >> port_)) port_ = 0;
      if (port_ == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
    }
  }
  ~Platform() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
    fs::remove_all(dir_);
  }
  int port() const { return port_; }
  const std::string& dags() const { return dags_; }
  std::string Stderr() const { return test_util::Slurp(dir_ / "stderr.txt"); }
  fs::path dir() const { return dir_; }

  httplib::Result Invoke(const std::string& dag, const std::string& body) const {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(120, 0);
    return client.Post("/invoke/" + dag, body, "application/octet-stream");
  }
  json Stats() const {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(30, 0);
    auto res = client.Get("/stats");
    return res && res->status == 200 ? json::parse(res->body) : json();
  }

 private:
  fs::path dir_;
  std::string dags_;
  pid_t pid_ = -1;
  int port_ = 0;
};

std::string Expected(const std::string& code, const std::string& payload) {
  FunctionCode parsed;
  std::string error;
  EXPECT_TRUE(ParseFunctionCode(code, &parsed, &error)) << error;
  return FunctionRunner(parsed, kCifar).Invoke(payload);
}

TEST(FaasPlatform, DagRequestEndToEndThroughLbSgsAndSandboxes) {
  const bool cifar = fs::exists(kCifar);
  if (!cifar)
    std::printf("CIFAR-10 archive %s absent: the resize DAG is skipped\n", kCifar.c_str());
  std::string dags = R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "fanout", "deadline": "10s", "rate": 3, "functions": [
      {"name": "a", "duration": "5ms", "code": "sha256:64KiB"},
      {"name": "b", "duration": "5ms", "code": "sha256:128KiB", "after": ["a"]},
      {"name": "c", "duration": "5ms", "code": "sha256:1KiB", "after": ["a"]},
      {"name": "d", "duration": "5ms", "code": "sha256:1KiB", "after": ["b", "c"]}]})";
  if (cifar) {
    dags += R"(,
    {"name": "thumb", "deadline": "10s", "functions": [
      {"name": "resize", "duration": "5ms", "code": "resize:64x2"}]})";
  }
  dags += "]}";
  Platform platform("e2e", dags, {});
  ASSERT_GT(platform.port(), 0) << platform.Stderr();

  for (const std::string payload : {"hello", "world"}) {
    auto res = platform.Invoke("fanout", payload);
    ASSERT_TRUE(res) << platform.Stderr();
    ASSERT_EQ(res->status, 200) << res->body;
    const json body = json::parse(res->body);
    EXPECT_EQ(body["tasks"], 4);
    EXPECT_EQ(body["outputs"]["a"], Expected("sha256:64KiB", payload + "#a"));
    EXPECT_EQ(body["outputs"]["b"], Expected("sha256:128KiB", payload + "#b"));
    EXPECT_EQ(body["outputs"]["d"], Expected("sha256:1KiB", payload + "#d"));
    EXPECT_TRUE(res->has_header("X-Faas-Sgs"));
  }
  if (cifar) {
    auto res = platform.Invoke("thumb", "cat");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
    EXPECT_EQ(json::parse(res->body)["outputs"]["resize"], Expected("resize:64x2", "cat#resize"));
  }
  // Every function ran in a sandbox process created for it: cold-started by a waiting task, or
  // created by the proactive allocator (which of the two depends on timing, so only the sum is
  // checked).
  const json stats = platform.Stats();
  ASSERT_EQ(stats["sgs"].size(), 2u);
  int64_t completed = 0, created = 0;
  for (const json& sgs : stats["sgs"]) {
    completed += sgs["counters"].value("completed", 0);
    created += sgs["counters"].value("cold_starts", 0);
    created += sgs["counters"].value("proactive_created", 0);
  }
  EXPECT_EQ(completed, cifar ? 3 : 2);
  EXPECT_GE(created, cifar ? 5 : 4);

  // faas-load: Poisson requests over HTTP, every one answered and accounted for in summary.json.
  const fs::path out = platform.dir() / "load";
  const auto run =
      test_util::RunShell(std::string(JIGSAW_BINARY) + " faas-load --dags " + platform.dags() +
                          " --port " + std::to_string(platform.port()) +
                          " --rate 20 --requests 12 --quiet --out " + out.string() + " 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const json summary = json::parse(test_util::Slurp(out / "summary.json"));
  EXPECT_EQ(summary["measured"], 12);
  EXPECT_EQ(summary["ok"], 12) << summary.dump(2);
  EXPECT_GE(summary["sandbox_rss_mib"]["peak_sum_over_sgs"].get<double>(),
            summary["sandbox_rss_mib"]["mean_sum_over_sgs"].get<double>());
  // Sandbox memory is sampled from /proc once per epoch: wait (bounded) for a sample.
  double rss = 0;
  for (int i = 0; i < 100 && rss <= 0; ++i) {
    const json now = platform.Stats();
    for (const json& sgs : now["sgs"]) rss += sgs["rss_bytes"]["peak"].get<double>();
    if (rss <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_GT(rss, 0);
  EXPECT_EQ(summary["platform"]["sgs"].size(), 2u);
}

// Bounded wait (a broken platform fails instead of hanging) until `done(stats)` holds.
bool WaitForStats(const Platform& platform, const std::function<bool(const json&)>& done) {
  for (int i = 0; i < 1200; ++i) {
    const json stats = platform.Stats();
    if (stats.contains("sgs") && done(stats)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// The OpenWhisk-like baseline drives a DAG one function at a time from the LB (the controller),
// each function placed by OpenWhiskBalancer as its own action: home SGS = hash of its function id
// % 2 (pair/a: 0, pair/b: 1, slow/s: 0), holding its 100MB in the SGS's 100MB memory slots until
// it answers. So one request's functions run on different SGS processes, the outputs come back
// through the LB; while slow/s (a 5-s wait) holds SGS 0, pair/a spills to SGS 1 and pair/b stays
// at home; once it is answered the homes take their functions again.
TEST(FaasPlatform, OpenWhiskBaselineHomesEachFunctionAndSpillsOnlyWhenItsHomesSlotsAreFull) {
  const std::string dags = R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "pair", "deadline": "60s", "functions": [
      {"name": "a", "duration": "5ms", "code": "sha256:1KiB", "memory": "100MB"},
      {"name": "b", "duration": "5ms", "code": "sha256:2KiB", "after": ["a"],
       "memory": "100MB"}]},
    {"name": "slow", "deadline": "60s", "functions": [
      {"name": "s", "duration": "5s", "code": "sha256:1KiB+wait:5s", "memory": "100MB"}]}]})";
  Platform platform("openwhisk", dags,
                    {"--platform", "openwhisk", "--memory", "200MB", "--invoker-memory", "100MB"});
  ASSERT_GT(platform.port(), 0) << platform.Stderr();
  auto pair = [&](const std::string& payload, const std::string& placement) {
    auto res = platform.Invoke("pair", payload);
    ASSERT_TRUE(res) << platform.Stderr();
    ASSERT_EQ(res->status, 200) << res->body;
    EXPECT_EQ(res->get_header_value("X-Faas-Sgs"), placement) << payload;
    const json body = json::parse(res->body);
    EXPECT_EQ(body["tasks"], 2);
    EXPECT_EQ(body["outputs"]["a"], Expected("sha256:1KiB", payload + "#a"));
    EXPECT_EQ(body["outputs"]["b"], Expected("sha256:2KiB", payload + "#b"));
  };
  pair("one", "0,1");
  auto slow = std::async(std::launch::async, [&] { return platform.Invoke("slow", "x"); });
  // Until the LB has placed slow/s (it is in flight on SGS 0).
  ASSERT_TRUE(WaitForStats(platform, [](const json& stats) {
    return stats["sgs"][0]["lb"]["in_flight"].get<int>() == 1;
  })) << platform.Stderr();
  pair("two", "1,1");
  auto s = slow.get();
  ASSERT_TRUE(s);
  ASSERT_EQ(s->status, 200) << s->body;
  EXPECT_EQ(s->get_header_value("X-Faas-Sgs"), "0");
  pair("three", "0,1");
  const json stats = platform.Stats();
  EXPECT_EQ(stats["openwhisk_spilled"], 1);
  EXPECT_EQ(stats["openwhisk_forced"], 0);
  EXPECT_EQ(stats["counters"]["forwarded_functions"], 7);
  // Each SGS ran single functions (POST /fn): SGS 0 ran a twice and s once, SGS 1 b three times
  // and a once.
  EXPECT_EQ(stats["sgs"][0]["counters"]["completed"], 3);
  EXPECT_EQ(stats["sgs"][1]["counters"]["completed"], 4);
  EXPECT_EQ(stats["sgs"][0]["functions"]["pair/a"]["runs"], 2);
  EXPECT_EQ(stats["sgs"][1]["functions"]["pair/b"]["runs"], 3);
}

// The Sparrow-like baseline drives a DAG one function at a time from the LB, as the OpenWhisk-like
// one, placing each function with SparrowScheduler: a reservation at both SGSs (2 probes, 2 SGSs,
// 1 slot each), the first with a free slot runs it. While slow/s (a 10-s wait) holds one SGS's
// only slot, every function of pair runs on the other SGS (late binding; the busy SGS's
// reservations are dropped once its slot frees). Then concurrent fan-out requests all complete
// with their outputs and every function is launched exactly once.
TEST(FaasPlatform, SparrowBaselineLateBindsEachFunctionToAFreeProbedSgs) {
  const std::string dags = R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "pair", "deadline": "60s", "functions": [
      {"name": "a", "duration": "5ms", "code": "sha256:1KiB"},
      {"name": "b", "duration": "5ms", "code": "sha256:2KiB", "after": ["a"]}]},
    {"name": "fan", "deadline": "60s", "functions": [
      {"name": "a", "duration": "5ms", "code": "sha256:4KiB"},
      {"name": "b", "duration": "5ms", "code": "sha256:8KiB", "after": ["a"]},
      {"name": "c", "duration": "5ms", "code": "sha256:1KiB", "after": ["a"]},
      {"name": "d", "duration": "5ms", "code": "sha256:2KiB", "after": ["b", "c"]}]},
    {"name": "slow", "deadline": "60s", "functions": [
      {"name": "s", "duration": "10s", "code": "sha256:1KiB+wait:10s"}]}]})";
  Platform platform("sparrow", dags, {"--platform", "sparrow", "--sparrow-probes", "2"});
  ASSERT_GT(platform.port(), 0) << platform.Stderr();
  auto slow = std::async(std::launch::async, [&] { return platform.Invoke("slow", "x"); });
  int busy = -1;
  ASSERT_TRUE(WaitForStats(platform, [&](const json& stats) {
    for (int s = 0; s < 2; ++s) {
      if (stats["sgs"][s]["lb"]["in_flight"].get<int>() == 1) busy = s;
    }
    return busy >= 0;
  })) << platform.Stderr();
  const std::string other = std::to_string(1 - busy);
  for (const std::string payload : {"one", "two"}) {
    auto res = platform.Invoke("pair", payload);
    ASSERT_TRUE(res) << platform.Stderr();
    ASSERT_EQ(res->status, 200) << res->body;
    EXPECT_EQ(res->get_header_value("X-Faas-Sgs"), other + "," + other) << payload;
    const json body = json::parse(res->body);
    EXPECT_EQ(body["outputs"]["a"], Expected("sha256:1KiB", payload + "#a"));
    EXPECT_EQ(body["outputs"]["b"], Expected("sha256:2KiB", payload + "#b"));
  }
  auto s = slow.get();
  ASSERT_TRUE(s);
  ASSERT_EQ(s->status, 200) << s->body;
  EXPECT_EQ(s->get_header_value("X-Faas-Sgs"), std::to_string(busy));

  constexpr int kRequests = 6;
  std::vector<std::future<httplib::Result>> fans;
  for (int i = 0; i < kRequests; ++i) {
    fans.push_back(std::async(std::launch::async,
                              [&, i] { return platform.Invoke("fan", "p" + std::to_string(i)); }));
  }
  for (int i = 0; i < kRequests; ++i) {
    auto res = fans[i].get();
    const std::string payload = "p" + std::to_string(i);
    ASSERT_TRUE(res) << platform.Stderr();
    ASSERT_EQ(res->status, 200) << res->body;
    const json body = json::parse(res->body);
    EXPECT_EQ(body["tasks"], 4);
    EXPECT_EQ(body["outputs"]["a"], Expected("sha256:4KiB", payload + "#a"));
    EXPECT_EQ(body["outputs"]["b"], Expected("sha256:8KiB", payload + "#b"));
    EXPECT_EQ(body["outputs"]["c"], Expected("sha256:1KiB", payload + "#c"));
    EXPECT_EQ(body["outputs"]["d"], Expected("sha256:2KiB", payload + "#d"));
  }
  const int functions = 1 + 2 * 2 + kRequests * 4;
  const json stats = platform.Stats();
  EXPECT_EQ(stats["platform"], "sparrow");
  EXPECT_EQ(stats["sparrow"]["probes"], 2);
  EXPECT_EQ(stats["sparrow"]["launched"], functions);
  EXPECT_EQ(stats["sparrow"]["pending"], 0);
  EXPECT_EQ(stats["sparrow"]["failed"], 0);
  EXPECT_EQ(stats["sparrow"]["refused"], 0);
  // Each function's second reservation is dropped (or went with an SGS marked unusable).
  EXPECT_GT(stats["sparrow"]["late_binding_drops"].get<int>(), 0);
  EXPECT_LE(stats["sparrow"]["late_binding_drops"].get<int>(), functions);
  EXPECT_EQ(stats["counters"]["forwarded_functions"], functions);
  EXPECT_EQ(stats["sgs"][0]["counters"].value("completed", 0) +
                stats["sgs"][1]["counters"].value("completed", 0),
            functions);
  // Sparrow has no pausing.
  for (const json& sgs : stats["sgs"]) EXPECT_EQ(sgs["counters"].value("pauses", 0), 0);
}

// An SGS's POST /fn runs one function of a DAG; unknown functions are refused with a clear error.
TEST(SgsServerTest, FunctionEndpointRunsOneFunctionOfADag) {
  const Catalog catalog = ParseDagText("inline.json", R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "chain", "deadline": "60s", "functions": [
      {"name": "a", "duration": "5ms", "code": "sha256:1KiB"},
      {"name": "b", "duration": "5ms", "code": "sha256:2KiB", "after": ["a"]}]}]})");
  SgsOptions options;
  options.jigsaw_exe = JIGSAW_BINARY;
  options.slots = 1;
  options.proactive = false;
  SgsServer server(catalog, options);
  const int port = server.Start(0);
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(120, 0);
  auto res = client.Post("/fn/chain/b", "p", "application/octet-stream");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const json body = json::parse(res->body);
  EXPECT_EQ(body["tasks"], 1);
  EXPECT_EQ(body["outputs"].size(), 1u);
  EXPECT_EQ(body["outputs"]["b"], Expected("sha256:2KiB", "p#b"));
  auto missing = client.Post("/fn/chain/zz", "p", "application/octet-stream");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_NE(missing->body.find("no function 'zz'"), std::string::npos) << missing->body;
  server.Stop();
}

// OpenWhisk's pause-grace on an SGS: a sandbox left idle past the grace (1 ms here; with the
// freezer where usable, and with SIGSTOP) is paused as the kernel reports it, and the next request
// resumes that same sandbox (no cold start, same pid, one unpause, the function's exact output);
// with grace 0 nothing is ever paused.
TEST(SgsServerTest, PauseGracePausesAnIdleSandboxAndTheNextTaskResumesIt) {
  const Catalog catalog = ParseDagText("inline.json", R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "one", "deadline": "60s", "functions": [
      {"name": "f", "duration": "5ms", "code": "sha256:1KiB"}]}]})");
  // grace 0; grace 1 ms with the freezer where usable; grace 1 ms with SIGSTOP.
  for (const auto& [grace, freezer] : {std::pair{Time{0}, true}, std::pair{net::kMillisecond, true},
                                       std::pair{net::kMillisecond, false}}) {
    SCOPED_TRACE(grace ? (freezer ? "grace 1ms, freezer if usable" : "grace 1ms, SIGSTOP")
                       : "grace 0");
    SgsOptions options;
    options.jigsaw_exe = JIGSAW_BINARY;
    options.slots = 1;
    options.proactive = false;
    options.policy = QueuePolicy::kFifo;
    options.pause_grace = grace;
    options.pause_with_freezer = freezer;
    options.resume_cost = grace ? net::kMillisecond : 0;
    SgsServer server(catalog, options);
    const int port = server.Start(0);
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(120, 0);
    auto stats = [&] {
      auto res = client.Get("/stats");
      return res && res->status == 200 ? json::parse(res->body) : json::object();
    };
    auto run = [&](const std::string& payload, int cold_starts) {
      auto res = client.Post("/run/one", payload, "application/octet-stream");
      ASSERT_TRUE(res);
      ASSERT_EQ(res->status, 200) << res->body;
      const json body = json::parse(res->body);
      EXPECT_EQ(body["cold_starts"], cold_starts);
      EXPECT_EQ(body["outputs"]["f"], Expected("sha256:1KiB", payload + "#f"));
    };
    run("first", 1);
    if (grace == 0) {
      run("second", 0);
      run("third", 0);
      const json j = stats();
      EXPECT_EQ(j["pause_mechanism"], "none");
      EXPECT_FALSE(j["counters"].contains("pauses"));
      EXPECT_FALSE(j["counters"].contains("unpauses"));
      ASSERT_EQ(j["sandboxes"].size(), 1u);
      EXPECT_EQ(j["sandboxes"][0]["paused"], false);
      server.Stop();
      continue;
    }
    // Bounded wait (a broken SGS fails instead of hanging) until the idle sandbox is paused.
    json paused;
    for (int i = 0; i < 1200; ++i) {
      paused = stats();
      if (paused.contains("sandboxes") && paused["sandboxes"].size() == 1 &&
          paused["sandboxes"][0]["paused"] == true) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_EQ(paused["sandboxes"].size(), 1u);
    ASSERT_EQ(paused["sandboxes"][0]["paused"], true);
    EXPECT_EQ(paused["counters"]["pauses"], 1);
    const int pid = paused["sandboxes"][0]["pid"].get<int>();
    if (!freezer) {
      EXPECT_EQ(paused["pause_mechanism"], "sigstop");
    }
    if (paused["pause_mechanism"] == "sigstop") {
      std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
      const std::string stat((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      const size_t close = stat.rfind(')');
      ASSERT_NE(close, std::string::npos);
      EXPECT_EQ(stat[close + 2], 'T') << stat;
    } else {
      EXPECT_EQ(paused["pause_mechanism"], "cgroup-v2-freezer");
    }
    run("second", 0);
    const json after = stats();
    EXPECT_EQ(after["counters"]["unpauses"], 1);
    EXPECT_FALSE(after["counters"].contains("unpause_failures"));
    EXPECT_FALSE(after["counters"].contains("pause_failures"));
    EXPECT_EQ(after["counters"]["cold_starts"], 1);
    ASSERT_EQ(after["sandboxes"].size(), 1u);
    EXPECT_EQ(after["sandboxes"][0]["pid"], pid);
    EXPECT_EQ(after["resume_ms"]["modelled"], 1.0);
    server.Stop();
  }
}

// Polls the platform until some sandbox other than `not_pid` is busy; returns its pid (0 if the
// request finished first).
int BusySandbox(const Platform& platform, std::future<httplib::Result>& pending, int not_pid) {
  while (pending.wait_for(std::chrono::milliseconds(5)) != std::future_status::ready) {
    const json stats = platform.Stats();
    if (!stats.contains("sgs")) continue;
    for (const json& sgs : stats["sgs"]) {
      if (!sgs.contains("sandboxes")) continue;
      for (const json& s : sgs["sandboxes"]) {
        if (s["state"] == "busy" && s["pid"].get<int>() > 0 && s["pid"].get<int>() != not_pid) {
          return s["pid"].get<int>();
        }
      }
    }
  }
  return 0;
}

TEST(FaasPlatform, SandboxKilledMidRequestIsRetriedOrFailsExplicitly) {
  // A slow function (hashing 96 MiB of state) so that the kill lands while it runs.
  const std::string dags = R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "slow", "deadline": "60s", "functions": [
      {"name": "hash", "duration": "500ms", "code": "sha256:96MiB", "memory": "200MB"}]}]})";
  Platform platform("kill", dags, {"--max-retries", "1", "--no-proactive"});
  ASSERT_GT(platform.port(), 0) << platform.Stderr();
  bool saw_retry = false, saw_failure = false;
  for (int round = 0; round < 6 && !(saw_retry && saw_failure); ++round) {
    const int kills = saw_retry ? 2 : 1;  // 1: retried and served; 2: both attempts die
    auto pending = std::async(std::launch::async, [&] { return platform.Invoke("slow", "x"); });
    int killed = 0, last = 0;
    for (int k = 0; k < kills; ++k) {
      const int pid = BusySandbox(platform, pending, last);
      if (pid == 0) break;
      ASSERT_EQ(kill(pid, SIGKILL), 0);
      last = pid;
      ++killed;
    }
    httplib::Result res = pending.get();
    // Never lost: every request gets an answer, success or an explicit failure.
    ASSERT_TRUE(res) << platform.Stderr();
    const json body = json::parse(res->body);
    if (res->status == 200) {
      EXPECT_EQ(body["outputs"]["hash"], Expected("sha256:96MiB", "x#hash"));
      if (body["retries"] == 1) saw_retry = true;
    } else {
      ASSERT_EQ(res->status, 502) << res->body;
      const std::string error = body["error"];
      EXPECT_NE(error.find("after 2 attempt(s)"), std::string::npos) << error;
      EXPECT_NE(error.find("killed by signal 9"), std::string::npos) << error;
      EXPECT_EQ(killed, 2);
      saw_failure = true;
    }
  }
  EXPECT_TRUE(saw_retry);
  EXPECT_TRUE(saw_failure);
  int64_t deaths = 0;
  const json stats = platform.Stats();
  for (const json& sgs : stats["sgs"]) deaths += sgs["counters"].value("sandbox_deaths", 0);
  EXPECT_GE(deaths, 3);
}

bool ProcessGone(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, name, state;
  if (!(stat >> pid_field >> name >> state)) return true;
  return state == "Z" || state == "X";
}

// A DAG file with one DAG "h" of one 1 ms function "f" (SHA-256 of 1 KiB) and the given deadline.
std::string OneFunctionDags(const std::string& deadline) {
  return R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "h", "deadline": ")" +
         deadline + R"(", "functions": [
      {"name": "f", "duration": "1ms", "code": "sha256:1KiB"}]}]})";
}

TEST(FaasPlatform, KilledSgsIsRoutedAroundAndTakesItsSandboxesWithIt) {
  const std::string dags = OneFunctionDags("10s");
  Platform platform("sgskill", dags, {});
  ASSERT_GT(platform.port(), 0) << platform.Stderr();
  auto first = platform.Invoke("h", "one");
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  const int home = std::stoi(first->get_header_value("X-Faas-Sgs"));
  const json stats = platform.Stats();
  const int sgs_pid = stats["sgs"][home]["pid"];
  std::vector<int> sandboxes;
  for (const json& s : stats["sgs"][home]["sandboxes"]) sandboxes.push_back(s["pid"]);
  ASSERT_FALSE(sandboxes.empty());
  ASSERT_EQ(kill(sgs_pid, SIGKILL), 0);
  // The LB finds the SGS unreachable (on forwarding, at its next epoch, or told by the
  // supervisor) and serves the DAG on the other SGS, or on the restarted one; nothing is lost.
  for (const std::string payload : {"two", "three"}) {
    auto res = platform.Invoke("h", payload);
    ASSERT_TRUE(res) << platform.Stderr();
    ASSERT_EQ(res->status, 200) << res->body;
    if (std::stoi(res->get_header_value("X-Faas-Sgs")) == home) {
      EXPECT_GE(platform.Stats()["sgs"][home]["lb"]["restarts"].get<int>(), 1);
    }
    EXPECT_EQ(json::parse(res->body)["outputs"]["f"], Expected("sha256:1KiB", payload + "#f"));
  }
  // The dead SGS's sandboxes got SIGKILL from the kernel (PR_SET_PDEATHSIG); bounded wait.
  for (int pid : sandboxes) {
    for (int i = 0; i < 300 && !ProcessGone(pid); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(ProcessGone(pid)) << pid;
  }
}

// Freezes (SIGSTOP) every sandbox of SGS `sgs`, so a request it takes stays there; then sends
// requests one at a time until that SGS holds one. Returns the pending requests.
std::vector<std::future<httplib::Result>> HoldRequestsOn(const Platform& platform, int sgs,
                                                         std::vector<int>* frozen) {
  const json stats = platform.Stats();
  for (const json& s : stats["sgs"][sgs]["sandboxes"]) {
    const int pid = s["pid"];
    EXPECT_EQ(kill(pid, SIGSTOP), 0) << pid;
    frozen->push_back(pid);
  }
  std::vector<std::future<httplib::Result>> pending;
  for (int i = 0; i < 4; ++i) {
    const std::string payload = "held" + std::to_string(i);
    pending.push_back(std::async(std::launch::async,
                                 [&platform, payload] { return platform.Invoke("h", payload); }));
    bool held = false;
    EXPECT_TRUE(WaitForStats(platform, [&](const json& stats) {
      held = stats["sgs"][sgs].value("in_flight", 0) >= 1;
      return held || pending.back().wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    }));
    if (held) break;
  }
  return pending;
}

TEST(FaasPlatform, SgsKilledWhileHoldingRequestsTheyAreResentAndTheSgsIsRestarted) {
  const std::string dags = OneFunctionDags("60s");
  Platform platform("sgshold", dags, {"--no-proactive"});
  ASSERT_GT(platform.port(), 0) << platform.Stderr();
  auto first = platform.Invoke("h", "zero");  // leaves one idle sandbox on its SGS
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  const int home = std::stoi(first->get_header_value("X-Faas-Sgs"));
  std::vector<int> frozen;
  auto pending = HoldRequestsOn(platform, home, &frozen);
  ASSERT_FALSE(frozen.empty());
  const json before = platform.Stats();
  ASSERT_GE(before["sgs"][home].value("in_flight", 0), 1) << before.dump(1);
  const int sgs_pid = before["sgs"][home]["pid"];
  ASSERT_EQ(kill(sgs_pid, SIGKILL), 0);
  // Every request it held comes back through the LB: sent once more, to the other SGS (or to
  // the restarted one, should it be back first), and answered.
  int resent = 0;
  for (size_t i = 0; i < pending.size(); ++i) {
    httplib::Result res = pending[i].get();
    ASSERT_TRUE(res) << platform.Stderr();
    ASSERT_EQ(res->status, 200) << res->body;
    const std::string payload = "held" + std::to_string(i);
    EXPECT_EQ(json::parse(res->body)["outputs"]["f"], Expected("sha256:1KiB", payload + "#f"));
    if (res->get_header_value("X-Faas-Attempts") == "2") ++resent;
  }
  EXPECT_GE(resent, 1);
  // The supervisor restarts the SGS (new process, new port) and the LB uses it again.
  ASSERT_TRUE(WaitForStats(platform, [&](const json& stats) {
    const json& lb = stats["sgs"][home]["lb"];
    return lb["restarts"].get<int>() >= 1 && lb["usable"].get<bool>() &&
           stats["sgs"][home].value("pid", 0) == lb["pid"].get<int>();
  })) << platform.Stats().dump(1);
  const json after = platform.Stats();
  EXPECT_NE(after["sgs"][home]["pid"].get<int>(), sgs_pid);
  EXPECT_NE(after["sgs"][home]["lb"]["last_death"].get<std::string>().find("signal 9"),
            std::string::npos);
  EXPECT_GE(after["counters"].value("resent", 0), resent);
  auto later = platform.Invoke("h", "later");
  ASSERT_TRUE(later);
  EXPECT_EQ(later->status, 200) << later->body;
  for (int pid : frozen) {  // the frozen sandboxes died with their SGS (PR_SET_PDEATHSIG)
    for (int i = 0; i < 300 && !ProcessGone(pid); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(ProcessGone(pid)) << pid;
  }
}

TEST(FaasPlatform, OnlySgsKilledWhileHoldingARequestFailsItExplicitlyThenServesAgain) {
  const std::string dags = OneFunctionDags("60s");
  Platform platform("sgsonly", dags, {"--no-proactive", "--sgs", "1"});
  ASSERT_GT(platform.port(), 0) << platform.Stderr();
  auto first = platform.Invoke("h", "zero");
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  std::vector<int> frozen;
  auto pending = HoldRequestsOn(platform, 0, &frozen);
  ASSERT_EQ(pending.size(), 1u);  // the only SGS takes the first one
  const int sgs_pid = platform.Stats()["sgs"][0]["pid"];
  ASSERT_EQ(kill(sgs_pid, SIGKILL), 0);
  httplib::Result res = pending[0].get();
  ASSERT_TRUE(res) << platform.Stderr();
  // Never lost: either the re-send found the restarted SGS, or an explicit 502 says why.
  if (res->status == 200) {
    EXPECT_EQ(res->get_header_value("X-Faas-Attempts"), "2");
  } else {
    ASSERT_EQ(res->status, 502) << res->body;
    const std::string error = json::parse(res->body)["error"];
    EXPECT_NE(error.find("SGS 0"), std::string::npos) << error;
  }
  ASSERT_TRUE(WaitForStats(platform, [&](const json& stats) {
    const json& lb = stats["sgs"][0]["lb"];
    return lb["restarts"].get<int>() >= 1 && lb["usable"].get<bool>() &&
           stats["sgs"][0].value("pid", 0) == lb["pid"].get<int>();
  })) << platform.Stats().dump(1);
  auto later = platform.Invoke("h", "later");
  ASSERT_TRUE(later);
  ASSERT_EQ(later->status, 200) << later->body;
  EXPECT_EQ(json::parse(later->body)["outputs"]["f"], Expected("sha256:1KiB", "later#f"));
}

// A "sandbox" whose initialisation never ends: a script in place of the jigsaw binary that
// execs a sleep with an argument unique to this test process (so it can be found in /proc).
struct HangingSandbox {
  fs::path dir = test_util::FreshTempDir("jigsaw_faas_hang_", "init");
  std::string marker = "86400." + std::to_string(getpid());
  std::string exe = (dir / "hang.sh").string();
  HangingSandbox() {
    std::ofstream(exe) << "#!/bin/sh\nexec sleep " << marker << "\n";
    fs::permissions(exe, fs::perms::owner_all);
  }
  ~HangingSandbox() { fs::remove_all(dir); }
  std::vector<int> Pids() const {
    std::vector<int> pids;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      const std::string cmdline = test_util::Slurp(entry.path() / "cmdline");
      if (cmdline.find(std::string("sleep") + '\0' + marker) != std::string::npos &&
          !ProcessGone(std::stoi(name))) {
        pids.push_back(std::stoi(name));
      }
    }
    return pids;
  }
};

Catalog OneFunctionCatalog() { return ParseDagText("test.json", OneFunctionDags("600s")); }

TEST(SgsServerTest, SandboxHangingInInitialisationDoesNotBlockStop) {
  HangingSandbox hang;
  SgsOptions options;
  options.jigsaw_exe = hang.exe;
  options.slots = 1;
  options.proactive = false;
  options.sandbox_ready_timeout = 86400 * net::kSecond;  // only Stop can end the wait
  auto server = std::make_unique<SgsServer>(OneFunctionCatalog(), options);
  const int port = server->Start(0);
  auto pending = std::async(std::launch::async, [port] {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(600, 0);
    return client.Post("/run/h", "x", "application/octet-stream");
  });
  // Bounded wait until the cold start's process is up and hanging in its initialisation.
  std::vector<int> pids;
  for (int i = 0; i < 1200 && pids.empty(); ++i) {
    pids = hang.Pids();
    if (pids.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(pids.size(), 1u);
  // Stop returns (the test would otherwise wait a day): the bound is only there so a broken
  // Stop fails the test instead of hanging it.
  auto stopped = std::async(std::launch::async, [&server] { server->Stop(); });
  if (stopped.wait_for(std::chrono::seconds(300)) != std::future_status::ready) {
    ADD_FAILURE() << "SgsServer::Stop blocked on a sandbox hanging in its initialisation";
    std::_Exit(1);
  }
  httplib::Result res = pending.get();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503) << res->body;
  EXPECT_TRUE(ProcessGone(pids[0])) << pids[0];
  EXPECT_TRUE(hang.Pids().empty());
}

TEST(SgsServerTest, SandboxNotReadyInTimeIsKilledAndItsRequestFailsExplicitly) {
  HangingSandbox hang;
  SgsOptions options;
  options.jigsaw_exe = hang.exe;
  options.slots = 1;
  options.proactive = false;
  options.max_attempts = 2;
  options.sandbox_ready_timeout = 200 * net::kMillisecond;  // never met: the init never ends
  SgsServer server(OneFunctionCatalog(), options);
  const int port = server.Start(0);
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(600, 0);
  auto res = client.Post("/run/h", "x", "application/octet-stream");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 502) << res->body;
  const std::string error = json::parse(res->body)["error"];
  EXPECT_NE(error.find("after 2 attempt(s)"), std::string::npos) << error;
  EXPECT_NE(error.find("not ready within 200 ms"), std::string::npos) << error;
  server.Stop();
  EXPECT_TRUE(hang.Pids().empty());
}

std::string RawExchange(int port, const std::string& request) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return "";
  }
  timeval timeout{30, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  (void)!write(fd, request.data(), request.size());
  // One answer: the headers, then Content-Length bytes (the connection stays open: keep-alive).
  std::string reply;
  char buffer[4096];
  size_t want = std::string::npos;
  while (reply.size() < want) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n <= 0) break;
    reply.append(buffer, static_cast<size_t>(n));
    const size_t end = reply.find("\r\n\r\n");
    const size_t length = reply.find("Content-Length: ");
    if (end != std::string::npos && length != std::string::npos && length < end) {
      want = end + 4 + std::stoul(reply.substr(length + 16));
    }
  }
  close(fd);
  return reply;
}

TEST(FaasPlatform, MalformedHttpGetsAClearErrorWhileOthersAreServed) {
  const std::string dags = OneFunctionDags("10s");
  Platform platform("malformed", dags, {});
  ASSERT_GT(platform.port(), 0) << platform.Stderr();
  // A garbage request line.
  const std::string garbage = RawExchange(platform.port(), "NOT HTTP AT ALL\r\n\r\n");
  EXPECT_EQ(garbage.rfind("HTTP/1.1 400", 0), 0u) << garbage;
  EXPECT_NE(garbage.find("request line"), std::string::npos) << garbage;
  // A length field far beyond the 1 MiB body limit is refused, never trusted.
  const std::string huge = RawExchange(
      platform.port(), "POST /invoke/h HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n");
  EXPECT_EQ(huge.rfind("HTTP/1.1 413", 0), 0u) << huge;
  // An unknown DAG and a wrong method: JSON errors naming what was expected.
  auto unknown = platform.Invoke("nope", "x");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_NE(json::parse(unknown->body)["error"].get<std::string>().find("unknown DAG 'nope'"),
            std::string::npos);
  httplib::Client client("127.0.0.1", platform.port());
  auto wrong = client.Get("/invoke/h");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 405);
  EXPECT_EQ(wrong->get_header_value("Allow"), "POST");
  EXPECT_NE(wrong->body.find("expected POST /invoke/{dag}"), std::string::npos) << wrong->body;
  // Meanwhile a well-formed request is served, while a slow-loris peer holds a connection open.
  const int idle = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(platform.port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(idle, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  (void)!write(idle, "POST /invoke/h HTTP/1.1\r\n", 25);
  auto ok = platform.Invoke("h", "payload");
  close(idle);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
  EXPECT_EQ(json::parse(ok->body)["outputs"]["f"], Expected("sha256:1KiB", "payload#f"));
}

// A chunked body over the 1 MiB limit, sent to the LB and straight to an SGS, is refused with
// 413 once it crosses the limit (the server reads no more of it), and both go on serving.
TEST(FaasPlatform, ChunkedBodiesOverTheLimitAreRefusedByTheLbAndTheSgs) {
  const std::string dags = OneFunctionDags("10s");
  Platform platform("chunked", dags, {"--sgs", "1"});
  ASSERT_GT(platform.port(), 0) << platform.Stderr();
  const json stats = platform.Stats();
  ASSERT_TRUE(stats.contains("sgs")) << stats.dump();
  const int sgs_port = stats["sgs"][0]["port"].get<int>();
  const std::string chunk = "10000\r\n" + std::string(1 << 16, 'x') + "\r\n";
  for (const auto& [port, path] : {std::pair{platform.port(), std::string("/invoke/h")},
                                   std::pair{sgs_port, std::string("/run/h")}}) {
    test_util::RawConnection c(port);
    ASSERT_TRUE(c.Send("POST " + path + " HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"));
    size_t sent = 0;
    while (sent < (size_t{64} << 20) && !c.Readable(0) && c.Send(chunk)) sent += 1 << 16;
    const test_util::RawResponse refused = c.Read();
    EXPECT_EQ(refused.status, 413) << path << ": " << refused.head << refused.body;
    EXPECT_NE(refused.body.find("\"error\""), std::string::npos) << refused.body;
    EXPECT_LT(sent, size_t{64} << 20) << "the server read the whole 64 MiB";
  }
  auto ok = platform.Invoke("h", "payload");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
}

}  // namespace
}  // namespace jigsaw::faas
