// An in-process Parameter Service coordinator for tests: it starts real aggregator processes (the
// jigsaw binary) and answers control requests over loopback.
#ifndef JIGSAW_TESTS_PARAMSVC_SERVICE_HARNESS_H_
#define JIGSAW_TESTS_PARAMSVC_SERVICE_HARNESS_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <future>
#include <string>
#include <thread>

#include "core/socket.h"
#include "paramsvc/control.h"
#include "paramsvc/coordinator.h"

namespace jigsaw::paramsvc {

class Service {
 public:
  explicit Service(CoordinatorOptions options) {
    dir_ = std::filesystem::temp_directory_path() /
           ("jigsaw_paramsvc_test_" + std::to_string(getpid()) + "_" + std::to_string(++count_));
    std::filesystem::create_directories(dir_);
    options.token_file = (dir_ / "service.token").string();
    options.token = wire::ResolveToken("", options.token_file, true);
    options.aggregator_binary = JIGSAW_BINARY;
    options.quiet = std::getenv("JIGSAW_TEST_VERBOSE") == nullptr;
    token_ = options.token;
    std::promise<int> listening;
    auto port = listening.get_future();
    options.on_listening = [&listening](int p) { listening.set_value(p); };
    thread_ = std::thread([this, options] {
      try {
        stats_ = RunCoordinator(options);
      } catch (const std::exception& e) {
        error_ = e.what();
      }
    });
    port_ = port.get();
  }
  ~Service() {
    if (thread_.joinable()) Stop();
    std::filesystem::remove_all(dir_);
  }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  const wire::Token& token() const { return token_; }

  Json Ask(const Json& body, const wire::Token& token) {
    wire::Socket socket = wire::ConnectTcp("127.0.0.1", port_, 10);
    ControlFrame frame;
    frame.body = body;
    SendControl(socket.fd(), frame, token);
    return ReceiveControl(socket.fd(), 0).body;
  }
  wire::Token Register(const std::string& job, uint64_t parameters, int workers, float lr,
                       float momentum) {
    const Json reply = Ask(Json{{"op", "register"},
                                {"job", job},
                                {"parameters", parameters},
                                {"workers", workers},
                                {"iter_rate", 20.0},
                                {"lr", lr},
                                {"momentum", momentum}},
                           token_);
    return wire::ParseToken(reply.at("token").get<std::string>());
  }
  Json Status() { return Ask(Json{{"op", "status"}}, token_).at("status"); }
  // The aggregators report a job's end after its workers said bye: wait for that (bounded).
  void AwaitEnd(size_t job) {
    for (int polls = 0; polls < 6000; ++polls) {
      const Json status = Status();
      if (status["jobs"][job]["done"].get<bool>() || status["jobs"][job]["failed"].get<bool>()) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  Json Stop() {
    Ask(Json{{"op", "shutdown"}}, token_);
    thread_.join();
    EXPECT_EQ(error_, "");
    return stats_;
  }

 private:
  static inline int count_ = 0;
  std::filesystem::path dir_;
  wire::Token token_{};
  int port_ = 0;
  std::thread thread_;
  Json stats_;
  std::string error_;
};

}  // namespace jigsaw::paramsvc

#endif  // JIGSAW_TESTS_PARAMSVC_SERVICE_HARNESS_H_
