// The shared handshake acceptor and its client (core/handshake_acceptor.h,
// core/handshake_client.h): one deadline for a connection's whole handshake (a peer trickling its
// hello byte by byte is cut all the same), the oldest pending handshake evicted with a busy reply
// when the table is full, a legitimate peer served while slow ones are pending, and clients that
// retry and then say "server busy" or "closed by server". No assertion on time: bounds only stop a
// broken build from hanging.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "core/handshake_acceptor.h"
#include "core/handshake_client.h"
#include "core/socket.h"
#include "core/wire_message.h"

namespace jigsaw::wire {
namespace {

using namespace std::chrono_literals;
const Token kToken = ParseToken("00112233445566778899aabbccddeeff");

std::string Hello(uint32_t rank) {
  return EncodeMessage(Message{MessageType::kHello, rank, 2, {}}, kToken);
}

// True once the peer closed `socket` (EOF or reset); reads and drops anything before that.
bool ClosedByServer(const Socket& socket) {
  char buffer[256];
  SetReceiveTimeout(socket.fd(), 60);
  while (true) {
    const ssize_t n = recv(socket.fd(), buffer, sizeof(buffer), 0);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
    if (n < 0) return false;
  }
}

TEST(HandshakeAcceptor, TricklingPeerIsCutAtTheDeadlineOfTheWholeHandshake) {
  HandshakeOptions options;
  options.timeout_s = 0.3;
  std::vector<std::string> refused;
  HandshakeAcceptor acceptor(
      ListenTcp("127.0.0.1", 0, 16), options,
      [&](const std::string&, const std::string& why) { refused.push_back(why); });
  const int port = LocalPort(Socket(dup(acceptor.listener_fd())));
  // One byte every 20 ms: each read is quick, the whole hello would take about a second.
  std::atomic<bool> cut{false};
  std::thread trickler([&] {
    Socket socket = ConnectTcp("127.0.0.1", port, 10);
    const std::string hello = Hello(0);
    for (char c : hello) {
      if (send(socket.fd(), &c, 1, MSG_NOSIGNAL) != 1) break;
      std::this_thread::sleep_for(20ms);
    }
    cut = ClosedByServer(socket);
  });
  std::vector<Handshake> complete;
  for (int i = 0; i < 600 && refused.empty(); ++i) {
    for (Handshake& h : acceptor.Poll(50ms)) complete.push_back(std::move(h));
  }
  trickler.join();
  EXPECT_TRUE(complete.empty());
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_NE(refused[0].find("handshake deadline"), std::string::npos) << refused[0];
  EXPECT_TRUE(cut);
}

TEST(HandshakeAcceptor, ALegitimatePeerIsServedWhileSlowOnesArePending) {
  HandshakeOptions options;
  options.timeout_s = 3600;  // the slow ones stay pending for the whole test
  HandshakeAcceptor acceptor(ListenTcp("127.0.0.1", 0, 16), options, nullptr);
  const int port = LocalPort(Socket(dup(acceptor.listener_fd())));
  std::vector<Socket> slow;
  for (int i = 0; i < 5; ++i) {
    slow.push_back(ConnectTcp("127.0.0.1", port, 10));
    send(slow.back().fd(), Hello(1).data(), 10, MSG_NOSIGNAL);  // a third of a header, then silence
  }
  Socket legitimate = ConnectTcp("127.0.0.1", port, 10);
  send(legitimate.fd(), Hello(0).data(), kHeaderBytes, MSG_NOSIGNAL);
  std::vector<Handshake> complete;
  for (int i = 0; i < 600 && complete.empty(); ++i) complete = acceptor.Poll(50ms);
  ASSERT_EQ(complete.size(), 1u);
  EXPECT_EQ(DecodeHeader(complete[0].header.data()).rank, 0u);
  EXPECT_EQ(acceptor.pending(), 5u);  // the slow ones, still waiting for their deadline
  EXPECT_EQ(acceptor.refused(), 0u);
}

TEST(HandshakeAcceptor, AFullTableEvictsTheOldestWithABusyReply) {
  HandshakeOptions options;
  options.max_pending = 2;
  options.busy_reply = EncodeMessage(Message{MessageType::kBusy, 0, 0, {}}, Token{});
  HandshakeAcceptor acceptor(ListenTcp("127.0.0.1", 0, 16), options, nullptr);
  const int port = LocalPort(Socket(dup(acceptor.listener_fd())));
  std::vector<Socket> idle;
  for (int i = 0; i < 3; ++i) {
    idle.push_back(ConnectTcp("127.0.0.1", port, 10));
    for (int p = 0; p < 200 && acceptor.pending() < std::min<size_t>(i + 1, 2); ++p) {
      acceptor.Poll(10ms);
    }
    if (i == 2) {
      for (int p = 0; p < 200 && acceptor.evicted() == 0; ++p) acceptor.Poll(10ms);
    }
  }
  EXPECT_EQ(acceptor.evicted(), 1u);
  EXPECT_EQ(acceptor.pending(), 2u);
  uint8_t header[kHeaderBytes];
  SetReceiveTimeout(idle[0].fd(), 60);
  ASSERT_EQ(recv(idle[0].fd(), header, kHeaderBytes, MSG_WAITALL),
            static_cast<ssize_t>(kHeaderBytes));
  EXPECT_EQ(DecodeHeader(header).type, MessageType::kBusy);
  EXPECT_TRUE(ClosedByServer(idle[0]));
}

// A server that answers every hello with `reply` (or closes at once when it is empty).
std::string JoinFakeServer(const std::string& reply) {
  Socket listener = ListenTcp("127.0.0.1", 0, 16);
  const int port = LocalPort(listener);
  std::atomic<bool> stop{false};
  std::thread server([&] {
    SetNonBlocking(listener.fd(), true);
    while (!stop) {
      for (Socket& s : AcceptWaiting(listener)) {
        SetNonBlocking(s.fd(), false);
        if (!reply.empty()) send(s.fd(), reply.data(), reply.size(), MSG_NOSIGNAL);
      }
      std::this_thread::sleep_for(5ms);
    }
  });
  std::string error;
  try {
    HelloWithRetry("127.0.0.1", port, 0.5, Message{MessageType::kHello, 0, 2, {}}, kToken,
                   "joining the test server");
  } catch (const std::exception& e) {
    error = e.what();
  }
  stop = true;
  server.join();
  return error;
}

TEST(HandshakeClient, RetriesThenSaysServerBusyOrClosedByServer) {
  const std::string busy =
      JoinFakeServer(EncodeMessage(Message{MessageType::kBusy, 0, 0, {}}, Token{}));
  EXPECT_NE(busy.find("joining the test server: server busy ("), std::string::npos) << busy;
  EXPECT_EQ(busy.find("1 attempts"), std::string::npos) << busy;  // it retried
  const std::string closed = JoinFakeServer("");
  EXPECT_NE(closed.find("closed by server"), std::string::npos) << closed;
  EXPECT_EQ(closed.find("Broken pipe"), std::string::npos) << closed;
  const std::string refused =
      JoinFakeServer(EncodeMessage(Message{MessageType::kError, 0, 0, {}}, Token{}));
  EXPECT_NE(refused.find("refused by the server"), std::string::npos) << refused;
}

}  // namespace
}  // namespace jigsaw::wire
