// The training rendezvous (runtime/rendezvous_store.h): rank 0 hosts the keys on the master
// address only; another rank proves the job's token first; a stranger, a slow peer and an
// oversized frame are refused or held without delaying the ranks. No assertion on time.
#include "runtime/rendezvous_store.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <future>
#include <string>
#include <thread>
#include <vector>

#include "core/handshake_client.h"
#include "core/wire_message.h"
#include "runtime/rendezvous_keys.h"

namespace jigsaw {
namespace {

const wire::Token kToken = wire::ParseToken("0123456789abcdef0123456789abcdef");

RendezvousOptions Rank(int rank, int port, int world = 2) {
  RendezvousOptions options;
  options.host = "127.0.0.1";
  options.port = port;
  options.rank = rank;
  options.world = world;
  options.token = kToken;
  options.timeout = std::chrono::milliseconds(60'000);
  options.handshake_timeout_s = 3600;  // slow peers stay pending for the whole test
  options.log = [](const std::string&) {};
  return options;
}

std::vector<uint8_t> Bytes(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

// Sends a hello with `token` and returns the reply's type, or -1 when closed without one.
int HelloReply(int port, const wire::Token& token, uint32_t rank, uint64_t world,
               wire::Socket* kept = nullptr) {
  wire::Socket socket = wire::ConnectTcp("127.0.0.1", port, 10);
  const std::string hello =
      wire::EncodeMessage(wire::Message{wire::MessageType::kHello, rank, world, {}}, token);
  send(socket.fd(), hello.data(), hello.size(), MSG_NOSIGNAL);
  uint8_t reply[wire::kHeaderBytes];
  wire::SetReceiveTimeout(socket.fd(), 60);
  const ssize_t n = recv(socket.fd(), reply, sizeof(reply), MSG_WAITALL);
  const int type = n == static_cast<ssize_t>(sizeof(reply))
                       ? static_cast<int>(wire::DecodeHeader(reply).type)
                       : -1;
  if (kept != nullptr) *kept = std::move(socket);
  return type;
}

TEST(RendezvousStore, RanksShareKeysThroughTheMaster) {
  RendezvousStore master(Rank(0, 0));
  RendezvousStore peer(Rank(1, master.port()));
  auto waited = std::async(std::launch::async, [&] { return peer.get("address/0"); });
  master.set("address/0", Bytes("10.0.0.1:7"));
  EXPECT_EQ(waited.get(), Bytes("10.0.0.1:7"));
  EXPECT_EQ(peer.add("count", 2), 2);
  EXPECT_EQ(master.add("count", 3), 5);
  EXPECT_TRUE(peer.check({"count", "address/0"}));
  EXPECT_FALSE(peer.check({"missing"}));
  EXPECT_EQ(peer.compareSet("cas", {}, Bytes("a")), Bytes("a"));
  EXPECT_EQ(master.compareSet("cas", Bytes("b"), Bytes("c")), Bytes("a"));
  EXPECT_EQ(peer.getNumKeys(), 3);
  EXPECT_TRUE(peer.deleteKey("cas"));
  EXPECT_FALSE(master.deleteKey("cas"));
  peer.wait({"count"});
  EXPECT_THROW(peer.wait({"never"}, std::chrono::milliseconds(50)), std::runtime_error);
}

TEST(RendezvousStore, StrangersAreRefusedBeforeAnyKeyIsRead) {
  RendezvousStore master(Rank(0, 0, 3));
  const int port = master.port();
  const int error = static_cast<int>(wire::MessageType::kError);
  EXPECT_EQ(HelloReply(port, wire::RandomToken(), 1, 3), error);  // no token
  EXPECT_EQ(HelloReply(port, kToken, 1, 4), error);               // another world size
  EXPECT_EQ(HelloReply(port, kToken, 0, 3), error);               // rank 0 is the master
  EXPECT_EQ(HelloReply(port, kToken, 3, 3), error);               // out of range
  // A stranger's set never reaches the keys: its frame follows a refused hello.
  {
    wire::Socket socket = wire::ConnectTcp("127.0.0.1", port, 10);
    std::string bytes = wire::EncodeMessage(wire::Message{wire::MessageType::kHello, 1, 3, {}},
                                            wire::RandomToken());
    bytes += std::string("\x01\0\0\0\x02\0\0\0\x01\0\0\0k\x01\0\0\0v", 18);
    send(socket.fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
  }
  EXPECT_FALSE(master.check({"k"}));
  // Rank 1 joins and rank 1 again is refused (taken).
  RendezvousStore one(Rank(1, port, 3));
  EXPECT_EQ(HelloReply(port, kToken, 1, 3), error);
  RendezvousStore two(Rank(2, port, 3));
  two.set("k", Bytes("v"));
  EXPECT_EQ(one.get("k"), Bytes("v"));
}

TEST(RendezvousStore, ASlowHandshakePeerDoesNotDelayARank) {
  RendezvousStore master(Rank(0, 0));
  wire::Socket slow = wire::ConnectTcp("127.0.0.1", master.port(), 10);
  const std::string hello =
      wire::EncodeMessage(wire::Message{wire::MessageType::kHello, 1, 2, {}}, kToken);
  send(slow.fd(), hello.data(), 12, MSG_NOSIGNAL);  // a quarter of a hello, then nothing
  RendezvousStore peer(Rank(1, master.port()));
  peer.set("ready", Bytes("1"));
  EXPECT_EQ(master.get("ready"), Bytes("1"));
  char byte;
  wire::SetReceiveTimeout(slow.fd(), 60);
  EXPECT_EQ(recv(slow.fd(), &byte, 1, 0), 0);  // closed once every rank connected
}

TEST(RendezvousStore, LengthsAreBoundedBeforeAllocation) {
  RendezvousStore master(Rank(0, 0));
  wire::Socket rank =
      wire::HelloWithRetry("127.0.0.1", master.port(), 60,
                           wire::Message{wire::MessageType::kHello, 1, 2, {}}, kToken, "joining");
  // A set whose value claims 512 MiB: refused from its length field, the connection closed.
  const std::string frame = std::string("\x01\0\0\0\x02\0\0\0\x01\0\0\0k\0\0\0\x20", 17);
  send(rank.fd(), frame.data(), frame.size(), MSG_NOSIGNAL);
  char byte;
  wire::SetReceiveTimeout(rank.fd(), 60);
  EXPECT_LE(recv(rank.fd(), &byte, 1, 0), 0);
  EXPECT_FALSE(master.check({"k"}));
  EXPECT_GT(uint64_t{512} << 20, kMaxRendezvousFrameBytes);
}

TEST(RendezvousStore, ListensOnTheMasterAddressOnly) {
  RendezvousOptions options = Rank(0, 0);
  options.host = "127.0.0.2";
  RendezvousStore master(options);
  wire::Socket other(socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(master.port()));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // 127.0.0.1: not the master address
  EXPECT_NE(connect(other.fd(), reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  RendezvousOptions peer = Rank(1, master.port());
  peer.host = "127.0.0.2";
  RendezvousStore joined(peer);
  joined.set("x", Bytes("y"));
  EXPECT_EQ(master.get("x"), Bytes("y"));
}

}  // namespace
}  // namespace jigsaw
