#include "paramsvc/control.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "core/handshake_client.h"

namespace jigsaw::paramsvc {
namespace {

constexpr char kMagic[4] = {'J', 'P', 'S', 'C'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeader = kControlHeaderBytes;
constexpr size_t kChunk = size_t{1} << 20;

void SendAll(int fd, iovec* parts, int count) {
  int first = 0;
  while (first < count) {
    if (parts[first].iov_len == 0) {
      ++first;
      continue;
    }
    msghdr msg{};
    msg.msg_iov = parts + first;
    msg.msg_iovlen = static_cast<size_t>(count - first);
    const ssize_t sent = sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("send: ") + std::strerror(errno));
    }
    size_t left = static_cast<size_t>(sent);
    while (first < count && left >= parts[first].iov_len) {
      left -= parts[first].iov_len;
      ++first;
    }
    if (first < count) {
      parts[first].iov_base = static_cast<uint8_t*>(parts[first].iov_base) + left;
      parts[first].iov_len -= left;
    }
  }
}

// With a deadline (not the epoch) every wait is bounded by it: one deadline for the whole body.
bool ReadAll(int fd, uint8_t* out, size_t n, bool allow_eof,
             std::chrono::steady_clock::time_point deadline = {}) {
  size_t done = 0;
  while (done < n) {
    if (deadline != std::chrono::steady_clock::time_point{}) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
      pollfd waiting{fd, POLLIN, 0};
      if (left <= 0 || poll(&waiting, 1, static_cast<int>(std::min<int64_t>(left, 60'000))) == 0) {
        throw wire::ProtocolError("control frame not complete within the handshake deadline");
      }
    }
    const ssize_t got = recv(fd, out + done, n - done, 0);
    if (got > 0) {
      done += static_cast<size_t>(got);
    } else if (got == 0) {
      if (done == 0 && allow_eof) return false;
      throw wire::ProtocolError("connection closed in the middle of a control frame");
    } else if (errno != EINTR) {
      throw std::runtime_error(std::string("recv: ") + std::strerror(errno));
    }
  }
  return true;
}

}  // namespace

ControlFrame MakeFrame(const std::string& op) {
  ControlFrame frame;
  frame.body["op"] = op;
  return frame;
}

namespace {

void EncodeHeader(uint64_t json_bytes, uint64_t float_count, const wire::Token& token,
                  uint8_t* header) {
  std::memset(header, 0, kHeader);
  std::memcpy(header, kMagic, 4);
  std::memcpy(header + 4, &kVersion, 4);
  std::memcpy(header + 8, &json_bytes, 8);
  std::memcpy(header + 16, &float_count, 8);
  std::memcpy(header + 32, token.data(), token.size());
}

}  // namespace

std::string EncodeControl(const ControlFrame& frame, const wire::Token& token) {
  const std::string json = frame.body.dump();
  std::string bytes(kHeader, '\0');
  EncodeHeader(json.size(), frame.floats.size(), token, reinterpret_cast<uint8_t*>(bytes.data()));
  bytes += json;
  bytes.append(reinterpret_cast<const char*>(frame.floats.data()),
               frame.floats.size() * sizeof(float));
  return bytes;
}

void SendControl(int fd, const ControlFrame& frame, const wire::Token& token) {
  const std::string json = frame.body.dump();
  uint8_t header[kHeader];
  EncodeHeader(json.size(), frame.floats.size(), token, header);
  iovec parts[3] = {{header, kHeader},
                    {const_cast<char*>(json.data()), json.size()},
                    {const_cast<float*>(frame.floats.data()), frame.floats.size() * sizeof(float)}};
  SendAll(fd, parts, 3);
}

ControlHeader DecodeControlHeader(const uint8_t* header, uint64_t max_floats) {
  if (std::memcmp(header, kMagic, 4) != 0) {
    throw wire::ProtocolError("bad magic: not a jigsaw parameter-service control frame");
  }
  uint32_t version = 0;
  ControlHeader decoded;
  std::memcpy(&version, header + 4, 4);
  std::memcpy(&decoded.json_bytes, header + 8, 8);
  std::memcpy(&decoded.float_count, header + 16, 8);
  std::memcpy(decoded.token.data(), header + 32, decoded.token.size());
  if (version != kVersion) {
    throw wire::ProtocolError("control frame version " + std::to_string(version) + ", expected " +
                              std::to_string(kVersion));
  }
  if (decoded.json_bytes == 0 || decoded.json_bytes > kMaxControlJsonBytes) {
    throw wire::ProtocolError("control frame with " + std::to_string(decoded.json_bytes) +
                              " JSON bytes (expected 1.." + std::to_string(kMaxControlJsonBytes) +
                              ")");
  }
  if (decoded.float_count > max_floats) {
    throw wire::ProtocolError("control frame with " + std::to_string(decoded.float_count) +
                              " floats, expected at most " + std::to_string(max_floats));
  }
  return decoded;
}

ControlFrame ReceiveControlBody(int fd, const ControlHeader& header,
                                std::chrono::steady_clock::time_point deadline) {
  ControlFrame frame;
  frame.token = header.token;
  std::string json;
  while (json.size() < header.json_bytes) {
    const size_t have = json.size();
    const size_t next = static_cast<size_t>(std::min<uint64_t>(header.json_bytes - have, kChunk));
    json.resize(have + next);
    ReadAll(fd, reinterpret_cast<uint8_t*>(json.data() + have), next, false, deadline);
  }
  const uint64_t chunk_floats = kChunk / sizeof(float);
  while (frame.floats.size() < header.float_count) {
    const size_t have = frame.floats.size();
    const size_t next =
        static_cast<size_t>(std::min<uint64_t>(header.float_count - have, chunk_floats));
    frame.floats.resize(have + next);
    ReadAll(fd, reinterpret_cast<uint8_t*>(frame.floats.data() + have), next * sizeof(float), false,
            deadline);
  }
  frame.body = Json::parse(json, nullptr, false);
  if (frame.body.is_discarded() || !frame.body.is_object() || !frame.body.contains("op") ||
      !frame.body["op"].is_string()) {
    throw wire::ProtocolError("control frame whose JSON is not an object with a string \"op\"");
  }
  return frame;
}

ControlFrame ReceiveControl(int fd, uint64_t max_floats) {
  uint8_t header[kHeader];
  if (!ReadAll(fd, header, kHeader, true)) throw wire::ConnectionClosed("peer closed");
  return ReceiveControlBody(fd, DecodeControlHeader(header, max_floats));
}

ControlFrame RequestWithRetry(const std::string& host, int port, double timeout_s,
                              const ControlFrame& request, const wire::Token& token,
                              const std::string& what, wire::Socket* socket) {
  const std::string bytes = EncodeControl(request, token);
  ControlFrame reply;
  *socket = wire::RetryHandshake(what, timeout_s, [&](double left) {
    wire::Socket s;
    try {
      s = wire::ConnectTcp(host, port, left);
    } catch (const std::runtime_error& e) {
      throw wire::HandshakeRefused(std::string("not reachable: ") + e.what());
    }
    wire::SendHandshakeBytes(s.fd(), bytes.data(), bytes.size());
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(left));
    uint8_t header[kHeader];
    wire::ReceiveHandshakeBytes(s.fd(), header, kHeader, deadline);
    reply = ReceiveControlBody(s.fd(), DecodeControlHeader(header, 0), deadline);
    if (reply.op() == "error") {
      const std::string reason = reply.body.value("reason", std::string("?"));
      if (reason == "server busy") throw wire::HandshakeRefused(reason);
      throw std::runtime_error(what + ": refused: " + reason);
    }
    return s;
  });
  return reply;
}

uint64_t GetUint(const Json& body, const char* field, uint64_t max) {
  auto it = body.find(field);
  if (it == body.end() || !it->is_number_integer() || it->get<int64_t>() < 0 ||
      it->get<uint64_t>() > max) {
    throw wire::ProtocolError(std::string("control field \"") + field +
                              "\" must be an integer in 0.." + std::to_string(max));
  }
  return it->get<uint64_t>();
}

double GetNumber(const Json& body, const char* field, double min, double max) {
  auto it = body.find(field);
  if (it == body.end() || !it->is_number()) {
    throw wire::ProtocolError(std::string("control field \"") + field + "\" must be a number");
  }
  const double value = it->get<double>();
  if (!std::isfinite(value) || value < min || value > max) {
    throw wire::ProtocolError(std::string("control field \"") + field + "\" out of range");
  }
  return value;
}

std::string GetString(const Json& body, const char* field, size_t max_bytes) {
  auto it = body.find(field);
  if (it == body.end() || !it->is_string() || it->get<std::string>().size() > max_bytes) {
    throw wire::ProtocolError(std::string("control field \"") + field +
                              "\" must be a string of at most " + std::to_string(max_bytes) +
                              " bytes");
  }
  return it->get<std::string>();
}

}  // namespace jigsaw::paramsvc
