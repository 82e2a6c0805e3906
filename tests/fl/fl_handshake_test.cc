// `fl --serve`'s join behind the shared handshake acceptor: a connection that sends part of a
// hello and then nothing (its hello deadline an hour away) does not hold a legitimate client's
// join, and the join ends when the expected clients are in. No assertion on time.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <future>
#include <string>

#include "core/handshake_client.h"
#include "fl/fl_remote.h"

namespace jigsaw {
namespace {

const wire::Token kToken = wire::ParseToken("00112233445566778899aabbccddeeff");

TEST(FlServerHandshake, ASlowPeerDoesNotDelayALegitimateClient) {
  FlServeOptions options;
  options.expected_clients = 1;
  options.join_timeout_s = 600;    // only a broken acceptor would wait this long
  options.hello_timeout_s = 3600;  // the slow peer stays pending
  options.token = kToken;
  FlServer server(options, 4, 10, LocalTrainOptions{});
  std::vector<std::string> log;
  auto joined = std::async(std::launch::async, [&] {
    return server.WaitForClients([&](const std::string& line) { log.push_back(line); });
  });
  wire::Socket slow = wire::ConnectTcp("127.0.0.1", server.port(), 10);
  const std::string hello = wire::EncodeMessage(
      wire::Message{wire::MessageType::kHello, 1, kFlProtocolVersion, {}}, kToken);
  send(slow.fd(), hello.data(), 20, MSG_NOSIGNAL);
  wire::Socket client = wire::HelloWithRetry(
      "127.0.0.1", server.port(), 60,
      wire::Message{wire::MessageType::kHello, 2, kFlProtocolVersion, {}}, kToken, "joining");
  EXPECT_EQ(joined.get(), 1);
  EXPECT_TRUE(server.IsConnected(2));
  char byte;
  wire::SetReceiveTimeout(slow.fd(), 60);
  EXPECT_EQ(recv(slow.fd(), &byte, 1, 0), 0);  // closed when the join ended
}

}  // namespace
}  // namespace jigsaw
