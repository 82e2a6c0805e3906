#include "core/wire_message.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/text_input.h"

namespace jigsaw::wire {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the wire format is little-endian; add byte swapping for big-endian hosts");
static_assert(sizeof(float) == 4);

constexpr char kMagic[4] = {'J', 'P', 'S', '2'};
// Payload bytes read (and allocated) at a time.
constexpr size_t kReadChunkBytes = size_t{1} << 20;

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

void EncodeHeader(const Message& message, const Token& token, uint8_t* out) {
  std::memcpy(out, kMagic, 4);
  Put<uint32_t>(out + 4, static_cast<uint32_t>(message.type));
  Put<uint32_t>(out + 8, message.rank);
  Put<uint32_t>(out + 12, 0);
  Put<uint64_t>(out + 16, message.step);
  Put<uint64_t>(out + 24, message.data.size());
  std::memcpy(out + 32, token.data(), token.size());
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

Token ParseToken(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  const size_t end = text.find_last_not_of(" \t\r\n");
  const std::string hex = begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  Token token{};
  bool ok = hex.size() == 2 * token.size();
  for (size_t i = 0; ok && i < token.size(); ++i) {
    const int high = digit(hex[2 * i]), low = digit(hex[2 * i + 1]);
    ok = high >= 0 && low >= 0;
    token[i] = static_cast<uint8_t>(high * 16 + low);
  }
  if (!ok) throw std::invalid_argument("a token is 32 hex digits (128 bits)");
  return token;
}

std::string FormatToken(const Token& token) {
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (uint8_t b : token) {
    hex.push_back(kHex[b >> 4]);
    hex.push_back(kHex[b & 15]);
  }
  return hex;
}

Token RandomToken() {
  Token token{};
  size_t done = 0;
  while (done < token.size()) {
    const ssize_t got = getrandom(token.data() + done, token.size() - done, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(Errno("getrandom"));
    }
    done += static_cast<size_t>(got);
  }
  return token;
}

bool SameToken(const Token& a, const Token& b) {
  uint8_t difference = 0;
  for (size_t i = 0; i < a.size(); ++i) difference |= a[i] ^ b[i];
  return difference == 0;
}

Token ResolveToken(const std::string& hex, const std::string& path, bool create_missing) {
  if (!hex.empty() && !path.empty()) throw UsageError("give --token or --token-file, not both");
  if (!hex.empty()) {
    try {
      return ParseToken(hex);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--token: ") + e.what());
    }
  }
  if (path.empty()) {
    throw UsageError(
        "the job needs its secret token: --token HEX (32 hex digits) or --token-file FILE");
  }
  if (create_missing && access(path.c_str(), F_OK) != 0) {
    const Token token = RandomToken();
    const std::string temp = path + ".tmp";
    const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const std::string text = FormatToken(token) + "\n";
    if (fd < 0 || write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()) ||
        close(fd) != 0 || rename(temp.c_str(), path.c_str()) != 0) {
      throw std::runtime_error(Errno(("cannot write the token file " + path).c_str()));
    }
    return token;
  }
  try {
    return ParseToken(ReadWholeFile(path).substr(0, 256));
  } catch (const std::invalid_argument& e) {
    throw InputError(path, 1, e.what());
  }
}

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
    case MessageType::kRedirect:
      return "redirect";
    case MessageType::kWelcome:
      return "welcome";
    case MessageType::kBusy:
      return "busy";
  }
  return "unknown";
}

std::string EncodeMessage(const Message& message, const Token& token) {
  std::string frame(kHeaderBytes + message.data.size() * sizeof(float), '\0');
  auto* bytes = reinterpret_cast<uint8_t*>(frame.data());
  EncodeHeader(message, token, bytes);
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
      type > static_cast<uint32_t>(MessageType::kBusy)) {
    throw ProtocolError("unknown message type " + std::to_string(type));
  }
  header.type = static_cast<MessageType>(type);
  header.rank = Get<uint32_t>(bytes + 8);
  header.step = Get<uint64_t>(bytes + 16);
  header.count = Get<uint64_t>(bytes + 24);
  std::memcpy(header.token.data(), bytes + 32, header.token.size());
  if (header.count > kMaxFloats) {
    throw ProtocolError("message of " + std::to_string(header.count) +
                        " floats exceeds the limit of " + std::to_string(kMaxFloats));
  }
  return header;
}

Message DecodeMessage(const std::string& frame, const Token& token) {
  if (frame.size() < kHeaderBytes) throw ProtocolError("frame shorter than its header");
  const auto* bytes = reinterpret_cast<const uint8_t*>(frame.data());
  Header header = DecodeHeader(bytes);
  if (!SameToken(header.token, token)) throw ProtocolError("wrong token");
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

void SendMessage(int fd, const Message& message, const Token& token) {
  SendFloats(fd, message.type, message.rank, message.step, message.data.data(), message.data.size(),
             token);
}

void SendFloats(int fd, MessageType type, uint32_t rank, uint64_t step, const float* data,
                size_t count, const Token& token) {
  uint8_t header[kHeaderBytes];
  std::memcpy(header, kMagic, 4);
  Put<uint32_t>(header + 4, static_cast<uint32_t>(type));
  Put<uint32_t>(header + 8, rank);
  Put<uint32_t>(header + 12, 0);
  Put<uint64_t>(header + 16, step);
  Put<uint64_t>(header + 24, count);
  std::memcpy(header + 32, token.data(), token.size());
  iovec parts[2] = {{header, kHeaderBytes}, {const_cast<float*>(data), count * sizeof(float)}};
  int first = 0;
  const int parts_count = count == 0 ? 1 : 2;
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

Message ReceiveMessage(int fd, const Token& token, uint64_t max_count) {
  uint8_t bytes[kHeaderBytes];
  if (!ReadFully(fd, bytes, kHeaderBytes, true)) {
    throw ConnectionClosed("peer closed the connection");
  }
  Header header = DecodeHeader(bytes);
  if (!SameToken(header.token, token)) throw ProtocolError("wrong token");
  if (header.count > max_count) {
    throw ProtocolError(std::string(MessageTypeName(header.type)) + " message of " +
                        std::to_string(header.count) + " floats, expected at most " +
                        std::to_string(max_count));
  }
  Message message{header.type, header.rank, header.step, {}};
  // Grow with the bytes that actually arrive, never with the announced count alone.
  const uint64_t chunk_floats = kReadChunkBytes / sizeof(float);
  while (message.data.size() < header.count) {
    const size_t have = message.data.size();
    const size_t next = static_cast<size_t>(std::min<uint64_t>(header.count - have, chunk_floats));
    message.data.resize(have + next);
    ReadFully(fd, reinterpret_cast<uint8_t*>(message.data.data() + have), next * sizeof(float),
              false);
  }
  return message;
}

}  // namespace jigsaw::wire
