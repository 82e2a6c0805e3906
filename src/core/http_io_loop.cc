// The I/O thread of http::Server: accepts, reads and parses requests, enforces the bounds and
// deadlines of http_server.h, and writes replies. Never blocks on a peer.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "core/http_server_impl.h"
#include "core/limits.h"

namespace jigsaw::http {
namespace {

constexpr size_t kReadChunk = 64 << 10;
constexpr auto kDrainTime = std::chrono::seconds(1);
constexpr auto kMaxWait = std::chrono::seconds(1);
// How long Stop lets handlers finish and replies go out.
constexpr auto kStopGrace = std::chrono::seconds(2);

Clock::duration Seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

std::string PeerAddress(const sockaddr_storage& address) {
  char text[INET6_ADDRSTRLEN] = "";
  if (address.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(address).sin_addr, text, sizeof(text));
  } else if (address.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(address).sin6_addr, text,
              sizeof(text));
  }
  return text;
}

}  // namespace

void Server::Impl::Loop() {
  epoll_event events[64];
  int timeout_ms = 0;
  bool closing = false;
  Clock::time_point closing_deadline;
  for (;;) {
    if (stopping_ && !closing) {  // stop accepting and reading; finish the replies under way
      closing = true;
      closing_deadline = Clock::now() + kStopGrace;
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
      std::vector<uint64_t> quiet;
      for (auto& [id, c] : connections_) {
        if (c->state != State::kHandling && c->state != State::kWriting) quiet.push_back(id);
      }
      for (uint64_t id : quiet) Close(*connections_.at(id));
    }
    if (closing && (connections_.empty() || Clock::now() >= closing_deadline)) break;
    const int n =
        ::epoll_wait(epoll_fd_, events, 64, closing ? std::min(timeout_ms, 50) : timeout_ms);
    for (int i = 0; i < n; ++i) {
      const uint64_t id = events[i].data.u64;
      if (id == 0) {
        if (!closing) AcceptAll();
        continue;
      }
      if (id == 1) {
        uint64_t count = 0;
        (void)!::read(wake_fd_, &count, sizeof(count));
        continue;
      }
      const auto found = connections_.find(id);
      if (found == connections_.end()) continue;
      Connection& c = *found->second;
      if (c.state == State::kWriting) {
        TryWrite(c);  // a broken connection fails the send
      } else if (c.state == State::kHandling) {
        if (events[i].events & (EPOLLHUP | EPOLLERR)) Close(c);  // the reply is dropped
      } else {
        OnReadable(c);
      }
    }
    ApplyCompletions();
    timeout_ms = Sweep();
  }
  for (auto& [id, c] : connections_) ::close(c->fd);
  connections_.clear();
}

void Server::Impl::Watch(Connection& c, uint32_t events) {
  epoll_event event{};
  event.events = events;
  event.data.u64 = c.id;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c.fd, &event);
}

void Server::Impl::AcceptAll() {
  for (int i = 0; i < 64; ++i) {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    const int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      // Out of descriptors (the cap normally keeps us below the limit): free one, or stop
      // watching the listener until a connection closes, rather than spin on it.
      if ((errno == EMFILE || errno == ENFILE) && !EvictOne()) {
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
        accept_paused_ = true;
      }
      return;
    }
    if (static_cast<int>(connections_.size()) >= options_.max_connections && !EvictOne()) {
      const std::string reply = SerializeResponse(
          [] {
            Response r;
            SetError(r, 503, "server busy: every connection is serving a request; retry later");
            return r;
          }(),
          true);
      (void)!::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      ::close(fd);
      Count(&ServerStats::refused_full);
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    auto c = std::make_unique<Connection>(limits_);
    c->id = next_id_++;
    c->fd = fd;
    c->remote = PeerAddress(address);
    c->since = Clock::now();
    epoll_event event{};
    event.events = EPOLLIN | EPOLLRDHUP;
    event.data.u64 = c->id;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event);
    connections_.emplace(c->id, std::move(c));
    std::lock_guard<std::mutex> lock(stats_mutex_);
    ++stats_.accepted;
    stats_.open = static_cast<int64_t>(connections_.size());
    stats_.peak_open = std::max(stats_.peak_open, stats_.open);
  }
}

// Frees a slot for a newcomer: a connection finishing an error reply, else the one idle the
// longest, else the one whose request started the longest ago. False when every connection has
// a request being handled or answered.
bool Server::Impl::EvictOne() {
  Connection* victim = nullptr;
  int victim_rank = 3;
  for (auto& [id, c] : connections_) {
    const int rank = c->state == State::kDraining  ? 0
                     : c->state == State::kIdle    ? 1
                     : c->state == State::kReading ? 2
                                                   : 3;
    if (rank < victim_rank || (rank == victim_rank && rank < 3 && c->since < victim->since)) {
      victim = c.get();
      victim_rank = rank;
    }
  }
  if (victim == nullptr) return false;
  Count(victim_rank == 2 ? &ServerStats::evicted_reading : &ServerStats::evicted_idle);
  Close(*victim);
  return true;
}

void Server::Impl::OnReadable(Connection& c) {
  char buffer[kReadChunk];
  const ssize_t n = ::recv(c.fd, buffer, sizeof(buffer), 0);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (n <= 0) {  // the peer closed (or the connection broke)
    Close(c);
    return;
  }
  if (c.state == State::kDraining) return;  // discarded
  Consume(c, std::string_view(buffer, static_cast<size_t>(n)));
}

void Server::Impl::Consume(Connection& c, std::string_view data) {
  std::string input;
  if (!c.pending.empty()) {
    input.swap(c.pending);
    input.append(data);
    data = input;
  }
  if (c.state == State::kIdle && !data.empty()) {
    c.state = State::kReading;
    c.since = Clock::now();
  }
  for (;;) {
    RequestParser& parser = c.parser;
    switch (parser.stage()) {
      case RequestParser::Stage::kHead:
      case RequestParser::Stage::kBody: {
        if (data.empty()) return;
        data.remove_prefix(parser.Feed(data));
        if (!UpdateBudget(c)) return;
        break;
      }
      case RequestParser::Stage::kHeadersDone:
        if (!CheckHead(c)) return;
        parser.ContinueBody();
        break;
      case RequestParser::Stage::kComplete:
        c.pending.assign(data);
        Dispatch(c);
        return;
      case RequestParser::Stage::kFailed: {
        const int status = parser.error_status();
        Count(status == 413                    ? &ServerStats::too_large
              : status == 414 || status == 431 ? &ServerStats::header_too_large
                                               : &ServerStats::malformed);
        Refuse(c, status, parser.error());
        return;
      }
    }
  }
}

bool Server::Impl::CheckHead(Connection& c) {
  if (head_check_) {
    Response refusal;
    if (!head_check_(c.parser.request(), &refusal)) {
      Count(&ServerStats::refused_by_check);
      if (logger_) logger_(c.parser.request(), refusal);
      StartWrite(c, SerializeResponse(refusal, true), true);
      return false;
    }
  }
  if (c.parser.expect_continue() && c.parser.expects_body()) {
    static constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
    (void)!::send(c.fd, kContinue, sizeof(kContinue) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
  }
  return true;
}

// Accounts the connection's request bytes; past the budget, evicts the oldest other requests
// still being read, and refuses this one (503) when that is not enough. False when refused.
bool Server::Impl::UpdateBudget(Connection& c) {
  const size_t now = c.parser.buffered_bytes();
  buffered_ = buffered_ - c.counted + now;
  c.counted = now;
  while (buffered_ > options_.max_buffered_bytes) {
    Connection* oldest = nullptr;
    for (auto& [id, other] : connections_) {
      if (other.get() != &c && other->state == State::kReading && other->counted > 0 &&
          (oldest == nullptr || other->since < oldest->since)) {
        oldest = other.get();
      }
    }
    if (oldest == nullptr) break;
    Count(&ServerStats::evicted_reading);
    Close(*oldest);
  }
  {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    stats_.buffered_bytes = static_cast<int64_t>(buffered_);
    stats_.peak_buffered_bytes = std::max(stats_.peak_buffered_bytes, stats_.buffered_bytes);
  }
  if (buffered_ <= options_.max_buffered_bytes) return true;
  Count(&ServerStats::busy);
  c.parser.Reset();
  Release(c);
  Refuse(c, 503, "server busy: too many request bytes in flight; retry later");
  return false;
}

void Server::Impl::Dispatch(Connection& c) {
  c.state = State::kHandling;
  Watch(c, 0);  // nothing more is read until the reply is written (errors still wake us)
  Job job;
  job.connection = c.id;
  job.keep_alive = c.parser.keep_alive();
  {
    std::lock_guard<std::mutex> lock(jobs_mutex_);
    if (static_cast<int>(jobs_.size()) < options_.max_queued_requests) {
      job.request = std::move(c.parser.request());
      job.request.remote_addr = c.remote;
      jobs_.push_back(std::move(job));
      jobs_cv_.notify_one();
      Count(&ServerStats::requests);
      return;
    }
  }
  Count(&ServerStats::busy);
  Response busy;
  SetError(busy, 503, "server busy: the request queue is full; retry later");
  if (logger_) logger_(c.parser.request(), busy);
  StartWrite(c, SerializeResponse(busy, !c.parser.keep_alive()), !c.parser.keep_alive());
}

void Server::Impl::Refuse(Connection& c, int status, const std::string& message) {
  Response response;
  SetError(response, status, message);
  if (logger_) logger_(c.parser.request(), response);
  StartWrite(c, SerializeResponse(response, true), true);
}

void Server::Impl::StartWrite(Connection& c, std::string bytes, bool close_after) {
  c.state = State::kWriting;
  c.since = Clock::now();
  c.out = std::move(bytes);
  c.written = 0;
  c.close_after = close_after;
  if (close_after) {  // nothing more is read: the request's bytes go now
    c.parser.Reset();
    c.pending.clear();
    Release(c);
  }
  TryWrite(c);
}

void Server::Impl::TryWrite(Connection& c) {
  if (c.state != State::kWriting) return;
  while (c.written < c.out.size()) {
    const ssize_t n = ::send(c.fd, c.out.data() + c.written, c.out.size() - c.written,
                             MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      Watch(c, EPOLLOUT);
      return;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Close(c);
      return;
    }
    c.written += static_cast<size_t>(n);
  }
  FinishWrite(c);
}

void Server::Impl::FinishWrite(Connection& c) {
  c.out.clear();
  c.out.shrink_to_fit();
  Release(c);
  if (c.close_after && stopping_) {
    Close(c);
    return;
  }
  if (c.close_after) {
    // Discard what the peer still sends for a moment, so closing with unread input does not
    // reset the connection before the peer has read the reply.
    ::shutdown(c.fd, SHUT_WR);
    c.state = State::kDraining;
    c.since = Clock::now();
    Watch(c, EPOLLIN | EPOLLRDHUP);
    return;
  }
  c.parser.Reset();
  c.state = State::kIdle;
  c.since = Clock::now();
  Watch(c, EPOLLIN | EPOLLRDHUP);
  if (!c.pending.empty()) Consume(c, std::string_view());
}

void Server::Impl::Release(Connection& c) {
  buffered_ -= c.counted;
  c.counted = 0;
  std::lock_guard<std::mutex> lock(stats_mutex_);
  stats_.buffered_bytes = static_cast<int64_t>(buffered_);
}

void Server::Impl::Close(Connection& c) {
  Release(c);
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.fd, nullptr);
  ::close(c.fd);
  connections_.erase(c.id);  // destroys c
  if (accept_paused_ && !stopping_) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = 0;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &event);
    accept_paused_ = false;
  }
  std::lock_guard<std::mutex> lock(stats_mutex_);
  stats_.open = static_cast<int64_t>(connections_.size());
}

void Server::Impl::ApplyCompletions() {
  std::vector<Completion> done;
  {
    std::lock_guard<std::mutex> lock(done_mutex_);
    done.swap(done_);
  }
  for (Completion& completion : done) {
    const auto found = connections_.find(completion.connection);
    if (found == connections_.end()) continue;
    StartWrite(*found->second, std::move(completion.bytes), !completion.keep_alive);
  }
}

// Enforces the deadlines; returns the milliseconds until the next one (at most kMaxWait).
int Server::Impl::Sweep() {
  const Clock::time_point now = Clock::now();
  Clock::time_point next = now + kMaxWait;
  std::vector<uint64_t> idle, late_request, late_write, drained;
  for (auto& [id, c] : connections_) {
    Clock::time_point deadline = Clock::time_point::max();
    switch (c->state) {
      case State::kIdle:
        deadline = c->since + Seconds(options_.idle_timeout_s);
        break;
      case State::kReading:
        deadline = c->since + Seconds(options_.request_timeout_s);
        break;
      case State::kWriting:
        deadline = c->since + Seconds(options_.write_timeout_s);
        break;
      case State::kDraining:
        deadline = c->since + kDrainTime;
        break;
      case State::kHandling:
        break;
    }
    if (deadline <= now) {
      (c->state == State::kIdle      ? idle
       : c->state == State::kReading ? late_request
       : c->state == State::kWriting ? late_write
                                     : drained)
          .push_back(id);
    } else {
      next = std::min(next, deadline);
    }
  }
  // Counted first: a peer may read the 408 before this loop ends.
  Count(&ServerStats::idle_closed, static_cast<int64_t>(idle.size()));
  Count(&ServerStats::write_timeouts, static_cast<int64_t>(late_write.size()));
  Count(&ServerStats::timed_out, static_cast<int64_t>(late_request.size()));
  for (uint64_t id : idle) Close(*connections_.at(id));
  for (uint64_t id : late_write) Close(*connections_.at(id));
  for (uint64_t id : drained) Close(*connections_.at(id));
  for (uint64_t id : late_request) {
    Connection& c = *connections_.at(id);
    Refuse(c, 408,
           "request not complete within " + FormatNumber(options_.request_timeout_s) + " s");
  }
  const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count();
  return static_cast<int>(std::clamp<int64_t>(wait + 1, 1, 1000));
}

}  // namespace jigsaw::http
