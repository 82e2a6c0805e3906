// http::Server over loopback: routing and keep-alive, and every bound of http_server.h held
// against raw peers: an oversized Content-Length refused before its body, a chunked body over
// the limit refused with bounded memory, header limits, a whole-request deadline that a
// dribbling peer cannot extend, slow peers that do not block a legitimate client, and the
// connection cap evicting idle connections first. Waits are bounded; no assertion is on time.
#include "core/http_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "test_util/raw_http.h"

namespace jigsaw::http {
namespace {

using test_util::RawConnection;
using test_util::RawResponse;

std::string Post(const std::string& path, const std::string& body, const std::string& extra = "") {
  return "POST " + path + " HTTP/1.1\r\nHost: t\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n" + extra + "\r\n" + body;
}

std::string Get(const std::string& path) { return "GET " + path + " HTTP/1.1\r\nHost: t\r\n\r\n"; }

std::string ErrorOf(const RawResponse& response) {
  const nlohmann::json body = nlohmann::json::parse(response.body, nullptr, false);
  return body.is_object() && body.contains("error") ? body["error"].get<std::string>() : "";
}

// Blocks handlers of /gate until Open().
struct Gate {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  int waiting = 0;
  void Wait() {
    std::unique_lock<std::mutex> lock(mutex);
    ++waiting;
    cv.notify_all();
    cv.wait(lock, [this] { return open; });
  }
  void WaitForWaiters(int n) {
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait_for(lock, std::chrono::seconds(30), [&] { return waiting >= n; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mutex);
    open = true;
    cv.notify_all();
  }
};

class HttpServerTest : public ::testing::Test {
 protected:
  void StartServer(ServerOptions options) {
    server_ = std::make_unique<Server>(options);
    server_->Post("/echo", [](const Request& req, Response& res) {
      res.set_content(req.body, "text/plain");
    });
    server_->Get(R"(/items/([^/]+))", [](const Request& req, Response& res) {
      res.set_content("item " + req.matches[1], "text/plain");
    });
    server_->Get("/boom", [](const Request&, Response&) { throw std::runtime_error("kaput"); });
    server_->Get("/gate", [this](const Request&, Response& res) {
      gate_.Wait();
      res.set_content("opened", "text/plain");
    });
    server_->set_head_check([this](const Request& head, Response* refusal) {
      ++heads_;
      if (head.path != "/private" || head.get_header_value("Authorization") == "Bearer ok") {
        return true;
      }
      SetError(*refusal, 401, "missing or wrong bearer token");
      return false;
    });
    server_->Post("/private", [](const Request& req, Response& res) {
      res.set_content(std::to_string(req.body.size()), "text/plain");
    });
    port_ = server_->Start();
  }
  void TearDown() override {
    gate_.Open();
    if (server_) server_->Stop();
  }
  // Waits (bounded) until the server has read `n` heads in all.
  void WaitForHeads(int n) {
    for (int i = 0; i < 3000 && heads_ < n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_GE(heads_, n);
  }

  std::unique_ptr<Server> server_;
  int port_ = 0;
  Gate gate_;
  std::atomic<int> heads_{0};
};

TEST_F(HttpServerTest, RoutesKeepAliveAndPipelining) {
  StartServer(ServerOptions());
  RawConnection c(port_);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c.Send(Post("/echo", "one") + Get("/items/a%20b")));  // two requests at once
  RawResponse first = c.Read();
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(first.body, "one");
  RawResponse second = c.Read();
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(second.body, "item a b");
  ASSERT_TRUE(c.Send(Get("/nowhere")));
  RawResponse missing = c.Read();
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(ErrorOf(missing).find("/nowhere"), std::string::npos);
  ASSERT_TRUE(c.Send(Get("/echo")));
  RawResponse wrong = c.Read();
  EXPECT_EQ(wrong.status, 405);
  EXPECT_NE(wrong.head.find("Allow: POST"), std::string::npos) << wrong.head;
  ASSERT_TRUE(c.Send(Get("/boom")));
  RawResponse boom = c.Read();
  EXPECT_EQ(boom.status, 500);
  EXPECT_NE(ErrorOf(boom).find("kaput"), std::string::npos);
  ASSERT_TRUE(
      c.Send("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"));
  EXPECT_EQ(c.Read().body, "abc");
  ASSERT_TRUE(c.Send("GET /items/x HTTP/1.1\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(c.Read().status, 200);
  EXPECT_TRUE(c.ClosedByServer());
}

TEST_F(HttpServerTest, OversizedContentLengthIsRefusedBeforeItsBody) {
  ServerOptions options;
  options.max_body_bytes = 1000;
  StartServer(options);
  RawConnection c(port_);
  ASSERT_TRUE(c.Send("POST /echo HTTP/1.1\r\nContent-Length: 1001\r\n\r\n"));  // no body sent
  const RawResponse response = c.Read();
  EXPECT_EQ(response.status, 413);
  EXPECT_NE(ErrorOf(response).find("1001"), std::string::npos) << response.body;
  EXPECT_TRUE(c.ClosedByServer());
  RawConnection expect(port_);  // a client that waits for 100 Continue never sends the body
  ASSERT_TRUE(
      expect.Send("POST /echo HTTP/1.1\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n"));
  EXPECT_EQ(expect.Read().status, 413);
  RawConnection within(port_);
  ASSERT_TRUE(
      within.Send("POST /echo HTTP/1.1\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n"));
  const RawResponse go_on = within.Read(30000, false);
  EXPECT_EQ(go_on.status, 100);
  ASSERT_TRUE(within.Send("abc"));
  EXPECT_EQ(within.Read().body, "abc");
  EXPECT_EQ(server_->stats().too_large, 2);
}

// A 64 MiB chunked body against a 1 MiB limit: refused with 413 once the chunks cross the limit,
// and the server never holds more than the limit of it.
TEST_F(HttpServerTest, ChunkedBodyOverTheLimitGets413WithBoundedMemory) {
  ServerOptions options;
  options.max_body_bytes = 1 << 20;
  StartServer(options);
  RawConnection c(port_);
  ASSERT_TRUE(c.Send("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"));
  const std::string chunk = "10000\r\n" + std::string(1 << 16, 'x') + "\r\n";
  size_t sent = 0;
  while (sent < (size_t{64} << 20) && !c.Readable(0) && c.Send(chunk)) sent += 1 << 16;
  const RawResponse response = c.Read();
  EXPECT_EQ(response.status, 413);
  EXPECT_NE(ErrorOf(response).find("limit"), std::string::npos);
  const ServerStats stats = server_->stats();
  EXPECT_EQ(stats.too_large, 1);
  EXPECT_LE(stats.peak_buffered_bytes, (1 << 20) + (16 << 10));
  EXPECT_EQ(stats.buffered_bytes, 0);
  RawConnection next(port_);  // and the server goes on
  ASSERT_TRUE(next.Send(Post("/echo", "fine")));
  EXPECT_EQ(next.Read().body, "fine");
}

TEST_F(HttpServerTest, HeaderCountAndSizeLimits) {
  ServerOptions options;
  options.max_headers = 8;
  options.max_header_bytes = 1024;
  StartServer(options);
  std::string many = "GET /items/a HTTP/1.1\r\n";
  for (int i = 0; i < 9; ++i) many += "X-" + std::to_string(i) + ": 1\r\n";
  RawConnection a(port_);
  ASSERT_TRUE(a.Send(many + "\r\n"));
  EXPECT_EQ(a.Read().status, 431);
  RawConnection b(port_);
  b.Send("GET /items/a HTTP/1.1\r\nX-Big: " + std::string(4096, 'y'));  // no end of line
  const RawResponse big = b.Read();
  EXPECT_EQ(big.status, 431);
  EXPECT_FALSE(ErrorOf(big).empty());
  RawConnection c(port_);
  c.Send("GET /" + std::string(9000, 'a') + " HTTP/1.1\r\n\r\n");
  EXPECT_EQ(c.Read().status, 414);
  EXPECT_EQ(server_->stats().header_too_large, 3);
  EXPECT_LE(server_->stats().peak_buffered_bytes, 9000);
}

// A peer that sends one byte at a time, each well within any per-read timeout, is still cut
// when the whole request has not arrived by the deadline.
TEST_F(HttpServerTest, TheRequestDeadlineCoversTheWholeRequest) {
  ServerOptions options;
  options.request_timeout_s = 0.5;
  options.idle_timeout_s = 30;
  StartServer(options);
  RawConnection c(port_);
  const std::string head = "GET /items/a HTTP/1.1\r\nX-Slow: " + std::string(4000, 'z');
  RawResponse response;
  for (size_t i = 0; i < head.size() && response.status == 0; ++i) {
    if (!c.Send(head.substr(i, 1))) break;
    if (c.Readable(50)) response = c.Read();
  }
  if (response.status == 0) response = c.Read();
  EXPECT_EQ(response.status, 408);
  EXPECT_EQ(server_->stats().timed_out, 1);
}

// One handler thread; 40 slow and silent peers hold connections; a legitimate client is still
// served (a thread-per-connection server with 1 thread would wait for them).
TEST_F(HttpServerTest, SlowAndIdlePeersDoNotBlockALegitimateClient) {
  ServerOptions options;
  options.handler_threads = 1;
  options.max_connections = 64;
  StartServer(options);
  std::vector<std::unique_ptr<RawConnection>> peers;
  for (int i = 0; i < 40; ++i) {
    peers.push_back(std::make_unique<RawConnection>(port_));
    if (i % 2 == 0) peers.back()->Send("POST /echo HTTP/1.1\r\nContent-Length: 100\r\n\r\nab");
  }
  RawConnection legit(port_);
  ASSERT_TRUE(legit.Send(Post("/echo", "served")));
  const RawResponse response = legit.Read();
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "served");
}

// At the cap, a newcomer evicts the idle connection before an older one that is mid-request;
// with no idle connection left, the oldest mid-request one; with every slot handling a request,
// the newcomer gets 503.
TEST_F(HttpServerTest, TheConnectionCapEvictsIdleConnectionsFirst) {
  ServerOptions options;
  options.max_connections = 2;
  options.idle_timeout_s = 60;
  options.request_timeout_s = 60;
  StartServer(options);
  RawConnection reading(port_);
  ASSERT_TRUE(reading.Send("POST /echo HTTP/1.1\r\nContent-Length: 6\r\n\r\nabc"));
  WaitForHeads(1);  // its head is read: it is mid-request
  RawConnection idle(port_);
  RawConnection newcomer(port_);  // the cap: the idle one goes, though it is younger
  EXPECT_TRUE(idle.ClosedByServer());
  ASSERT_TRUE(reading.Send("def"));
  EXPECT_EQ(reading.Read().body, "abcdef");  // the older one, mid-request, was kept
  ASSERT_TRUE(newcomer.Send("POST /echo HTTP/1.1\r\nContent-Length: 4\r\n\r\nxy"));
  WaitForHeads(2);
  ASSERT_TRUE(reading.Send("POST /echo HTTP/1.1\r\nContent-Length: 4\r\n\r\nuv"));
  WaitForHeads(3);
  RawConnection third(port_);  // no idle one: the older mid-request connection goes
  EXPECT_TRUE(newcomer.ClosedByServer());
  ASSERT_TRUE(reading.Send("wz"));
  EXPECT_EQ(reading.Read().body, "uvwz");
  EXPECT_EQ(server_->stats().evicted_idle, 1);
  EXPECT_EQ(server_->stats().evicted_reading, 1);

  ASSERT_TRUE(reading.Send(Get("/gate")));
  ASSERT_TRUE(third.Send(Get("/gate")));
  gate_.WaitForWaiters(1);  // one handler thread per request: both may wait; one is enough
  for (int i = 0; i < 3000 && server_->stats().requests < 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  RawConnection refused(port_);
  const RawResponse busy = refused.Read();
  EXPECT_EQ(busy.status, 503);
  EXPECT_NE(ErrorOf(busy).find("busy"), std::string::npos);
  gate_.Open();
  EXPECT_EQ(reading.Read().body, "opened");
  EXPECT_EQ(third.Read().body, "opened");
}

TEST_F(HttpServerTest, TheHeadCheckRefusesBeforeTheBodyIsRead) {
  StartServer(ServerOptions());
  RawConnection c(port_);
  ASSERT_TRUE(c.Send("POST /private HTTP/1.1\r\nContent-Length: 500000\r\n\r\n"));
  const RawResponse refused = c.Read();
  EXPECT_EQ(refused.status, 401);
  EXPECT_NE(ErrorOf(refused).find("token"), std::string::npos);
  EXPECT_EQ(server_->stats().refused_by_check, 1);
  RawConnection ok(port_);
  ASSERT_TRUE(ok.Send(Post("/private", "12345", "Authorization: Bearer ok\r\n")));
  EXPECT_EQ(ok.Read().body, "5");
}

TEST_F(HttpServerTest, AByteBudgetEvictsTheOldestPartialRequest) {
  ServerOptions options;
  options.max_body_bytes = 100000;
  options.max_buffered_bytes = 250000;
  StartServer(options);
  RawConnection first(port_);
  ASSERT_TRUE(first.Send("POST /echo HTTP/1.1\r\nContent-Length: 100000\r\n\r\n" +
                         std::string(90000, 'a')));
  WaitForHeads(1);
  RawConnection second(port_);
  ASSERT_TRUE(second.Send("POST /echo HTTP/1.1\r\nContent-Length: 100000\r\n\r\n" +
                          std::string(90000, 'b')));
  WaitForHeads(2);
  for (int i = 0; i < 3000 && server_->stats().buffered_bytes < 180000; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  RawConnection third(port_);
  ASSERT_TRUE(third.Send(Post("/echo", std::string(100000, 'c'))));
  const RawResponse response = third.Read();
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body.size(), 100000u);
  EXPECT_TRUE(first.ClosedByServer());
  EXPECT_LE(server_->stats().peak_buffered_bytes, 250000);
}

TEST(HttpServerOptions, ValidateNamesTheField) {
  ServerOptions options;
  options.max_connections = 0;
  try {
    options.Validate();
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("max_connections"), std::string::npos);
  }
  ServerOptions budget;
  budget.max_buffered_bytes = 10;
  EXPECT_THROW(budget.Validate(), UsageError);
  ServerOptions timeout;
  timeout.request_timeout_s = 0;
  EXPECT_THROW(timeout.Validate(), UsageError);
  ServerOptions address;
  address.host = "203.0.113.254";  // TEST-NET-3: never a local address
  Server server(address);
  EXPECT_THROW(server.Start(), UsageError);
}

}  // namespace
}  // namespace jigsaw::http
