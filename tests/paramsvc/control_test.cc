#include "paramsvc/control.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace jigsaw::paramsvc {
namespace {

struct Pair {
  int a = -1, b = -1;
  Pair() {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    a = fds[0];
    b = fds[1];
  }
  ~Pair() {
    close(a);
    close(b);
  }
};

std::string Header(const char* magic, uint32_t version, uint64_t json, uint64_t floats) {
  std::string h(48, '\0');
  std::memcpy(h.data(), magic, 4);
  std::memcpy(h.data() + 4, &version, 4);
  std::memcpy(h.data() + 8, &json, 8);
  std::memcpy(h.data() + 16, &floats, 8);
  return h;
}

TEST(Control, RoundTrip) {
  Pair pair;
  ControlFrame frame = MakeFrame("host");
  frame.body["shard"] = 7;
  frame.floats = {1.5f, -2.0f, 3.25f};
  const wire::Token token = wire::RandomToken();
  SendControl(pair.a, frame, token);
  const ControlFrame got = ReceiveControl(pair.b, 3);
  EXPECT_EQ(got.op(), "host");
  EXPECT_EQ(GetUint(got.body, "shard", 10), 7u);
  EXPECT_EQ(got.floats, frame.floats);
  EXPECT_TRUE(wire::SameToken(got.token, token));
}

TEST(Control, RefusesMalformedFramesBeforeAllocating) {
  const struct {
    std::string bytes;
    const char* why;
  } cases[] = {
      {Header("JPS2", 1, 10, 0) + std::string(10, 'x'), "bad magic"},
      {Header("JPSC", 9, 10, 0), "version"},
      {Header("JPSC", 1, uint64_t{1} << 40, 0), "JSON bytes"},
      {Header("JPSC", 1, 0, 0), "JSON bytes"},
      {Header("JPSC", 1, 2, uint64_t{1} << 60), "floats"},
      {Header("JPSC", 1, 5, 0) + "[1,2]", "op"},
      {Header("JPSC", 1, 8, 0) + "{\"op\":1}", "op"},
      {Header("JPSC", 1, 6, 0) + "{oops}", "op"},
      {Header("JPSC", 1, 100, 0) + "{\"op\":\"x\"}", "closed in the middle"},
  };
  for (const auto& c : cases) {
    Pair pair;
    ASSERT_EQ(write(pair.a, c.bytes.data(), c.bytes.size()), static_cast<ssize_t>(c.bytes.size()));
    shutdown(pair.a, SHUT_WR);
    try {
      ReceiveControl(pair.b, 16);
      ADD_FAILURE() << "accepted a frame that should fail with: " << c.why;
    } catch (const wire::ProtocolError& e) {
      EXPECT_NE(std::string(e.what()).find(c.why), std::string::npos) << e.what();
    }
  }
}

TEST(Control, TypedFieldsAreChecked) {
  Json body = {{"n", 5}, {"x", 0.5}, {"s", "abc"}, {"neg", -1}};
  EXPECT_EQ(GetUint(body, "n", 5), 5u);
  EXPECT_THROW(GetUint(body, "n", 4), wire::ProtocolError);
  EXPECT_THROW(GetUint(body, "neg", 4), wire::ProtocolError);
  EXPECT_THROW(GetUint(body, "missing", 4), wire::ProtocolError);
  EXPECT_DOUBLE_EQ(GetNumber(body, "x", 0, 1), 0.5);
  EXPECT_THROW(GetNumber(body, "x", 0.6, 1), wire::ProtocolError);
  EXPECT_EQ(GetString(body, "s", 3), "abc");
  EXPECT_THROW(GetString(body, "s", 2), wire::ProtocolError);
  EXPECT_THROW(GetString(body, "n", 10), wire::ProtocolError);
}

}  // namespace
}  // namespace jigsaw::paramsvc
