// The Parameter Service's control channel: frames of JSON plus optional floats.
//
// Coordinator, aggregators, job registrars and workers' service clients talk in "JPSC" frames;
// the data path between workers and shards stays the parameter server's JPS2 (core/wire_message.h).
// A frame is a 48-byte header, then `json_bytes` of UTF-8 JSON (an object with a string "op"),
// then `float_count` little-endian floats (shard state: parameters and optimizer state):
//   bytes  0..3   magic "JPSC"
//   bytes  4..7   format version, 1
//   bytes  8..15  json_bytes, uint64 (at most kMaxControlJsonBytes)
//   bytes 16..23  float_count, uint64 (at most the receiver's max_floats)
//   bytes 24..31  reserved, zero
//   bytes 32..47  a 128-bit token: the service's (aggregators, registrars) or a job's (workers)
// ReceiveControl checks both sizes before reading the payload, reads it as it arrives (a length
// field never makes it allocate more than was sent), and throws ProtocolError on a bad magic or
// version, an oversized field, malformed JSON or a missing "op"; ConnectionClosed when the peer
// closed before a frame began. The token is returned, not checked: the receiver decides which
// tokens it accepts (SameToken). A server judges a connection's first frame from its header alone
// (DecodeControlHeader: the token, then the fixed fields) before reading any JSON, and reads the
// body (ReceiveControlBody) within the handshake's deadline. Torch-free.
#ifndef JIGSAW_PARAMSVC_CONTROL_H_
#define JIGSAW_PARAMSVC_CONTROL_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/output.h"
#include "core/socket.h"
#include "core/wire_message.h"

namespace jigsaw::paramsvc {

inline constexpr uint64_t kMaxControlJsonBytes = uint64_t{1} << 20;
inline constexpr size_t kControlHeaderBytes = 48;

struct ControlFrame {
  Json body = Json::object();
  std::vector<float> floats;
  wire::Token token{};  // filled in by ReceiveControl

  std::string op() const { return body.value("op", std::string()); }
};

struct ControlHeader {
  uint64_t json_bytes = 0;
  uint64_t float_count = 0;
  wire::Token token{};
};

ControlFrame MakeFrame(const std::string& op);
// The whole frame as bytes (SendControl sends the same).
std::string EncodeControl(const ControlFrame& frame, const wire::Token& token);
void SendControl(int fd, const ControlFrame& frame, const wire::Token& token);
ControlFrame ReceiveControl(int fd, uint64_t max_floats);
// The fixed fields of kControlHeaderBytes bytes: magic, version, the sizes against their limits
// (ProtocolError otherwise). The token is returned, not checked.
ControlHeader DecodeControlHeader(const uint8_t* bytes, uint64_t max_floats);
// The JSON and floats that follow a decoded header, read as they arrive; with a `deadline`
// (not the epoch), a body not complete by then throws ProtocolError.
ControlFrame ReceiveControlBody(int fd, const ControlHeader& header,
                                std::chrono::steady_clock::time_point deadline = {});

// One request and its reply on a fresh connection to host:port, retried with backoff while the
// server answers "server busy" or closes the connection before answering (core/handshake_client.h:
// the error then says which); the connection is left in *socket for later requests. Another
// "error" reply throws std::runtime_error "<what>: refused: <reason>".
ControlFrame RequestWithRetry(const std::string& host, int port, double timeout_s,
                              const ControlFrame& request, const wire::Token& token,
                              const std::string& what, wire::Socket* socket);

// Typed access to a received body; throws ProtocolError naming the field when it is missing or
// of the wrong type or range.
uint64_t GetUint(const Json& body, const char* field, uint64_t max);
double GetNumber(const Json& body, const char* field, double min, double max);
std::string GetString(const Json& body, const char* field, size_t max_bytes);

}  // namespace jigsaw::paramsvc

#endif  // JIGSAW_PARAMSVC_CONTROL_H_
