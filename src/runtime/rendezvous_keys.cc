#include "runtime/rendezvous_keys.h"

#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace jigsaw {
namespace {

bool ReadExactly(int fd, char* out, size_t n, bool allow_eof) {
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::recv(fd, out + done, n - done, 0);
    if (got > 0) {
      done += static_cast<size_t>(got);
    } else if (got == 0) {
      if (done == 0 && allow_eof) return false;
      throw std::runtime_error("rendezvous: connection closed in the middle of a frame");
    } else if (errno != EINTR) {
      throw std::runtime_error(std::string("rendezvous: recv: ") + std::strerror(errno));
    }
  }
  return true;
}

uint32_t GetU32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

RendezvousKeys::Result Error(const std::string& message) { return {kRvError, {message}}; }

bool ValidKey(const std::string& key) { return !key.empty() && key.size() <= kMaxKeyBytes; }

}  // namespace

bool ReadRendezvousFrame(int fd, uint32_t* first, RendezvousArgs* args) {
  char header[8];
  if (!ReadExactly(fd, header, 8, true)) return false;
  *first = GetU32(header);
  const uint32_t count = GetU32(header + 4);
  if (count > kMaxArgs) {
    throw std::runtime_error("rendezvous: frame of " + std::to_string(count) +
                             " arguments, at most " + std::to_string(kMaxArgs));
  }
  args->clear();
  uint64_t total = 8;
  for (uint32_t i = 0; i < count; ++i) {
    char length_bytes[4];
    ReadExactly(fd, length_bytes, 4, false);
    const uint32_t length = GetU32(length_bytes);
    total += 4 + uint64_t{length};
    if (length > kMaxValueBytes || total > kMaxRendezvousFrameBytes) {
      throw std::runtime_error("rendezvous: argument of " + std::to_string(length) +
                               " bytes over the limits (" + std::to_string(kMaxValueBytes) +
                               " per argument, " + std::to_string(kMaxRendezvousFrameBytes) +
                               " per frame)");
    }
    std::string value(length, '\0');
    ReadExactly(fd, value.data(), length, false);
    args->push_back(std::move(value));
  }
  return true;
}

void WriteRendezvousFrame(int fd, uint32_t first, const RendezvousArgs& args) {
  std::string frame;
  PutU32(&frame, first);
  PutU32(&frame, static_cast<uint32_t>(args.size()));
  for (const std::string& a : args) {
    PutU32(&frame, static_cast<uint32_t>(a.size()));
    frame += a;
  }
  size_t sent = 0;
  while (sent < frame.size()) {
    const ssize_t n = ::send(fd, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("rendezvous: send: ") + std::strerror(errno));
    sent += static_cast<size_t>(n);
  }
}

std::string EncodeInt64(int64_t value) {
  std::string bytes(8, '\0');
  const auto u = static_cast<uint64_t>(value);
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((u >> (8 * i)) & 0xff);
  return bytes;
}

int64_t DecodeInt64(const std::string& bytes) {
  if (bytes.size() != 8) throw std::runtime_error("rendezvous: expected an 8-byte integer");
  uint64_t u = 0;
  for (int i = 7; i >= 0; --i) u = (u << 8) | static_cast<uint8_t>(bytes[i]);
  return static_cast<int64_t>(u);
}

bool RendezvousKeys::Has(const RendezvousArgs& keys) const {
  for (const std::string& k : keys) {
    if (values_.count(k) == 0) return false;
  }
  return true;
}

RendezvousKeys::Result RendezvousKeys::Set(const std::string& key, const std::string& value) {
  auto it = values_.find(key);
  const uint64_t before = it == values_.end() ? 0 : key.size() + it->second.size();
  const uint64_t after = key.size() + value.size();
  if (bytes_ - before + after > kMaxStoreBytes) {
    return Error("the rendezvous store is full (" + std::to_string(kMaxStoreBytes) + " bytes)");
  }
  bytes_ = bytes_ - before + after;
  values_[key] = value;
  changed_.notify_all();
  return {};
}

RendezvousKeys::Result RendezvousKeys::WaitFor(const RendezvousArgs& keys, int64_t timeout_ms,
                                               std::unique_lock<std::mutex>& lock) {
  for (const std::string& k : keys) {
    if (!ValidKey(k)) return Error("a key must have 1.." + std::to_string(kMaxKeyBytes) + " bytes");
  }
  const bool found =
      changed_.wait_for(lock, std::chrono::milliseconds(std::max<int64_t>(0, timeout_ms)),
                        [&] { return stopped_ || Has(keys); });
  if (stopped_) return Error("the rendezvous is shutting down");
  return found ? Result{} : Result{kRvTimeout, {}};
}

RendezvousKeys::Result RendezvousKeys::Execute(uint32_t op, const RendezvousArgs& a) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (stopped_) return Error("the rendezvous is shutting down");
  try {
    return Run(op, a, lock);
  } catch (const std::exception& e) {
    return Error(e.what());
  }
}

RendezvousKeys::Result RendezvousKeys::Run(uint32_t op, const RendezvousArgs& a,
                                           std::unique_lock<std::mutex>& lock) {
  const auto key_ok = [&](size_t count) { return a.size() == count && ValidKey(a[0]); };
  switch (op) {
    case kRvSet:
      if (!key_ok(2)) break;
      return Set(a[0], a[1]);
    case kRvGet: {
      if (!key_ok(2)) break;
      Result waited = WaitFor({a[0]}, DecodeInt64(a[1]), lock);
      if (waited.status != kRvOk) return waited;
      return {kRvOk, {values_.at(a[0])}};
    }
    case kRvAdd: {
      if (!key_ok(2)) break;
      auto it = values_.find(a[0]);
      int64_t value = 0;
      try {
        if (it != values_.end()) value = std::stoll(it->second);
      } catch (const std::exception&) {
        return Error("add on a key that does not hold a number");
      }
      value += DecodeInt64(a[1]);
      Result set = Set(a[0], std::to_string(value));
      if (set.status != kRvOk) return set;
      return {kRvOk, {EncodeInt64(value)}};
    }
    case kRvCompareSet: {
      if (!key_ok(3)) break;
      auto it = values_.find(a[0]);
      if ((it == values_.end() && a[1].empty()) || (it != values_.end() && it->second == a[1])) {
        Result set = Set(a[0], a[2]);
        if (set.status != kRvOk) return set;
        return {kRvOk, {a[2]}};
      }
      return {kRvOk, {it == values_.end() ? a[1] : it->second}};
    }
    case kRvDelete: {
      if (!key_ok(1)) break;
      auto it = values_.find(a[0]);
      if (it == values_.end()) return {kRvOk, {std::string(1, '\0')}};
      bytes_ -= it->first.size() + it->second.size();
      values_.erase(it);
      return {kRvOk, {std::string(1, '\1')}};
    }
    case kRvCheck:
      return {kRvOk, {std::string(1, Has(a) ? '\1' : '\0')}};
    case kRvNumKeys:
      return {kRvOk, {EncodeInt64(static_cast<int64_t>(values_.size()))}};
    case kRvWait: {
      if (a.empty()) break;
      return WaitFor(RendezvousArgs(a.begin() + 1, a.end()), DecodeInt64(a[0]), lock);
    }
    default:
      return Error("unknown rendezvous operation " + std::to_string(op));
  }
  return Error("malformed rendezvous request (operation " + std::to_string(op) + ")");
}

void RendezvousKeys::Stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopped_ = true;
  changed_.notify_all();
}

}  // namespace jigsaw
