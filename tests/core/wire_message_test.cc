// The parameter-server wire format: framing round trips, rejection of bad frames, and whole
// messages over a real socket pair (including one larger than the socket buffers).
#include "core/wire_message.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "core/socket.h"

namespace jigsaw::wire {
namespace {

const Token kToken = ParseToken("00112233445566778899aabbccddeeff");

TEST(WireMessage, EncodeDecodeRoundTrip) {
  Message message{MessageType::kPush, 3, 1234567890123ULL, {1.5f, -2.25f, 0.0f, 1e-7f}};
  const std::string frame = EncodeMessage(message, kToken);
  ASSERT_EQ(frame.size(), kHeaderBytes + 4 * sizeof(float));
  EXPECT_EQ(frame.substr(0, 4), "JPS2");
  Message decoded = DecodeMessage(frame, kToken);
  EXPECT_EQ(decoded.type, MessageType::kPush);
  EXPECT_EQ(decoded.rank, 3u);
  EXPECT_EQ(decoded.step, 1234567890123ULL);
  EXPECT_EQ(decoded.data, message.data);
}

TEST(WireMessage, HeaderLayoutIsLittleEndianLengthPrefixed) {
  const std::string frame =
      EncodeMessage(Message{MessageType::kParams, 2, 7, {1.0f, 2.0f}}, kToken);
  const auto* bytes = reinterpret_cast<const uint8_t*>(frame.data());
  EXPECT_EQ(bytes[4], 5);   // type kParams
  EXPECT_EQ(bytes[8], 2);   // rank
  EXPECT_EQ(bytes[16], 7);  // step
  EXPECT_EQ(bytes[24], 2);  // count of floats
  EXPECT_EQ(bytes[25], 0);
}

TEST(WireMessage, RejectsBadFrames) {
  std::string frame = EncodeMessage(Message{MessageType::kPush, 0, 0, {1.0f}}, kToken);
  std::string bad_magic = frame;
  bad_magic[0] = 'X';
  EXPECT_THROW(DecodeMessage(bad_magic, kToken), ProtocolError);
  std::string bad_type = frame;
  bad_type[4] = 42;
  EXPECT_THROW(DecodeMessage(bad_type, kToken), ProtocolError);
  EXPECT_THROW(DecodeMessage(frame.substr(0, frame.size() - 1), kToken), ProtocolError);
  EXPECT_THROW(DecodeMessage(frame.substr(0, 10), kToken), ProtocolError);
  std::string huge = frame;
  huge[31] = 0x10;  // count = 2^60 floats: refused before any allocation
  try {
    DecodeHeader(reinterpret_cast<const uint8_t*>(huge.data()));
    FAIL() << "no exception";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("exceeds the limit"), std::string::npos);
  }
}

TEST(WireMessage, WholeMessagesOverASocket) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  Socket a(fds[0]);
  Socket b(fds[1]);
  std::vector<float> big(3'000'000);  // 12 MB: many partial sends and receives
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i) * 0.5f;
  std::thread sender([&] {
    SendMessage(a.fd(), Message{MessageType::kParams, 1, 9, big}, kToken);
    SendMessage(a.fd(), Message{MessageType::kBye, 1, 0, {}}, kToken);
  });
  Message first = ReceiveMessage(b.fd(), kToken);
  Message second = ReceiveMessage(b.fd(), kToken);
  sender.join();
  EXPECT_EQ(first.type, MessageType::kParams);
  EXPECT_EQ(first.step, 9u);
  EXPECT_EQ(first.data, big);
  EXPECT_EQ(second.type, MessageType::kBye);
  EXPECT_TRUE(second.data.empty());
  a = Socket();
  EXPECT_THROW(ReceiveMessage(b.fd(), kToken), ConnectionClosed);
}

TEST(WireMessage, TruncatedStreamIsAProtocolError) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  Socket a(fds[0]);
  Socket b(fds[1]);
  const std::string frame = EncodeMessage(Message{MessageType::kPush, 0, 0, {1, 2, 3}}, kToken);
  ASSERT_EQ(write(a.fd(), frame.data(), frame.size() - 2), static_cast<ssize_t>(frame.size() - 2));
  a = Socket();
  EXPECT_THROW(ReceiveMessage(b.fd(), kToken), ProtocolError);
}

// Every frame carries the job's token, and a header's count never allocates more than the bytes
// that actually arrived (a frame announcing 1 GiB must not allocate 1 GiB before it arrives).
TEST(WireMessage, TheTokenIsCheckedAndTheCountNeverAllocatesAhead) {
  const Token other = ParseToken("ffeeddccbbaa99887766554433221100");
  const std::string frame = EncodeMessage(Message{MessageType::kPush, 0, 0, {1.0f}}, kToken);
  EXPECT_THROW(DecodeMessage(frame, other), ProtocolError);
  EXPECT_EQ(frame.substr(32, 16), std::string("\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99"
                                              "\xaa\xbb\xcc\xdd\xee\xff",
                                              16));
  EXPECT_THROW(ParseToken("0011"), std::invalid_argument);
  EXPECT_THROW(ParseToken("zz112233445566778899aabbccddeeff"), std::invalid_argument);
  EXPECT_EQ(FormatToken(ParseToken(" 00112233445566778899AABBCCDDEEFF\n")),
            "00112233445566778899aabbccddeeff");
  EXPECT_FALSE(SameToken(RandomToken(), RandomToken()));

  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  Socket a(fds[0]);
  Socket b(fds[1]);
  std::string lying = EncodeMessage(Message{MessageType::kParams, 0, 0, {}}, kToken);
  lying[24 + 3] = 0x10;  // 2^28 floats announced (1 GiB), 8 bytes sent
  lying += std::string(8, '\0');
  ASSERT_EQ(write(a.fd(), lying.data(), lying.size()), static_cast<ssize_t>(lying.size()));
  a = Socket();
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  EXPECT_THROW(ReceiveMessage(b.fd(), kToken), ProtocolError);
  getrusage(RUSAGE_SELF, &after);
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64 * 1024);  // KiB: far below the 1 GiB announced
  // A caller's limit is enforced before the payload is read.
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  Socket c(fds[0]);
  Socket d(fds[1]);
  const std::string three = EncodeMessage(Message{MessageType::kPush, 0, 0, {1, 2, 3}}, kToken);
  ASSERT_EQ(write(c.fd(), three.data(), three.size()), static_cast<ssize_t>(three.size()));
  EXPECT_THROW(ReceiveMessage(d.fd(), kToken, 2), ProtocolError);
}

TEST(PsSocket, ParseHostPort) {
  std::string host;
  int port = 0;
  ParseHostPort("10.77.0.1:5001", "--server", &host, &port);
  EXPECT_EQ(host, "10.77.0.1");
  EXPECT_EQ(port, 5001);
  EXPECT_ANY_THROW(ParseHostPort("10.77.0.1", "--server", &host, &port));
  EXPECT_ANY_THROW(ParseHostPort("h:70000", "--server", &host, &port));
  EXPECT_ANY_THROW(ParseHostPort("h:12x", "--server", &host, &port));
}

}  // namespace
}  // namespace jigsaw::wire
