// The parameter-server wire format: length-prefixed messages of float tensors over TCP.
//
// A frame is a 32-byte header followed by `count` little-endian IEEE-754 floats:
//   bytes  0..3   magic "JPS1"
//   bytes  4..7   type (MessageType), uint32
//   bytes  8..11  rank (the worker the message is from or for), uint32
//   bytes 12..15  reserved, zero
//   bytes 16..23  step, uint64 (iteration or parameter version; see MessageType)
//   bytes 24..31  count, uint64 (number of floats that follow; at most kMaxFloats)
// All integers are little-endian. DecodeHeader rejects a bad magic, an unknown type or a count
// over kMaxFloats with ProtocolError, so a stray connection cannot make a peer allocate
// gigabytes. SendMessage/ReceiveMessage move whole frames over a blocking socket; they throw
// ConnectionClosed when the peer closed the connection before a frame began and ProtocolError or
// std::runtime_error (with errno text) otherwise. Torch-free.
#ifndef JIGSAW_PS_MESSAGE_H_
#define JIGSAW_PS_MESSAGE_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace jigsaw::ps {

enum class MessageType : uint32_t {
  kHello = 1,   // worker -> server: rank, step = number of workers it expects; no floats
  kInit = 2,    // worker 0 -> server: the initial parameters (version 0)
  kPush = 3,    // worker -> server: step = iteration, floats = that iteration's gradient
  kPull = 4,    // worker -> server: step = wanted version; the server answers once it exists
  kParams = 5,  // server -> worker: step = version, floats = parameters
  kBye = 6,     // worker -> server: done
  kError = 7,   // server -> worker: the job failed; no floats
};

struct Message {
  MessageType type = MessageType::kHello;
  uint32_t rank = 0;
  uint64_t step = 0;
  std::vector<float> data;
};

inline constexpr size_t kHeaderBytes = 32;
inline constexpr uint64_t kMaxFloats = uint64_t{1} << 28;  // 1 GiB of floats

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
};

// The whole frame (header + payload) as bytes.
std::string EncodeMessage(const Message& message);
// Parses kHeaderBytes bytes.
Header DecodeHeader(const uint8_t* bytes);
// Parses one complete frame (for tests and buffers); throws ProtocolError if `frame` is not
// exactly one frame.
Message DecodeMessage(const std::string& frame);

const char* MessageTypeName(MessageType type);

void SendMessage(int fd, const Message& message);
Message ReceiveMessage(int fd);

}  // namespace jigsaw::ps

#endif  // JIGSAW_PS_MESSAGE_H_
