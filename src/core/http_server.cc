#include "core/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "core/http_server_impl.h"
#include "core/limits.h"

namespace jigsaw::http {
namespace {

void RequireField(bool ok, const std::string& field, const std::string& range,
                  const std::string& got) {
  if (!ok) throw UsageError(field + " must be " + range + ", got " + got);
}

void RequireSeconds(const std::string& field, double value) {
  RequireField(std::isfinite(value) && value >= 0.01 && value <= 86400, field, "in [0.01, 86400] s",
               FormatNumber(value));
}

// A listening, non-blocking socket on host:port; throws UsageError naming the address.
int Listen(const std::string& host, int port, int* bound_port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  const std::string where = host + ":" + service;
  if (getaddrinfo(host.c_str(), service.c_str(), &hints, &found) != 0 || found == nullptr) {
    throw UsageError("cannot listen on " + where + ": unknown host");
  }
  int fd = -1;
  int error = 0;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
      error = errno;
      ::close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    throw UsageError("cannot listen on " + where + ": " +
                     (error ? std::strerror(error) : "no usable address"));
  }
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  *bound_port = address.ss_family == AF_INET6
                    ? ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port)
                    : ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
  return fd;
}

}  // namespace

void ServerOptions::Validate() const {
  RequireField(port >= 0 && port <= 65535, "port", "in [0, 65535]", std::to_string(port));
  RequireField(max_body_bytes >= 1 && max_body_bytes <= (size_t{1} << 30), "max_body_bytes",
               "in [1, 1 GiB]", std::to_string(max_body_bytes));
  RequireField(max_request_line_bytes >= 64 && max_request_line_bytes <= (1 << 20),
               "max_request_line_bytes", "in [64, 1 MiB]", std::to_string(max_request_line_bytes));
  RequireField(max_header_bytes >= 256 && max_header_bytes <= (16 << 20), "max_header_bytes",
               "in [256, 16 MiB]", std::to_string(max_header_bytes));
  RequireField(max_headers >= 1 && max_headers <= 10000, "max_headers", "in [1, 10000]",
               std::to_string(max_headers));
  RequireSeconds("request_timeout_s", request_timeout_s);
  RequireSeconds("idle_timeout_s", idle_timeout_s);
  RequireSeconds("write_timeout_s", write_timeout_s);
  RequireField(max_connections >= 1 && max_connections <= 65536, "max_connections", "in [1, 65536]",
               std::to_string(max_connections));
  RequireField(handler_threads >= 1 && handler_threads <= 1024, "handler_threads", "in [1, 1024]",
               std::to_string(handler_threads));
  RequireField(max_queued_requests >= 1 && max_queued_requests <= 65536, "max_queued_requests",
               "in [1, 65536]", std::to_string(max_queued_requests));
  const size_t one_request = max_body_bytes + max_header_bytes + max_request_line_bytes;
  RequireField(max_buffered_bytes >= one_request, "max_buffered_bytes",
               "at least one whole request (max_body_bytes + max_header_bytes + "
               "max_request_line_bytes = " +
                   std::to_string(one_request) + ")",
               std::to_string(max_buffered_bytes));
}

std::string SerializeResponse(const Response& response, bool close_after) {
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " ";
  out += StatusText(response.status);
  out += "\r\n";
  for (const auto& [name, value] : response.headers) {
    if (EqualsIgnoreCase(name, "Content-Length") || EqualsIgnoreCase(name, "Connection")) continue;
    out += name + ": " + value + "\r\n";
  }
  out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  if (close_after) out += "Connection: close\r\n";
  out += "\r\n";
  out += response.body;
  return out;
}

Server::Impl::Impl(ServerOptions options) : options_(std::move(options)) {
  limits_.max_request_line_bytes = options_.max_request_line_bytes;
  limits_.max_header_bytes = options_.max_header_bytes;
  limits_.max_headers = options_.max_headers;
  limits_.max_body_bytes = options_.max_body_bytes;
}

Server::Impl::~Impl() { Stop(); }

int Server::Impl::Start() {
  if (started_) throw UsageError("the HTTP server is already started");
  options_.Validate();
  limits_.max_request_line_bytes = options_.max_request_line_bytes;
  limits_.max_header_bytes = options_.max_header_bytes;
  limits_.max_headers = options_.max_headers;
  limits_.max_body_bytes = options_.max_body_bytes;
  listen_fd_ = Listen(options_.host, options_.port, &port_);
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_fd_ < 0 || wake_fd_ < 0) {
    Stop();
    throw UsageError(std::string("HTTP server: epoll/eventfd failed: ") + std::strerror(errno));
  }
  epoll_event listen_event{};
  listen_event.events = EPOLLIN;
  listen_event.data.u64 = 0;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &listen_event);
  epoll_event wake_event{};
  wake_event.events = EPOLLIN;
  wake_event.data.u64 = 1;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &wake_event);
  started_ = true;
  stopping_ = false;
  workers_stop_ = false;
  for (int i = 0; i < options_.handler_threads; ++i) workers_.emplace_back([this] { Work(); });
  io_thread_ = std::thread([this] { Loop(); });
  return port_;
}

void Server::Impl::Stop() {
  stopping_ = true;
  std::deque<Job> dropped;
  {
    std::lock_guard<std::mutex> lock(jobs_mutex_);
    workers_stop_ = true;  // handlers under way finish; queued requests get a 503
    dropped.swap(jobs_);
  }
  jobs_cv_.notify_all();
  {
    std::lock_guard<std::mutex> lock(done_mutex_);
    for (Job& job : dropped) {
      Response response;
      SetError(response, 503, "the server is shutting down");
      done_.push_back({job.connection, false, SerializeResponse(response, true)});
    }
  }
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof(one));
  }
  if (io_thread_.joinable()) io_thread_.join();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
  for (int* fd : {&listen_fd_, &epoll_fd_, &wake_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
  started_ = false;
}

void Server::Impl::Work() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(jobs_mutex_);
      jobs_cv_.wait(lock, [this] { return workers_stop_ || !jobs_.empty(); });
      if (workers_stop_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    Response response;
    try {
      router_.Dispatch(job.request, response);
    } catch (const std::exception& e) {
      response = Response();
      SetError(response, 500, "internal error: " + BoundedMessage(e.what()));
    } catch (...) {
      response = Response();
      SetError(response, 500, "internal error");
    }
    if (logger_) logger_(job.request, response);
    Completion done;
    done.connection = job.connection;
    done.keep_alive = job.keep_alive && !stopping_;
    done.bytes = SerializeResponse(response, !done.keep_alive);
    {
      std::lock_guard<std::mutex> lock(done_mutex_);
      done_.push_back(std::move(done));
    }
    const uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof(one));
  }
}

ServerStats Server::Impl::stats() const {
  std::lock_guard<std::mutex> lock(stats_mutex_);
  return stats_;
}

void Server::Impl::Count(int64_t ServerStats::*field, int64_t by) {
  std::lock_guard<std::mutex> lock(stats_mutex_);
  stats_.*field += by;
}

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Server::~Server() { impl_->Stop(); }

void Server::Get(const std::string& pattern, Handler handler) {
  impl_->router_.Add("GET", pattern, std::move(handler));
}
void Server::Post(const std::string& pattern, Handler handler) {
  impl_->router_.Add("POST", pattern, std::move(handler));
}
void Server::set_not_found_hint(std::string hint) { impl_->router_.set_hint(std::move(hint)); }
void Server::set_head_check(HeadCheck check) { impl_->head_check_ = std::move(check); }
void Server::set_logger(Logger logger) { impl_->logger_ = std::move(logger); }
int Server::Start() { return impl_->Start(); }
void Server::Stop() { impl_->Stop(); }
int Server::port() const { return impl_->port_; }
ServerStats Server::stats() const { return impl_->stats(); }

}  // namespace jigsaw::http
