// The parameter server over loopback TCP with torch-free clients: synchronous SGD end to end
// (every worker sees the same, exactly computed parameters after each step) and failure handling.
#include "ps/server.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "ps/client.h"

namespace jigsaw::ps {
namespace {

// Starts a server on a free loopback port in a thread; returns the port.
struct ServerThread {
  std::promise<int> port_promise;
  std::future<ServerStats> stats;

  explicit ServerThread(ServerOptions options) {
    options.host = "127.0.0.1";
    options.port = 0;
    options.quiet = true;
    options.on_listening = [this](int port) { port_promise.set_value(port); };
    stats = std::async(std::launch::async, [options] { return RunParameterServer(options); });
  }
  int port() { return port_promise.get_future().get(); }
};

TEST(ParameterServer, SynchronousSgdOverLoopback) {
  constexpr int kWorkers = 3;
  constexpr int kSteps = 5;
  constexpr float kLr = 0.1f;
  ServerOptions options;
  options.workers = kWorkers;
  options.lr = kLr;
  options.timeout_s = 10;
  ServerThread server(options);
  const int port = server.port();

  // Worker k's gradient at step t is (k + 1) * (t + 1) for every element: mean over workers is
  // 2 * (t + 1), so after step t each parameter dropped by lr * 2 * (t + 1).
  const std::vector<float> initial(1000, 1.0f);
  std::vector<std::vector<std::vector<float>>> seen(kWorkers);
  std::vector<std::thread> workers;
  for (int k = 0; k < kWorkers; ++k) {
    workers.emplace_back([&, k] {
      PsClient client("127.0.0.1", port, k, kWorkers, 10);
      if (k == 0) client.Init(initial);
      seen[k].push_back(client.Pull(0));
      for (int t = 0; t < kSteps; ++t) {
        client.Push(t, std::vector<float>(initial.size(), static_cast<float>((k + 1) * (t + 1))));
        seen[k].push_back(client.Pull(t + 1));
      }
      client.Bye();
    });
  }
  for (auto& w : workers) w.join();
  ServerStats stats = server.stats.get();
  EXPECT_EQ(stats.steps, static_cast<uint64_t>(kSteps));
  EXPECT_EQ(stats.parameters, initial.size());
  EXPECT_EQ(stats.step_done_wall_s.size(), static_cast<size_t>(kSteps));
  EXPECT_GE(stats.end_wall_s, stats.start_wall_s);
  float expected = 1.0f;
  for (int t = 0; t <= kSteps; ++t) {
    if (t > 0) expected -= kLr * 2.0f * static_cast<float>(t);
    for (int k = 0; k < kWorkers; ++k) {
      ASSERT_EQ(seen[k][t].size(), initial.size());
      EXPECT_FLOAT_EQ(seen[k][t][0], expected) << "worker " << k << " version " << t;
      EXPECT_EQ(seen[k][t], seen[0][t]);  // replicas identical
    }
  }
  // Every pull's parameters were sent once per worker and version.
  EXPECT_GE(stats.bytes_sent, uint64_t{kWorkers} * (kSteps + 1) * initial.size() * 4);
}

TEST(ParameterServer, AWorkerThatDisconnectsFailsTheJob) {
  ServerOptions options;
  options.workers = 2;
  options.timeout_s = 10;
  ServerThread server(options);
  const int port = server.port();
  std::thread quitter([&] {
    PsClient client("127.0.0.1", port, 1, 2, 10);
    client.Pull(0);
  });  // closes its connection without pushing or saying bye
  PsClient survivor("127.0.0.1", port, 0, 2, 10);
  survivor.Init({0.0f, 0.0f});
  quitter.join();
  survivor.Push(0, {1.0f, 1.0f});
  EXPECT_THROW(survivor.Pull(1), std::runtime_error);
  try {
    server.stats.get();
    FAIL() << "the server did not report the failure";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("worker 1 disconnected"), std::string::npos) << e.what();
  }
}

TEST(ParameterServer, RejectsAWorkerWithTheWrongJobSize) {
  ServerOptions options;
  options.workers = 2;
  options.timeout_s = 10;
  ServerThread server(options);
  PsClient client("127.0.0.1", server.port(), 0, 3, 10);
  try {
    server.stats.get();
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("expects 3 workers"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace jigsaw::ps
