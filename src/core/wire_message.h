// The framed TCP wire format of the parameter server, the Parameter Service, `fl --serve` and the
// training rendezvous: length-prefixed messages of float tensors.
//
// A frame is a 48-byte header followed by `count` little-endian IEEE-754 floats:
//   bytes  0..3   magic "JPS2"
//   bytes  4..7   type (MessageType), uint32
//   bytes  8..11  rank (the worker the message is from or for), uint32
//   bytes 12..15  reserved, zero
//   bytes 16..23  step, uint64 (iteration or parameter version; see MessageType)
//   bytes 24..31  count, uint64 (number of floats that follow; at most kMaxFloats)
//   bytes 32..47  the job's secret token (128 bits), on every message in both directions
// All integers are little-endian. DecodeHeader rejects a bad magic, an unknown type or a count
// over kMaxFloats with ProtocolError. ReceiveMessage also rejects a token other than the job's
// (compared in constant time) and a count over the caller's `max_count` before reading the
// payload, and reads the payload in chunks, growing the buffer only as bytes actually arrive:
// a peer's length field never makes it allocate more than the peer sent. SendMessage and
// ReceiveMessage move whole frames over a blocking socket; they throw ConnectionClosed when the
// peer closed the connection before a frame began and ProtocolError or std::runtime_error (with
// errno text) otherwise. Torch-free.
#ifndef JIGSAW_CORE_WIRE_MESSAGE_H_
#define JIGSAW_CORE_WIRE_MESSAGE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace jigsaw::wire {

enum class MessageType : uint32_t {
  kHello = 1,   // worker -> server: rank, step = number of workers it expects; no floats
  kInit = 2,    // worker 0 -> server: the initial parameters (version 0)
  kPush = 3,    // worker -> server: step = iteration, floats = that iteration's gradient
  kPull = 4,    // worker -> server: step = wanted version; the server answers once it exists
  kParams = 5,  // server -> worker: step = version, floats = parameters
  kBye = 6,     // worker -> server: done
  kError = 7,   // server -> worker: the job failed; no floats
  // server -> worker, answering a pull (sent only by the Parameter Service, src/paramsvc): the
  // shard moved to another aggregator at version `step`; a push for that step that arrived here
  // was not applied. The worker asks the service where the shard lives and sends it again there.
  kRedirect = 8,
  // server -> client: the hello was accepted (the handshake is complete); rank = the client's.
  kWelcome = 9,
  // server -> client, with a zero token: the server had too many handshakes in progress and made
  // room by closing this one; the client tries again later (core/handshake_client.h).
  kBusy = 10,
};

struct Message {
  MessageType type = MessageType::kHello;
  uint32_t rank = 0;
  uint64_t step = 0;
  std::vector<float> data;
};

inline constexpr size_t kHeaderBytes = 48;
inline constexpr uint64_t kMaxFloats = uint64_t{1} << 28;  // 1 GiB of floats

// A job's shared secret. Written as 32 hex digits (jigsaw ps --token / --token-file).
using Token = std::array<uint8_t, 16>;
// Throws std::invalid_argument unless `hex` is 32 hex digits (surrounding blanks ignored).
Token ParseToken(const std::string& hex);
std::string FormatToken(const Token& token);
// 128 random bits from the kernel (getrandom).
Token RandomToken();
// Constant-time comparison.
bool SameToken(const Token& a, const Token& b);
// The job's token from the command line: `hex` if given, else the file `path`. With
// `create_missing` (the server), a missing file is created (mode 0600) holding a fresh random
// token. Throws UsageError naming the option when neither is given or the value is malformed.
Token ResolveToken(const std::string& hex, const std::string& path, bool create_missing);

class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ConnectionClosed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Header {
  MessageType type = MessageType::kHello;
  uint32_t rank = 0;
  uint64_t step = 0;
  uint64_t count = 0;
  Token token{};
};

// The whole frame (header + payload) as bytes.
std::string EncodeMessage(const Message& message, const Token& token);
// Parses kHeaderBytes bytes (the token is returned, not checked).
Header DecodeHeader(const uint8_t* bytes);
// Parses one complete frame (for tests and buffers); throws ProtocolError if `frame` is not
// exactly one frame or carries another token.
Message DecodeMessage(const std::string& frame, const Token& token);

const char* MessageTypeName(MessageType type);

void SendMessage(int fd, const Message& message, const Token& token);
// The same frame from a slice of floats that is not in a Message (no copy).
void SendFloats(int fd, MessageType type, uint32_t rank, uint64_t step, const float* data,
                size_t count, const Token& token);
Message ReceiveMessage(int fd, const Token& token, uint64_t max_count = kMaxFloats);

}  // namespace jigsaw::wire

#endif  // JIGSAW_CORE_WIRE_MESSAGE_H_
