// The parameter server over loopback TCP with torch-free clients: synchronous SGD end to end
// (every worker sees the same, exactly computed parameters after each step) and failure handling.
#include "ps/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <cmath>
#include <future>
#include <thread>

#include "core/socket.h"
#include "core/wire_message.h"
#include "ps/client.h"

namespace jigsaw::ps {
namespace {

const wire::Token kToken = wire::ParseToken("0123456789abcdef0123456789abcdef");

// Starts a server on a free loopback port in a thread; returns the port.
struct ServerThread {
  std::promise<int> port_promise;
  std::future<ServerStats> stats;

  explicit ServerThread(ServerOptions options) {
    options.port = 0;
    options.quiet = true;
    options.token = kToken;
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
      PsClient client("127.0.0.1", port, k, kWorkers, 10, kToken);
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
    PsClient client("127.0.0.1", port, 1, 2, 10, kToken);
    client.Pull(0);
  });  // closes its connection without pushing or saying bye
  PsClient survivor("127.0.0.1", port, 0, 2, 10, kToken);
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
  try {
    PsClient client("127.0.0.1", server.port(), 0, 3, 10, kToken);
    FAIL() << "joined";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("refused by the server"), std::string::npos) << e.what();
  }
  try {
    server.stats.get();
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("expects 3 workers"), std::string::npos) << e.what();
  }
}

// A raw TCP connection to the server, for playing a hostile peer.
wire::Socket Connect(int port) { return wire::ConnectTcp("127.0.0.1", port, 10); }

void SendBytes(const wire::Socket& socket, const std::string& bytes) {
  ASSERT_EQ(send(socket.fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(bytes.size()));
}

// Runs a 2-worker job of `steps` steps with torch-free clients; returns what worker 0 saw last.
std::vector<float> TrainTwoWorkers(int port, int steps, const wire::Token& token = kToken) {
  std::vector<float> last;
  std::thread other([&] {
    PsClient client("127.0.0.1", port, 1, 2, 10, token);
    client.Pull(0);
    for (int t = 0; t < steps; ++t) {
      client.Push(t, {1.0f, 1.0f});
      client.Pull(t + 1);
    }
    client.Bye();
  });
  PsClient client("127.0.0.1", port, 0, 2, 10, token);
  client.Init({0.0f, 0.0f});
  client.Pull(0);
  for (int t = 0; t < steps; ++t) {
    client.Push(t, {3.0f, 3.0f});
    last = client.Pull(t + 1);
  }
  client.Bye();
  other.join();
  return last;
}

// A port scan, garbage, a truncated frame, an idle connection, a wrong token and a stranger
// claiming rank 0 before the workers join must neither fail the job nor take a rank: each is
// refused and counted, and the job trains exactly as without them.
TEST(ParameterServer, HostilePeersBeforeTheWorkersJoinNeverFailTheJob) {
  ServerOptions options;
  options.workers = 2;
  options.lr = 0.5f;
  options.timeout_s = 30;
  options.handshake_timeout_s = 0.3;
  ServerThread server(options);
  const int port = server.port();
  { wire::Socket scan = Connect(port); }  // connect and close: a port scan
  wire::Socket garbage = Connect(port);
  SendBytes(garbage, std::string(100, 'G'));
  wire::Socket truncated = Connect(port);
  SendBytes(truncated,
            wire::EncodeMessage(wire::Message{wire::MessageType::kHello, 0, 2, {}}, kToken)
                .substr(0, 20));
  truncated = wire::Socket();
  wire::Socket idle = Connect(port);  // says nothing: closed after the handshake timeout
  const wire::Token wrong = wire::ParseToken("ffffffffffffffffffffffffffffffff");
  wire::Socket hijacker = Connect(port);  // claims rank 0 with the wrong token
  SendBytes(hijacker,
            wire::EncodeMessage(wire::Message{wire::MessageType::kHello, 0, 2, {}}, wrong));
  wire::Socket pusher = Connect(port);  // a frame that is not a hello, with the right token
  SendBytes(pusher, wire::EncodeMessage(wire::Message{wire::MessageType::kPush, 1, 0, {9.0f, 9.0f}},
                                        kToken));
  // (The idle one is closed after its handshake timeout, or when the job is complete.)
  const std::vector<float> last = TrainTwoWorkers(port, 3);
  const ServerStats stats = server.stats.get();
  EXPECT_EQ(stats.steps, 3u);
  // Mean gradient 2 per step, lr 0.5: each parameter falls by 1 per step.
  EXPECT_EQ(last, (std::vector<float>{-3.0f, -3.0f}));
  EXPECT_GE(stats.refused_connections, 6u);
}

// A peer that opens a connection and sends a third of a hello, then nothing, holds one handshake
// slot until its deadline (an hour here) and nothing else: the workers join and train meanwhile,
// and the slow peer is closed once the job is complete. Without the shared acceptor's per-peer
// state this test would wait for the slow peer's deadline.
TEST(ParameterServer, ASlowHandshakePeerDoesNotDelayTheWorkers) {
  ServerOptions options;
  options.workers = 2;
  options.lr = 0.5f;
  options.timeout_s = 30;
  options.handshake_timeout_s = 3600;
  ServerThread server(options);
  const int port = server.port();
  wire::Socket slow = Connect(port);
  SendBytes(slow, wire::EncodeMessage(wire::Message{wire::MessageType::kHello, 0, 2, {}}, kToken)
                      .substr(0, 16));
  EXPECT_EQ(TrainTwoWorkers(port, 2), (std::vector<float>{-2.0f, -2.0f}));
  EXPECT_EQ(server.stats.get().steps, 2u);
  char byte;
  wire::SetReceiveTimeout(slow.fd(), 60);
  EXPECT_EQ(recv(slow.fd(), &byte, 1, 0), 0);  // closed: "the job is complete"
}

// Idle connections beyond max_pending evict the oldest pending handshake (told kBusy) instead of
// locking the workers out; a worker evicted in the flood retries with backoff.
TEST(ParameterServer, IdleConnectionsBeyondTheTableDoNotKeepWorkersOut) {
  ServerOptions options;
  options.workers = 2;
  options.timeout_s = 30;
  options.handshake_timeout_s = 3600;
  options.max_pending = 4;
  ServerThread server(options);
  const int port = server.port();
  std::vector<wire::Socket> idle;
  for (int i = 0; i < 12; ++i) idle.push_back(Connect(port));
  TrainTwoWorkers(port, 1);
  const ServerStats stats = server.stats.get();
  EXPECT_EQ(stats.steps, 1u);
  EXPECT_GE(stats.refused_connections, 8u);  // evicted to make room
}

// The default listening address is loopback only.
TEST(ParameterServer, ListensOnLoopbackByDefault) {
  EXPECT_EQ(ServerOptions{}.host, "127.0.0.1");
  ServerOptions options;
  options.workers = 2;
  options.timeout_s = 30;
  ServerThread server(options);
  const int port = server.port();
  // Any non-loopback address of this machine must refuse the connection.
  ifaddrs* interfaces = nullptr;
  ASSERT_EQ(getifaddrs(&interfaces), 0);
  int tried = 0;
  for (ifaddrs* i = interfaces; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    sockaddr_in address = *reinterpret_cast<sockaddr_in*>(i->ifa_addr);
    if ((ntohl(address.sin_addr.s_addr) >> 24) == 127) continue;
    address.sin_port = htons(static_cast<uint16_t>(port));
    wire::Socket probe(socket(AF_INET, SOCK_STREAM, 0));
    EXPECT_NE(connect(probe.fd(), reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0)
        << "reachable on " << inet_ntoa(address.sin_addr);
    ++tried;
  }
  freeifaddrs(interfaces);
  if (tried == 0) std::printf("no non-loopback IPv4 address to try\n");
  TrainTwoWorkers(port, 1);
  server.stats.get();
}

// A worker with the right token that pushes NaN fails its own job with a clear error (the model
// is not updated); another job on the same host trains on undisturbed.
TEST(ParameterServer, NonFiniteGradientsFailOnlyTheirJob) {
  ServerOptions options;
  options.workers = 2;
  options.timeout_s = 30;
  ServerThread poisoned(options);
  ServerThread healthy(options);
  const int poisoned_port = poisoned.port();
  // Once the NaN arrives the server fails the job and closes both connections, so either
  // worker's next call may be the one that throws (the other worker's push can race the close);
  // no exception may leave a block while the thread is still joinable.
  std::thread other([&] {
    PsClient client("127.0.0.1", poisoned_port, 1, 2, 10, kToken);
    EXPECT_THROW(
        {
          client.Pull(0);
          client.Push(0, {1.0f, std::nanf("")});
          client.Pull(1);
        },
        std::runtime_error);
  });
  {
    PsClient client("127.0.0.1", poisoned_port, 0, 2, 10, kToken);
    client.Init({0.0f, 0.0f});
    EXPECT_THROW(
        {
          client.Pull(0);
          client.Push(0, {1.0f, 1.0f});
          client.Pull(1);
        },
        std::runtime_error);
  }
  other.join();
  try {
    poisoned.stats.get();
    FAIL() << "the poisoned job succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("worker 1: non-finite gradient at step 0 (element 1"),
              std::string::npos)
        << e.what();
  }
  TrainTwoWorkers(healthy.port(), 3);
  EXPECT_EQ(healthy.stats.get().steps, 3u);
}

// A worker's announced size is checked against the model before the payload is read or
// allocated (a 2^27-float push to a 2-parameter model).
TEST(ParameterServer, OversizedMessagesAreRefusedBeforeAllocation) {
  ServerOptions options;
  options.workers = 1;
  options.timeout_s = 30;
  ServerThread second(options);
  wire::Socket direct = Connect(second.port());
  SendBytes(direct,
            wire::EncodeMessage(wire::Message{wire::MessageType::kHello, 0, 1, {}}, kToken));
  SendBytes(direct, wire::EncodeMessage(wire::Message{wire::MessageType::kInit, 0, 0, {0.0f, 0.0f}},
                                        kToken));
  std::string push = wire::EncodeMessage(wire::Message{wire::MessageType::kPush, 0, 0, {}}, kToken);
  push[24 + 3] = 0x08;  // count = 2^27 floats, none sent
  SendBytes(direct, push);
  try {
    second.stats.get();
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("push message of 134217728 floats, expected at most 2"),
              std::string::npos)
        << e.what();
  }
}

// A fractional --timeout-s is honoured (0.5 s was no timeout at all: the fraction was dropped).
TEST(ParameterServer, AFractionalClientTimeoutIsHonoured) {
  wire::Socket listener = wire::ListenTcp("127.0.0.1", 0, 4);
  const int port = wire::LocalPort(listener);
  auto pulled = std::async(std::launch::async, [port] {
    try {
      PsClient client("127.0.0.1", port, 0, 1, 0.5, kToken);
      client.Pull(0);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("a reply");
  });
  wire::Socket silent = wire::AcceptTcp(listener, 10);  // welcomes the hello, then never answers
  uint8_t hello[wire::kHeaderBytes];
  ASSERT_EQ(recv(silent.fd(), hello, wire::kHeaderBytes, MSG_WAITALL),
            static_cast<ssize_t>(wire::kHeaderBytes));
  wire::SendMessage(silent.fd(), wire::Message{wire::MessageType::kWelcome, 0, 0, {}}, kToken);
  if (pulled.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    silent.Shutdown();  // unblock the client so the test can end
    FAIL() << "the 0.5 s timeout never fired";
  }
  EXPECT_NE(pulled.get().find("no reply from the parameter server in time"), std::string::npos);
}

}  // namespace
}  // namespace jigsaw::ps
