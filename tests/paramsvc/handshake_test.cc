// The Parameter Service's coordinator behind the shared handshake acceptor: slow and token-less
// peers never delay a legitimate registration or lookup, and a token-less frame is refused from
// its 48-byte header before any of its JSON is read. No assertion on time.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/handshake_client.h"
#include "paramsvc/control.h"
#include "paramsvc/service_harness.h"

namespace jigsaw::paramsvc {
namespace {

CoordinatorOptions SlowPeerOptions() {
  CoordinatorOptions options;
  options.initial_aggregators = 1;
  options.min_aggregators = 1;
  options.max_aggregators = 1;
  options.elastic = false;
  options.report_interval_s = 0.05;
  options.handshake_timeout_s = 3600;  // slow peers stay pending for the whole test
  options.max_pending = 16;
  return options;
}

// A control header announcing `json_bytes` of JSON under `token`.
std::string Header(uint64_t json_bytes, const wire::Token& token) {
  std::string header(kControlHeaderBytes, '\0');
  std::memcpy(header.data(), "JPSC", 4);
  header[4] = 1;
  std::memcpy(header.data() + 8, &json_bytes, 8);
  std::memcpy(header.data() + 32, token.data(), token.size());
  return header;
}

TEST(ParamServiceHandshake, SlowPeersDoNotDelayRegistrationsOrLookups) {
  Service service(SlowPeerOptions());
  const int port = std::stoi(service.address().substr(10));
  // More slow peers than the table holds: each sends a third of a header, then nothing.
  std::vector<wire::Socket> slow;
  for (int i = 0; i < 40; ++i) {
    slow.push_back(wire::ConnectTcp("127.0.0.1", port, 10));
    send(slow.back().fd(), Header(100, wire::RandomToken()).data(), 16, MSG_NOSIGNAL);
  }
  // Registrations and lookups go through while the slow peers hold (and churn) the table.
  const wire::Token job = service.Register("j", 500, 1, 0.1f, 0.0f);
  ControlFrame lookup = MakeFrame("lookup");
  wire::Socket connection;
  const ControlFrame map =
      RequestWithRetry("127.0.0.1", port, 60, lookup, job, "looking up the job", &connection);
  EXPECT_EQ(map.op(), "map");
  EXPECT_EQ(map.body["job"], "j");
  const Json status = service.Status();
  EXPECT_GE(status["refused_requests"].get<int>(), 24);  // evicted to make room
  service.Stop();
}

TEST(ParamServiceHandshake, ATokenlessFrameIsRefusedBeforeItsJsonIsRead) {
  Service service(SlowPeerOptions());
  const int port = std::stoi(service.address().substr(10));
  // 1 MiB of JSON announced without a known token: the coordinator answers from the header and
  // closes, so most of the megabyte is never taken (the send fails or is reset).
  wire::Socket peer = wire::ConnectTcp("127.0.0.1", port, 10);
  const std::string header = Header(kMaxControlJsonBytes, wire::RandomToken());
  ASSERT_EQ(send(peer.fd(), header.data(), header.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(header.size()));
  uint8_t reply[kControlHeaderBytes];
  wire::SetReceiveTimeout(peer.fd(), 60);
  ASSERT_EQ(recv(peer.fd(), reply, sizeof(reply), MSG_WAITALL),
            static_cast<ssize_t>(sizeof(reply)));
  const ControlFrame refusal = ReceiveControlBody(peer.fd(), DecodeControlHeader(reply, 0));
  EXPECT_EQ(refusal.op(), "error");
  EXPECT_NE(refusal.body["reason"].get<std::string>().find("no job has this token"),
            std::string::npos);
  char byte;
  EXPECT_LE(recv(peer.fd(), &byte, 1, 0), 0);  // then closed
  EXPECT_GE(service.Status()["refused_requests"].get<int>(), 1);
  service.Stop();
}

}  // namespace
}  // namespace jigsaw::paramsvc
