#include "ps/message.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <bit>
#include <cerrno>
#include <cstring>

namespace jigsaw::ps {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the wire format is little-endian; add byte swapping for big-endian hosts");
static_assert(sizeof(float) == 4);

constexpr char kMagic[4] = {'J', 'P', 'S', '1'};

template <typename T>
void Put(uint8_t* out, T value) {
  std::memcpy(out, &value, sizeof(T));
}

template <typename T>
T Get(const uint8_t* in) {
  T value;
  std::memcpy(&value, in, sizeof(T));
  return value;
}

void EncodeHeader(const Message& message, uint8_t* out) {
  std::memcpy(out, kMagic, 4);
  Put<uint32_t>(out + 4, static_cast<uint32_t>(message.type));
  Put<uint32_t>(out + 8, message.rank);
  Put<uint32_t>(out + 12, 0);
  Put<uint64_t>(out + 16, message.step);
  Put<uint64_t>(out + 24, message.data.size());
}

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Reads exactly n bytes; returns false on EOF before the first byte when allow_eof.
bool ReadFully(int fd, uint8_t* out, size_t n, bool allow_eof) {
  size_t done = 0;
  while (done < n) {
    ssize_t got = recv(fd, out + done, n - done, 0);
    if (got > 0) {
      done += static_cast<size_t>(got);
    } else if (got == 0) {
      if (done == 0 && allow_eof) return false;
      throw ProtocolError("connection closed in the middle of a message (" + std::to_string(done) +
                          " of " + std::to_string(n) + " bytes)");
    } else if (errno != EINTR) {
      throw std::runtime_error(Errno("recv"));
    }
  }
  return true;
}

}  // namespace

const char* MessageTypeName(MessageType type) {
  switch (type) {
    case MessageType::kHello:
      return "hello";
    case MessageType::kInit:
      return "init";
    case MessageType::kPush:
      return "push";
    case MessageType::kPull:
      return "pull";
    case MessageType::kParams:
      return "params";
    case MessageType::kBye:
      return "bye";
    case MessageType::kError:
      return "error";
  }
  return "unknown";
}

std::string EncodeMessage(const Message& message) {
  std::string frame(kHeaderBytes + message.data.size() * sizeof(float), '\0');
  auto* bytes = reinterpret_cast<uint8_t*>(frame.data());
  EncodeHeader(message, bytes);
  if (!message.data.empty()) {
    std::memcpy(bytes + kHeaderBytes, message.data.data(), message.data.size() * sizeof(float));
  }
  return frame;
}

Header DecodeHeader(const uint8_t* bytes) {
  if (std::memcmp(bytes, kMagic, 4) != 0) {
    throw ProtocolError("bad magic: not a jigsaw parameter-server message");
  }
  Header header;
  const uint32_t type = Get<uint32_t>(bytes + 4);
  if (type < static_cast<uint32_t>(MessageType::kHello) ||
      type > static_cast<uint32_t>(MessageType::kError)) {
    throw ProtocolError("unknown message type " + std::to_string(type));
  }
  header.type = static_cast<MessageType>(type);
  header.rank = Get<uint32_t>(bytes + 8);
  header.step = Get<uint64_t>(bytes + 16);
  header.count = Get<uint64_t>(bytes + 24);
  if (header.count > kMaxFloats) {
    throw ProtocolError("message of " + std::to_string(header.count) +
                        " floats exceeds the limit of " + std::to_string(kMaxFloats));
  }
  return header;
}

Message DecodeMessage(const std::string& frame) {
  if (frame.size() < kHeaderBytes) throw ProtocolError("frame shorter than its header");
  const auto* bytes = reinterpret_cast<const uint8_t*>(frame.data());
  Header header = DecodeHeader(bytes);
  if (frame.size() != kHeaderBytes + header.count * sizeof(float)) {
    throw ProtocolError("frame of " + std::to_string(frame.size()) + " bytes, header says " +
                        std::to_string(kHeaderBytes + header.count * sizeof(float)));
  }
  Message message{header.type, header.rank, header.step, std::vector<float>(header.count)};
  if (header.count > 0) {
    std::memcpy(message.data.data(), bytes + kHeaderBytes, header.count * sizeof(float));
  }
  return message;
}

void SendMessage(int fd, const Message& message) {
  uint8_t header[kHeaderBytes];
  EncodeHeader(message, header);
  iovec parts[2] = {{header, kHeaderBytes},
                    {const_cast<float*>(message.data.data()), message.data.size() * sizeof(float)}};
  int first = 0;
  const int parts_count = message.data.empty() ? 1 : 2;
  while (first < parts_count) {
    msghdr msg{};
    msg.msg_iov = parts + first;
    msg.msg_iovlen = static_cast<size_t>(parts_count - first);
    ssize_t sent = sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(Errno("send"));
    }
    size_t left = static_cast<size_t>(sent);
    while (first < parts_count && left >= parts[first].iov_len) {
      left -= parts[first].iov_len;
      ++first;
    }
    if (first < parts_count) {
      parts[first].iov_base = static_cast<uint8_t*>(parts[first].iov_base) + left;
      parts[first].iov_len -= left;
    }
  }
}

Message ReceiveMessage(int fd) {
  uint8_t bytes[kHeaderBytes];
  if (!ReadFully(fd, bytes, kHeaderBytes, true)) {
    throw ConnectionClosed("peer closed the connection");
  }
  Header header = DecodeHeader(bytes);
  Message message{header.type, header.rank, header.step, std::vector<float>(header.count)};
  if (header.count > 0) {
    ReadFully(fd, reinterpret_cast<uint8_t*>(message.data.data()), header.count * sizeof(float),
              false);
  }
  return message;
}

}  // namespace jigsaw::ps
