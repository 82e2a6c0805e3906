// Internals of http::Server (http_server.h), shared by http_server.cc (set-up, handler threads)
// and http_io_loop.cc (the I/O thread). Not for use elsewhere.
#ifndef JIGSAW_CORE_HTTP_SERVER_IMPL_H_
#define JIGSAW_CORE_HTTP_SERVER_IMPL_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/http_request_parser.h"
#include "core/http_server.h"

namespace jigsaw::http {

using Clock = std::chrono::steady_clock;

class Server::Impl {
 public:
  explicit Impl(ServerOptions options);
  ~Impl();

  int Start();
  void Stop();
  ServerStats stats() const;

  ServerOptions options_;
  Router router_;
  HeadCheck head_check_;
  Logger logger_;
  int port_ = 0;

 private:
  enum class State { kIdle, kReading, kHandling, kWriting, kDraining };
  struct Connection {
    uint64_t id = 0;
    int fd = -1;
    std::string remote;
    State state = State::kIdle;
    RequestParser parser;
    std::string pending;  // input read past the current request (pipelined), at most one read
    std::string out;      // the reply being written
    size_t written = 0;
    bool close_after = false;
    size_t counted = 0;       // bytes of this connection in buffered_
    Clock::time_point since;  // of the state's deadline: idle, request start, write start, drain
    explicit Connection(const ParserLimits& limits) : parser(limits) {}
  };
  struct Job {
    uint64_t connection = 0;
    bool keep_alive = true;
    Request request;
  };
  struct Completion {
    uint64_t connection = 0;
    bool keep_alive = true;
    std::string bytes;
  };

  // I/O thread (http_io_loop.cc).
  void Loop();
  void AcceptAll();
  bool EvictOne();
  void OnReadable(Connection& c);
  void Consume(Connection& c, std::string_view data);
  bool CheckHead(Connection& c);
  void Dispatch(Connection& c);
  bool UpdateBudget(Connection& c);
  void Refuse(Connection& c, int status, const std::string& message);
  void StartWrite(Connection& c, std::string bytes, bool close_after);
  void TryWrite(Connection& c);
  void FinishWrite(Connection& c);
  void Release(Connection& c);  // its request bytes leave the budget
  void Close(Connection& c);
  void ApplyCompletions();
  int Sweep();
  void Watch(Connection& c, uint32_t events);
  void Count(int64_t ServerStats::*field, int64_t by = 1);

  // Handler threads (http_server.cc).
  void Work();

  ParserLimits limits_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::thread io_thread_;
  std::vector<std::thread> workers_;
  std::atomic<bool> stopping_{false};
  bool started_ = false;
  // I/O thread only.
  std::unordered_map<uint64_t, std::unique_ptr<Connection>> connections_;
  uint64_t next_id_ = 2;  // 0: the listener, 1: the wake-up eventfd
  size_t buffered_ = 0;
  bool accept_paused_ = false;  // the listener is out of epoll until a connection closes
  // Shared with the handler threads.
  std::mutex jobs_mutex_;
  std::condition_variable jobs_cv_;
  std::deque<Job> jobs_;
  bool workers_stop_ = false;
  std::mutex done_mutex_;
  std::vector<Completion> done_;
  mutable std::mutex stats_mutex_;
  ServerStats stats_;
};

// The bytes of a reply: status line, headers, Content-Length, Connection: close when
// `close_after`, body.
std::string SerializeResponse(const Response& response, bool close_after);

}  // namespace jigsaw::http

#endif  // JIGSAW_CORE_HTTP_SERVER_IMPL_H_
