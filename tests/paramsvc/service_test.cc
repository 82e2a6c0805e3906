// The Parameter Service end to end on loopback: an in-process coordinator that starts real
// aggregator processes (the jigsaw binary), and timed workers as threads. Every check is on
// values (bit-for-bit parameters, counts), never on time.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>

#include "core/socket.h"
#include "paramsvc/control.h"
#include "paramsvc/coordinator.h"
#include "paramsvc/service_client.h"
#include "paramsvc/service_harness.h"
#include "paramsvc/shard_sgd.h"
#include "ps/timed_worker.h"

namespace jigsaw::paramsvc {
namespace {

bool BitEqual(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// What the timed workers of a job must end with, computed in one process from the gradient
// formula of timed_worker.h: g_i = decay p_i + noise_r[(i + 7919 t) mod n], summed in rank order.
std::vector<float> Reference(int workers, uint64_t parameters, int iterations, float lr,
                             float momentum, uint64_t seed) {
  ShardSgd sgd(workers, lr, momentum);
  sgd.SetParameters(ps::TimedWorkerInitialParameters(parameters, seed));
  std::vector<std::vector<float>> noise(workers);
  for (int r = 0; r < workers; ++r) noise[r] = ps::TimedWorkerNoise(parameters, seed, r);
  std::vector<float> g(parameters);
  for (int t = 0; t < iterations; ++t) {
    const std::vector<float> p = sgd.parameters();
    const size_t shift = (static_cast<uint64_t>(t) * 7919u) % parameters;
    for (int r = 0; r < workers; ++r) {
      for (size_t i = 0; i < parameters; ++i) {
        g[i] = 0.01f * p[i] + noise[r][(i + shift) % parameters];
      }
      sgd.Push(r, static_cast<uint64_t>(t), g);
    }
  }
  return sgd.parameters();
}

struct JobRun {
  std::vector<std::thread> threads;
  std::vector<ps::TimedWorkerResult> results;
  std::vector<std::string> errors;
  double compute_s = 0.002;  // each worker's timed wait per iteration
  ~JobRun() { Join(); }

  void Start(const Service& service, const wire::Token& token, const std::string& job, int workers,
             uint64_t parameters, int iterations, uint64_t seed,
             std::function<void(int rank, int t)> hook = nullptr) {
    results.resize(workers);
    errors.resize(workers);
    for (int r = 0; r < workers; ++r) {
      threads.emplace_back([=, this, address = service.address()] {
        try {
          ServiceClient client(address, r, workers, 60, token);
          ps::TimedWorkerOptions options;
          options.job = job;
          options.rank = r;
          options.workers = workers;
          options.parameters = parameters;
          options.iterations = iterations;
          options.compute_s = compute_s;
          options.seed = seed;
          options.quiet = true;
          if (hook) options.before_iteration = [hook, r](int t) { hook(r, t); };
          results[r] = ps::RunTimedWorker(options, client);
        } catch (const std::exception& e) {
          errors[r] = e.what();
        }
      });
    }
  }
  void Join() {
    for (auto& t : threads) {
      if (t.joinable()) t.join();
    }
    threads.clear();
  }
};

CoordinatorOptions Options(int aggregators) {
  CoordinatorOptions options;
  options.initial_aggregators = aggregators;
  options.min_aggregators = aggregators;
  options.max_aggregators = aggregators + 2;
  options.elastic = false;
  options.report_interval_s = 0.05;
  options.max_shard_floats = 1000;
  options.snapshot_every = 4;
  options.timeout_s = 60;
  return options;
}

TEST(ParamService, ShardedJobsMatchTheReferenceBitForBit) {
  Service service(Options(2));
  const wire::Token a = service.Register("a", 3001, 3, 0.1f, 0.9f);
  const wire::Token b = service.Register("b", 500, 2, 0.05f, 0.0f);
  JobRun run_a, run_b;
  run_a.Start(service, a, "a", 3, 3001, 25, 11);
  run_b.Start(service, b, "b", 2, 500, 30, 12);
  run_a.Join();
  run_b.Join();
  const std::vector<float> ref_a = Reference(3, 3001, 25, 0.1f, 0.9f, 11);
  const std::vector<float> ref_b = Reference(2, 500, 30, 0.05f, 0.0f, 12);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(run_a.errors[r], "");
    EXPECT_TRUE(BitEqual(run_a.results[r].final_parameters, ref_a)) << "job a rank " << r;
  }
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(run_b.errors[r], "");
    EXPECT_TRUE(BitEqual(run_b.results[r].final_parameters, ref_b)) << "job b rank " << r;
  }
  service.AwaitEnd(0);
  service.AwaitEnd(1);
  const Json stats = service.Stop();
  ASSERT_EQ(stats["jobs"].size(), 2u);
  EXPECT_EQ(stats["jobs"][0]["shards"].size(), 4u);  // 3001 floats in shards of <= 1000
  EXPECT_TRUE(stats["jobs"][0]["done"].get<bool>());
  EXPECT_TRUE(stats["jobs"][1]["done"].get<bool>());
}

TEST(ParamService, LiveMigrationEveryFewIterationsLosesNoUpdate) {
  CoordinatorOptions options = Options(2);
  options.migrate_every = 3;
  Service service(options);
  const wire::Token token = service.Register("m", 2500, 3, 0.1f, 0.9f);
  JobRun run;
  run.Start(service, token, "m", 3, 2500, 31, 5);
  run.Join();
  const std::vector<float> reference = Reference(3, 2500, 31, 0.1f, 0.9f, 5);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(run.errors[r], "");
    EXPECT_TRUE(BitEqual(run.results[r].final_parameters, reference)) << "rank " << r;
  }
  const Json stats = service.Stop();
  // Every shard froze at versions 3, 6, ..., 30 and moved to the other aggregator.
  EXPECT_EQ(stats["migrations"].get<int>(), 3 * 10);
  for (const Json& shard : stats["jobs"][0]["shards"]) EXPECT_EQ(shard["migrations"], 10);
}

TEST(ParamService, AKilledAggregatorIsReplacedFromSnapshotsAndTheJobReplays) {
  Service service(Options(2));
  const wire::Token token = service.Register("k", 3000, 3, 0.1f, 0.9f);
  // Every worker waits before iteration 10 until the aggregator has been killed.
  std::mutex mutex;
  std::condition_variable changed;
  int waiting = 0;
  bool released = false;
  JobRun run;
  run.Start(service, token, "k", 3, 3000, 30, 9, [&](int, int t) {
    if (t != 10) return;
    std::unique_lock<std::mutex> lock(mutex);
    if (released) return;  // the replay passes here again
    ++waiting;
    changed.notify_all();
    changed.wait(lock, [&] { return released; });
  });
  {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return waiting == 3; });
  }
  // All shards at version 10; wait until the coordinator holds their snapshots of version 8.
  Json status;
  while (true) {
    status = service.Status();
    bool all = true;
    for (const Json& shard : status["jobs"][0]["shards"]) {
      all = all && shard["snapshot_version"] == 8;
    }
    if (all) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const int victim_id = status["jobs"][0]["shards"][0]["aggregator"].get<int>();
  pid_t victim = 0;
  for (const Json& agg : status["aggregators"]) {
    if (agg["id"] == victim_id) victim = agg["pid"].get<pid_t>();
  }
  ASSERT_GT(victim, 0);
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  {
    std::lock_guard<std::mutex> lock(mutex);
    released = true;
    changed.notify_all();
  }
  run.Join();
  const std::vector<float> reference = Reference(3, 3000, 30, 0.1f, 0.9f, 9);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(run.errors[r], "");
    EXPECT_EQ(run.results[r].rollbacks, 1) << "rank " << r;
    EXPECT_EQ(run.results[r].replayed_iterations, 2u) << "rank " << r;  // 8 and 9 again
    EXPECT_TRUE(BitEqual(run.results[r].final_parameters, reference)) << "rank " << r;
  }
  service.AwaitEnd(0);
  const Json stats = service.Stop();
  EXPECT_EQ(stats["jobs"][0]["restorations"], 1);
  EXPECT_EQ(stats["jobs"][0]["resume_version"], 8);
  EXPECT_TRUE(stats["jobs"][0]["done"].get<bool>());
}

TEST(ParamService, AnIdlePoolIsDrainedLiveAndTheDecisionsAreLogged) {
  CoordinatorOptions options = Options(3);
  options.min_aggregators = 1;
  options.elastic = true;
  options.sustain = 2;
  // A first estimate of 0.4 cores per shard (1000 floats x 2 workers x 20/s x 10 us): five
  // shards, two per aggregator at capacity 0.8, spread over the three.
  options.est_ns_per_float = 1e4;
  Service service(options);
  const wire::Token token = service.Register("e", 4000, 2, 0.1f, 0.5f);
  // The workers idle before iteration 6 until the pool is down to one aggregator.
  std::atomic<bool> shrunk{false};
  JobRun run;
  run.Start(service, token, "e", 2, 4000, 20, 21, [&](int, int t) {
    if (t != 6) return;
    for (int polls = 0; polls < 6000 && !shrunk; ++polls) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  for (int polls = 0; polls < 6000; ++polls) {
    const Json status = service.Status();
    int alive = 0;
    for (const Json& agg : status["aggregators"]) alive += agg["alive"].get<bool>();
    if (alive == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  shrunk = true;
  run.Join();
  const std::vector<float> reference = Reference(2, 4000, 20, 0.1f, 0.5f, 21);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(run.errors[r], "");
    EXPECT_TRUE(BitEqual(run.results[r].final_parameters, reference)) << "rank " << r;
  }
  service.AwaitEnd(0);
  const Json stats = service.Stop();
  int removals = 0;
  for (const Json& decision : stats["decisions"]) {
    removals += decision["decision"] == "remove";
    EXPECT_NE(decision["reason"].get<std::string>().find("low mark"), std::string::npos);
  }
  EXPECT_EQ(removals, 2);                        // three aggregators down to the minimum of one
  EXPECT_GE(stats["migrations"].get<int>(), 1);  // the shards on the drained ones moved
  EXPECT_TRUE(stats["jobs"][0]["done"].get<bool>());
}

bool HasLine(const Json& lines, const std::vector<std::string>& parts) {
  for (const Json& line : lines) {
    const std::string text = line.get<std::string>();
    bool all = true;
    for (const std::string& part : parts) all = all && text.find(part) != std::string::npos;
    if (all) return true;
  }
  return false;
}

// Elasticity end to end under real load: the marks are set so that a small job's real
// aggregation (two shards, no compute wait) is above the high mark and an idle pool below the
// low mark. The pool grows to two aggregators, a shard moves onto the new one, every job ends bit
// for bit where the same job ends on a service without elasticity, and once the load is over the
// pool drains back to one. Rounds of the job run until the growth and a move onto the new
// aggregator have happened during a round (bounded), so nothing depends on the machine's speed.
TEST(ParamService, RealLoadGrowsThePoolSpreadsShardsAndTheIdlePoolDrainsBack) {
  constexpr uint64_t kParameters = 40000;
  constexpr int kWorkers = 2, kIterations = 60;
  constexpr uint64_t kSeed = 5;
  std::vector<float> fixed;  // the job's result on a fixed pool of one aggregator
  {
    CoordinatorOptions options = Options(1);
    options.max_shard_floats = kParameters / 2;
    Service service(options);
    JobRun run;
    run.compute_s = 0;
    run.Start(service, service.Register("f", kParameters, kWorkers, 0.1f, 0.9f), "f", kWorkers,
              kParameters, kIterations, kSeed);
    run.Join();
    ASSERT_EQ(run.errors[0], "");
    fixed = run.results[0].final_parameters;
    EXPECT_TRUE(BitEqual(fixed, Reference(kWorkers, kParameters, kIterations, 0.1f, 0.9f, kSeed)));
    service.AwaitEnd(0);
    service.Stop();
  }

  CoordinatorOptions options = Options(1);
  options.max_aggregators = 2;
  options.elastic = true;
  options.high_mark = 0.02;
  options.low_mark = 0.01;
  options.sustain = 2;
  options.max_shard_floats = kParameters / 2;  // two shards per job
  Service service(options);
  bool moved = false;
  size_t rounds = 0;
  for (; rounds < 100 && !moved; ++rounds) {
    const std::string job = "e" + std::to_string(rounds);
    JobRun run;
    run.compute_s = 0;
    run.Start(service, service.Register(job, kParameters, kWorkers, 0.1f, 0.9f), job, kWorkers,
              kParameters, kIterations, kSeed);
    run.Join();
    for (int r = 0; r < kWorkers; ++r) {
      ASSERT_EQ(run.errors[r], "") << job;
      EXPECT_TRUE(BitEqual(run.results[r].final_parameters, fixed)) << job << " rank " << r;
    }
    service.AwaitEnd(rounds);
    const Json status = service.Status();  // kept alive: the loop below walks a part of it
    for (const Json& shard : status["jobs"][rounds]["shards"]) {
      moved = moved || (shard["migrations"].get<int>() > 0 && shard["aggregator"].get<int>() >= 1);
    }
  }
  ASSERT_TRUE(moved) << "no shard moved onto an added aggregator in " << rounds << " rounds";
  // The load is over: the idle pool drains back to its minimum (bounded wait).
  int alive = 0;
  for (int polls = 0; polls < 20000; ++polls) {
    alive = 0;
    const Json status = service.Status();
    for (const Json& agg : status["aggregators"]) alive += agg["alive"].get<bool>();
    if (alive == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(alive, 1);
  const Json stats = service.Stop();

  int adds = 0, removals = 0;
  bool add_before_remove = false;
  for (const Json& decision : stats["decisions"]) {
    const std::string reason = decision["reason"].get<std::string>();
    if (decision["decision"] == "add") {
      ++adds;
      EXPECT_NE(reason.find("above the high mark 0.02"), std::string::npos) << reason;
    } else {
      ++removals;
      add_before_remove = add_before_remove || adds > 0;
      EXPECT_NE(reason.find("below the low mark 0.01"), std::string::npos) << reason;
    }
  }
  EXPECT_GE(adds, 1);
  EXPECT_GE(removals, 1);
  EXPECT_TRUE(add_before_remove);
  bool spread = false;
  for (const Json& migration : stats["migration_log"]) {
    const std::string reason = migration["reason"].get<std::string>();
    spread = spread || (migration["to"].get<int>() >= 1 &&
                        reason.find("spreading the load onto aggregator") != std::string::npos &&
                        reason.find("added by elasticity") != std::string::npos);
  }
  EXPECT_TRUE(spread);
  EXPECT_TRUE(HasLine(stats["log"], {"elasticity: add an aggregator: utilization", "high mark"}));
  EXPECT_TRUE(HasLine(stats["log"], {"elasticity: drain aggregator", "below the low mark"}));
  EXPECT_TRUE(HasLine(stats["log"], {"drained and stopped"}));
  int most = 0;
  for (const Json& row : stats["timeline"]) most = std::max(most, row[1].get<int>());
  EXPECT_EQ(most, 2);  // the maximum: one added, never more
  for (size_t j = 0; j < rounds; ++j) EXPECT_TRUE(stats["jobs"][j]["done"].get<bool>());
}

TEST(ParamService, ForeignTokensAndGarbageAreRefusedWhileJobsGoOn) {
  Service service(Options(1));
  const wire::Token token = service.Register("t", 1500, 2, 0.1f, 0.0f);
  const wire::Token other = service.Register("u", 100, 1, 0.1f, 0.0f);
  std::mutex mutex;
  std::condition_variable changed;
  bool attacked = false;
  JobRun run;
  run.Start(service, token, "t", 2, 1500, 20, 3, [&](int rank, int t) {
    if (t != 5) return;
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return attacked; });
  });
  // Where shard 0 of job t lives (asked with t's token), then hostile peers against it.
  Json map = service.Ask(Json{{"op", "lookup"}}, token);
  while (!map["shards"][0]["ready"].get<bool>()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    map = service.Ask(Json{{"op", "lookup"}}, token);
  }
  const std::string host = map["shards"][0]["host"];
  const int port = map["shards"][0]["port"];
  auto hello = [&](const wire::Token& with, uint32_t rank, uint64_t workers) {
    wire::Socket socket = wire::ConnectTcp(host, port, 10);
    const std::string frame =
        wire::EncodeMessage(wire::Message{wire::MessageType::kHello, rank, workers, {}}, with);
    send(socket.fd(), frame.data(), frame.size(), MSG_NOSIGNAL);
    // Refused: a kError (zero token) and then closed, or closed (reset) at once; never welcomed.
    wire::SetReceiveTimeout(socket.fd(), 60);
    uint8_t reply[wire::kHeaderBytes];
    const ssize_t n = recv(socket.fd(), reply, sizeof(reply), MSG_WAITALL);
    if (n <= 0) return true;
    char byte;
    return n == static_cast<ssize_t>(sizeof(reply)) &&
           wire::DecodeHeader(reply).type == wire::MessageType::kError &&
           recv(socket.fd(), &byte, 1, 0) <= 0;
  };
  EXPECT_TRUE(hello(other, 0, 2));                // another job's token
  EXPECT_TRUE(hello(wire::RandomToken(), 1, 2));  // nobody's token
  EXPECT_TRUE(hello(token, 7, 2));                // right token, rank out of range
  {
    wire::Socket socket = wire::ConnectTcp(host, port, 10);
    const std::string junk(100, 'x');
    send(socket.fd(), junk.data(), junk.size(), MSG_NOSIGNAL);
    char byte;
    EXPECT_LE(recv(socket.fd(), &byte, 1, 0), 0);
  }
  // At the coordinator: a lookup with a token no job has, garbage, an oversized frame.
  const Json refused = service.Ask(Json{{"op", "lookup"}}, wire::RandomToken());
  EXPECT_EQ(refused["op"], "error");
  EXPECT_NE(refused["reason"].get<std::string>().find("no job"), std::string::npos);
  for (const std::string& bytes :
       {std::string(48, 'z'),
        std::string("JPSC\x01\0\0\0", 8) + std::string(8, '\xff') + std::string(32, '\0')}) {
    wire::Socket socket =
        wire::ConnectTcp("127.0.0.1", std::stoi(service.address().substr(10)), 10);
    send(socket.fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    char buffer[4096];
    while (recv(socket.fd(), buffer, sizeof(buffer), 0) > 0) {
    }
  }
  // The aggregator reports its refusals with its load (every 50 ms); the job is still held.
  for (int polls = 0; polls < 6000; ++polls) {
    if (service.Status()["jobs"][0]["shards"][0]["refused"] == 4) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const Json status = service.Status();
  EXPECT_EQ(status["jobs"][0]["shards"][0]["refused"], 4);
  EXPECT_GE(status["refused_requests"].get<int>(), 3);
  {
    std::lock_guard<std::mutex> lock(mutex);
    attacked = true;
    changed.notify_all();
  }
  run.Join();
  const std::vector<float> reference = Reference(2, 1500, 20, 0.1f, 0.0f, 3);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(run.errors[r], "");
    EXPECT_TRUE(BitEqual(run.results[r].final_parameters, reference)) << "rank " << r;
  }
  service.Stop();
}

TEST(ParamService, ADeadWorkerFailsOnlyItsOwnJob) {
  Service service(Options(1));
  const wire::Token good = service.Register("good", 800, 2, 0.1f, 0.0f);
  const wire::Token bad = service.Register("bad", 800, 2, 0.1f, 0.0f);
  JobRun run_good;
  run_good.Start(service, good, "good", 2, 800, 25, 1);
  std::string survivor_error;
  std::thread survivor([&] {
    try {
      ServiceClient client(service.address(), 0, 2, 60, bad);
      ps::TimedWorkerOptions options;
      options.job = "bad";
      options.workers = 2;
      options.parameters = 800;
      options.iterations = 25;
      options.compute_s = 0;
      options.quiet = true;
      ps::RunTimedWorker(options, client);
    } catch (const std::exception& e) {
      survivor_error = e.what();
    }
  });
  {
    // Worker 1 of "bad" joins, does two iterations and vanishes without a bye.
    ServiceClient dying(service.address(), 1, 2, 60, bad);
    std::vector<float> params = dying.Pull(0);
    for (uint64_t t = 0; t < 2; ++t) {
      dying.Push(t, std::vector<float>(800, 0.001f));
      params = dying.Pull(t + 1);
    }
  }
  survivor.join();
  run_good.Join();
  EXPECT_NE(survivor_error.find("failed the job"), std::string::npos) << survivor_error;
  EXPECT_NE(survivor_error.find("disconnected"), std::string::npos) << survivor_error;
  const std::vector<float> reference = Reference(2, 800, 25, 0.1f, 0.0f, 1);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(run_good.errors[r], "");
    EXPECT_TRUE(BitEqual(run_good.results[r].final_parameters, reference));
  }
  service.AwaitEnd(0);
  service.AwaitEnd(1);
  const Json stats = service.Stop();
  EXPECT_TRUE(stats["jobs"][0]["done"].get<bool>());
  EXPECT_TRUE(stats["jobs"][1]["failed"].get<bool>());
}

}  // namespace
}  // namespace jigsaw::paramsvc
