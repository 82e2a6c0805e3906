#include "paramsvc/control.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace jigsaw::paramsvc {
namespace {

constexpr char kMagic[4] = {'J', 'P', 'S', 'C'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeader = 48;
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

bool ReadAll(int fd, uint8_t* out, size_t n, bool allow_eof) {
  size_t done = 0;
  while (done < n) {
    const ssize_t got = recv(fd, out + done, n - done, 0);
    if (got > 0) {
      done += static_cast<size_t>(got);
    } else if (got == 0) {
      if (done == 0 && allow_eof) return false;
      throw ps::ProtocolError("connection closed in the middle of a control frame");
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

void SendControl(int fd, const ControlFrame& frame, const ps::Token& token) {
  const std::string json = frame.body.dump();
  uint8_t header[kHeader] = {};
  std::memcpy(header, kMagic, 4);
  const uint64_t json_bytes = json.size(), float_count = frame.floats.size();
  std::memcpy(header + 4, &kVersion, 4);
  std::memcpy(header + 8, &json_bytes, 8);
  std::memcpy(header + 16, &float_count, 8);
  std::memcpy(header + 32, token.data(), token.size());
  iovec parts[3] = {{header, kHeader},
                    {const_cast<char*>(json.data()), json.size()},
                    {const_cast<float*>(frame.floats.data()), frame.floats.size() * sizeof(float)}};
  SendAll(fd, parts, 3);
}

ControlFrame ReceiveControl(int fd, uint64_t max_floats) {
  uint8_t header[kHeader];
  if (!ReadAll(fd, header, kHeader, true)) throw ps::ConnectionClosed("peer closed");
  if (std::memcmp(header, kMagic, 4) != 0) {
    throw ps::ProtocolError("bad magic: not a jigsaw parameter-service control frame");
  }
  uint32_t version = 0;
  uint64_t json_bytes = 0, float_count = 0;
  std::memcpy(&version, header + 4, 4);
  std::memcpy(&json_bytes, header + 8, 8);
  std::memcpy(&float_count, header + 16, 8);
  if (version != kVersion) {
    throw ps::ProtocolError("control frame version " + std::to_string(version) + ", expected " +
                            std::to_string(kVersion));
  }
  if (json_bytes == 0 || json_bytes > kMaxControlJsonBytes) {
    throw ps::ProtocolError("control frame with " + std::to_string(json_bytes) +
                            " JSON bytes (expected 1.." + std::to_string(kMaxControlJsonBytes) +
                            ")");
  }
  if (float_count > max_floats) {
    throw ps::ProtocolError("control frame with " + std::to_string(float_count) +
                            " floats, expected at most " + std::to_string(max_floats));
  }
  ControlFrame frame;
  std::memcpy(frame.token.data(), header + 32, frame.token.size());
  std::string json;
  while (json.size() < json_bytes) {
    const size_t have = json.size();
    const size_t next = static_cast<size_t>(std::min<uint64_t>(json_bytes - have, kChunk));
    json.resize(have + next);
    ReadAll(fd, reinterpret_cast<uint8_t*>(json.data() + have), next, false);
  }
  const uint64_t chunk_floats = kChunk / sizeof(float);
  while (frame.floats.size() < float_count) {
    const size_t have = frame.floats.size();
    const size_t next = static_cast<size_t>(std::min<uint64_t>(float_count - have, chunk_floats));
    frame.floats.resize(have + next);
    ReadAll(fd, reinterpret_cast<uint8_t*>(frame.floats.data() + have), next * sizeof(float),
            false);
  }
  frame.body = Json::parse(json, nullptr, false);
  if (frame.body.is_discarded() || !frame.body.is_object() || !frame.body.contains("op") ||
      !frame.body["op"].is_string()) {
    throw ps::ProtocolError("control frame whose JSON is not an object with a string \"op\"");
  }
  return frame;
}

uint64_t GetUint(const Json& body, const char* field, uint64_t max) {
  auto it = body.find(field);
  if (it == body.end() || !it->is_number_integer() || it->get<int64_t>() < 0 ||
      it->get<uint64_t>() > max) {
    throw ps::ProtocolError(std::string("control field \"") + field +
                            "\" must be an integer in 0.." + std::to_string(max));
  }
  return it->get<uint64_t>();
}

double GetNumber(const Json& body, const char* field, double min, double max) {
  auto it = body.find(field);
  if (it == body.end() || !it->is_number()) {
    throw ps::ProtocolError(std::string("control field \"") + field + "\" must be a number");
  }
  const double value = it->get<double>();
  if (!std::isfinite(value) || value < min || value > max) {
    throw ps::ProtocolError(std::string("control field \"") + field + "\" out of range");
  }
  return value;
}

std::string GetString(const Json& body, const char* field, size_t max_bytes) {
  auto it = body.find(field);
  if (it == body.end() || !it->is_string() || it->get<std::string>().size() > max_bytes) {
    throw ps::ProtocolError(std::string("control field \"") + field +
                            "\" must be a string of at most " + std::to_string(max_bytes) +
                            " bytes");
  }
  return it->get<std::string>();
}

}  // namespace jigsaw::paramsvc
