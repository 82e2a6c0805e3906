// Real mode end to end: `jigsaw fl --serve` and three `jigsaw fl-client` processes on loopback,
// one of which kills itself (SIGKILL) when round 2's model arrives; a garbage connection is
// refused while the others are served.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_util/shell.h"

namespace jigsaw {
namespace {

namespace fs = std::filesystem;

using test_util::Slurp;

// The population every real-mode test serves: 3 clients of one Fashion-MNIST group, an MLP.
std::vector<std::string> SmallPopulation(int seed) {
  return {"--dataset",
          "fashion-groups",
          "--clients",
          "3",
          "--groups",
          "1",
          "--samples-per-client",
          "20",
          "--test-per-client",
          "10",
          "--model",
          "mlp",
          "--seed",
          std::to_string(seed)};
}

// A child process of the test: killed (SIGKILL) and reaped on destruction if still running, so a
// failing test leaves no processes behind.
class Child {
 public:
  Child(const std::vector<std::string>& args, const fs::path& log) {
    pid_ = fork();
    if (pid_ == 0) {
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        dup2(fd, STDERR_FILENO);
        dup2(fd, STDOUT_FILENO);
      }
      std::vector<char*> argv;
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ > 0 && !done_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status_, 0);
    }
  }
  bool running() {
    if (done_) return false;
    if (waitpid(pid_, &status_, WNOHANG) == pid_) done_ = true;
    return !done_;
  }
  // Waits up to `limit_s` (a guard against a hung child, not a speed check); false on timeout.
  bool Wait(double limit_s) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
    while (running()) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return true;
  }
  int exit_code() const { return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1; }
  int signal() const { return WIFSIGNALED(status_) ? WTERMSIG(status_) : 0; }

 private:
  pid_t pid_ = -1;
  bool done_ = false;
  int status_ = 0;
};

// The port a `--port-file` server announced, or -1 once it has exited or 300 s have passed (a
// guard against a hung server, not a speed check).
int WaitForPort(Child& server, const fs::path& port_file) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  while (!fs::exists(port_file) && server.running() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return fs::exists(port_file) ? std::stoi(Slurp(port_file)) : -1;
}

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.push_back("");
  return parts;
}

// A hello header with the job's token that announces 2^27 floats: within the framing's global
// bound, far over the hello's (0).
std::string OversizedHello() {
  std::string frame(48, '\0');
  frame.replace(0, 4, "JPS2");
  frame[4] = 1;                   // kHello
  frame[16] = 3;                  // step: protocol version (kFlProtocolVersion)
  frame[24 + 3] = 8;              // count = 2^27, little-endian
  for (int i = 0; i < 16; ++i) {  // token 00112233445566778899aabbccddeeff
    frame[32 + i] = static_cast<char>(i * 0x11);
  }
  return frame;
}

void SendRaw(int port, const std::string& bytes) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
  char reply[64];
  (void)recv(fd, reply, sizeof(reply), 0);  // the server's kError, or its close
  close(fd);
}

TEST(FlRealModeTest, ThreeClientsOneKilledMidRoundRoundsComplete) {
  if (!fs::exists("/usr/share/datasets/fashion-mnist")) GTEST_SKIP() << "no Fashion-MNIST";
  const fs::path dir = test_util::FreshTempDir("jigsaw_fl_real_", "killed");
  const std::string token = "00112233445566778899aabbccddeeff";
  const std::vector<std::string> population = SmallPopulation(3);
  std::vector<std::string> server_args = {JIGSAW_BINARY, "fl"};
  server_args.insert(server_args.end(), population.begin(), population.end());
  for (const char* a :
       {"--serve", "--port",         "0",          "--expect-clients", "3",    "--rounds",
        "4",       "--participants", "3",          "--local-steps",    "2",    "--batch",
        "10",      "--eval-every",   "2",          "--join-timeout",   "300s", "--round-timeout",
        "300s",    "--token",        token.c_str()}) {
    server_args.push_back(a);
  }
  server_args.insert(server_args.end(),
                     {"--port-file", (dir / "port").string(), "--out", (dir / "out").string()});
  {
    Child server(server_args, dir / "server.log");
    const int port = WaitForPort(server, dir / "port");
    ASSERT_GE(port, 0) << Slurp(dir / "server.log");
    SendRaw(port, std::string(48, 'X'));
    SendRaw(port, OversizedHello());
    std::vector<std::unique_ptr<Child>> clients;
    for (int c = 0; c < 3; ++c) {
      std::vector<std::string> args = {JIGSAW_BINARY, "fl-client"};
      args.insert(args.end(), population.begin(), population.end());
      args.insert(args.end(), {"--server", "127.0.0.1:" + std::to_string(port), "--client-id",
                               c == 2 ? "2" : "client" + std::to_string(c), "--token", token});
      if (c == 2) args.insert(args.end(), {"--die-after-rounds", "1"});
      clients.push_back(
          std::make_unique<Child>(args, dir / ("client" + std::to_string(c) + ".log")));
    }
    ASSERT_TRUE(server.Wait(600)) << "server hung: " << Slurp(dir / "server.log");
    const std::string server_log = Slurp(dir / "server.log");
    EXPECT_EQ(server.exit_code(), 0) << server_log;
    EXPECT_NE(server_log.find("refused a connection: bad magic"), std::string::npos) << server_log;
    EXPECT_NE(server_log.find("refused a connection: hello message of 134217728 floats"),
              std::string::npos)
        << server_log;
    EXPECT_NE(server_log.find("client 2 dropped"), std::string::npos) << server_log;
    for (int c = 0; c < 3; ++c) {
      ASSERT_TRUE(clients[c]->Wait(120)) << "client " << c << " hung";
      const std::string log = Slurp(dir / ("client" + std::to_string(c) + ".log"));
      if (c == 2) {
        EXPECT_EQ(clients[c]->signal(), SIGKILL) << log;
      } else {
        EXPECT_EQ(clients[c]->exit_code(), 0) << log;
      }
    }
  }
  const std::vector<std::string> lines = Split(Slurp(dir / "out/rounds.csv"), '\n');
  ASSERT_GE(lines.size(), 5u);
  const std::vector<std::string> header = Split(lines[0], ',');
  ASSERT_EQ(header.back(), "lost_clients");
  for (int round = 1; round <= 4; ++round) {
    const std::vector<std::string> row = Split(lines[round], ',');
    ASSERT_EQ(row.size(), header.size()) << lines[round];
    EXPECT_EQ(row[0], std::to_string(round));
    EXPECT_EQ(row[2], round == 1 ? "3" : "2") << "participants, round " << round;
    EXPECT_EQ(row.back(), round == 2 ? "2" : "") << "lost clients, round " << round;
  }
  const auto summary = nlohmann::json::parse(Slurp(dir / "out/summary.json"));
  EXPECT_EQ(summary["mode"], "serve");
  EXPECT_EQ(summary["lost_updates"], 1);
  EXPECT_GT(summary["weight_change"].get<double>(), 0.0);
  EXPECT_TRUE(summary.contains("final_mean_accuracy"));
  fs::remove_all(dir);
}

int ConnectLoopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool ReadExactly(int fd, char* out, size_t bytes) {
  while (bytes > 0) {
    const ssize_t got = recv(fd, out, bytes, 0);
    if (got <= 0) return false;
    out += got;
    bytes -= static_cast<size_t>(got);
  }
  return true;
}

// A joined client that answers the round's model with garbage is dropped while the real clients
// are served and the rounds complete.
TEST(FlRealModeTest, JoinedClientSendingGarbageIsDroppedOthersContinue) {
  if (!fs::exists("/usr/share/datasets/fashion-mnist")) GTEST_SKIP() << "no Fashion-MNIST";
  const fs::path dir = test_util::FreshTempDir("jigsaw_fl_real_", "garbage");
  const std::string token = "00112233445566778899aabbccddeeff";
  const std::vector<std::string> population = SmallPopulation(4);
  std::vector<std::string> serve = {JIGSAW_BINARY, "fl"};
  serve.insert(serve.end(), population.begin(), population.end());
  serve.insert(serve.end(),
               {"--rounds", "2", "--participants", "3", "--local-steps", "1", "--eval-every", "2",
                "--serve", "--port", "0", "--port-file", (dir / "port").string(), "--token", token,
                "--out", (dir / "out").string()});
  {
    Child server(serve, dir / "server.log");
    const int port = WaitForPort(server, dir / "port");
    ASSERT_GE(port, 0) << Slurp(dir / "server.log");
    // Client 1 speaks the protocol by hand: a valid hello, then garbage instead of its push.
    const int fake = ConnectLoopback(port);
    ASSERT_GE(fake, 0);
    std::string hello = OversizedHello();
    hello[8] = 1;                                // rank: client 1
    for (int i = 24; i < 32; ++i) hello[i] = 0;  // no floats
    ASSERT_EQ(send(fake, hello.data(), hello.size(), MSG_NOSIGNAL), 48);
    std::vector<std::unique_ptr<Child>> clients;
    for (int c : {0, 2}) {
      std::vector<std::string> args = {JIGSAW_BINARY, "fl-client"};
      args.insert(args.end(), population.begin(), population.end());
      args.insert(args.end(), {"--server", "127.0.0.1:" + std::to_string(port), "--client-id",
                               std::to_string(c), "--token", token});
      clients.push_back(
          std::make_unique<Child>(args, dir / ("client" + std::to_string(c) + ".log")));
    }
    char header[48];
    ASSERT_TRUE(ReadExactly(fake, header, sizeof(header))) << Slurp(dir / "server.log");
    EXPECT_EQ(header[4], 9) << "expected kWelcome";
    ASSERT_TRUE(ReadExactly(fake, header, sizeof(header))) << Slurp(dir / "server.log");
    EXPECT_EQ(header[4], 5) << "expected kParams";
    uint64_t count = 0;
    for (int i = 7; i >= 0; --i) count = (count << 8) | static_cast<uint8_t>(header[24 + i]);
    std::vector<char> payload(count * 4);
    ASSERT_TRUE(ReadExactly(fake, payload.data(), payload.size()));
    const std::string junk(48, 'Z');
    ASSERT_EQ(send(fake, junk.data(), junk.size(), MSG_NOSIGNAL), 48);
    ASSERT_TRUE(server.Wait(600)) << "server hung: " << Slurp(dir / "server.log");
    close(fake);
    const std::string server_log = Slurp(dir / "server.log");
    EXPECT_EQ(server.exit_code(), 0) << server_log;
    EXPECT_NE(server_log.find("client 1 dropped: protocol error: bad magic"), std::string::npos)
        << server_log;
    for (auto& client : clients) {
      ASSERT_TRUE(client->Wait(120));
      EXPECT_EQ(client->exit_code(), 0);
    }
  }
  const std::vector<std::string> lines = Split(Slurp(dir / "out/rounds.csv"), '\n');
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(Split(lines[1], ',')[2], "2") << lines[1];
  EXPECT_EQ(Split(lines[1], ',').back(), "1") << lines[1];
  EXPECT_EQ(Split(lines[2], ',')[2], "2") << lines[2];
  fs::remove_all(dir);
}

// With no faults the real processes compute what the simulation computes: both run RunFlRounds
// and TrainLocally with the same seeds, and weights travel as exact float32. The lr halves every
// round and the clients use momentum and weight decay: each round's lr and both options travel in
// the server's kParams.
TEST(FlRealModeTest, WithoutFaultsRealModeMatchesTheSimulation) {
  if (!fs::exists("/usr/share/datasets/fashion-mnist")) GTEST_SKIP() << "no Fashion-MNIST";
  const fs::path dir = test_util::FreshTempDir("jigsaw_fl_real_", "same");
  const std::string token = "00112233445566778899aabbccddeeff";
  const std::vector<std::string> population = SmallPopulation(5);
  const std::vector<std::string> training = {
      "--rounds",          "3",  "--participants", "3",   "--local-steps",  "2",
      "--batch",           "10", "--eval-every",   "3",   "--lr-decay",     "0.5",
      "--lr-decay-rounds", "1",  "--momentum",     "0.9", "--weight-decay", "0.01"};
  std::vector<std::string> simulate = {JIGSAW_BINARY, "fl"};
  simulate.insert(simulate.end(), population.begin(), population.end());
  simulate.insert(simulate.end(), training.begin(), training.end());
  simulate.insert(simulate.end(), {"--availability", "1", "--overcommit", "1", "--out",
                                   (dir / "sim").string(), "--quiet"});
  {
    Child simulation(simulate, dir / "sim.log");
    ASSERT_TRUE(simulation.Wait(600)) << "simulation hung";
    ASSERT_EQ(simulation.exit_code(), 0) << Slurp(dir / "sim.log");
  }
  std::vector<std::string> serve = {JIGSAW_BINARY, "fl"};
  serve.insert(serve.end(), population.begin(), population.end());
  serve.insert(serve.end(), training.begin(), training.end());
  serve.insert(serve.end(), {"--serve", "--port", "0", "--port-file", (dir / "port").string(),
                             "--token", token, "--out", (dir / "real").string()});
  {
    Child server(serve, dir / "server.log");
    const int port = WaitForPort(server, dir / "port");
    ASSERT_GE(port, 0) << Slurp(dir / "server.log");
    const std::string address = "127.0.0.1:" + std::to_string(port);
    std::vector<std::unique_ptr<Child>> clients;
    for (int c = 0; c < 3; ++c) {
      std::vector<std::string> args = {JIGSAW_BINARY, "fl-client"};
      args.insert(args.end(), population.begin(), population.end());
      args.insert(args.end(),
                  {"--server", address, "--client-id", std::to_string(c), "--token", token});
      clients.push_back(
          std::make_unique<Child>(args, dir / ("client" + std::to_string(c) + ".log")));
    }
    ASSERT_TRUE(server.Wait(600)) << "server hung: " << Slurp(dir / "server.log");
    ASSERT_EQ(server.exit_code(), 0) << Slurp(dir / "server.log");
    for (int c = 0; c < 3; ++c) {
      ASSERT_TRUE(clients[c]->Wait(120)) << "client " << c << " hung";
      EXPECT_EQ(clients[c]->exit_code(), 0);
    }
  }
  const auto simulated = nlohmann::json::parse(Slurp(dir / "sim/summary.json"));
  const auto real = nlohmann::json::parse(Slurp(dir / "real/summary.json"));
  EXPECT_EQ(real["lost_updates"], 0);
  EXPECT_GT(real["weight_change"].get<double>(), 0.0);
  EXPECT_NEAR(real["weight_change"].get<double>(), simulated["weight_change"].get<double>(), 1e-5);
  EXPECT_EQ(real["final_mean_accuracy"], simulated["final_mean_accuracy"]);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace jigsaw
